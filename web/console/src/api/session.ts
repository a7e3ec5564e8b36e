import { useQuery, useQueryClient, type QueryClient } from '@tanstack/react-query';
import { api, sessionOwner } from './client';
import type { Session } from './types';

export const SESSION_KEY = ['session'] as const;

/** Set once this browser has had a session: a newcomer is sent to sign-up, a returning person to sign-in. */
const KNOWN = 'switchboard.known';

export function isKnownBrowser(): boolean {
  try {
    return localStorage.getItem(KNOWN) === '1';
  } catch {
    return false;
  }
}

function rememberBrowser(): void {
  try {
    localStorage.setItem(KNOWN, '1');
  } catch {
    // Storage refused (private mode): the only cost is landing on sign-up instead of sign-in.
  }
}

/**
 * The signed-in session, or null when nobody is signed in: the server answers 200 with `data: null`
 * then, so a signed-out visit makes no request the browser reports as failed.
 */
export async function fetchSession(): Promise<Session | null> {
  const session = await api.get<Session | null>('/api/auth/session');
  if (!session) {
    api.setCsrfToken(null);
    return null;
  }
  api.setCsrfToken(session.csrfToken, sessionOwner(session.user.id, session.organization?.id ?? null));
  rememberBrowser();
  return session;
}

export function useSession() {
  return useQuery({ queryKey: SESSION_KEY, queryFn: fetchSession, staleTime: 5 * 60_000 });
}

/** Where a person lands after signing in: the operator pages, or the Developer page for a person without an organization. */
export function homeOf(session: Session): string {
  return session.organization ? '/forms' : '/developer';
}

/** The signed-in session; only for components under RequireSession. */
export function useCurrentSession(): Session {
  const { data } = useSession();
  if (!data) throw new Error('useCurrentSession outside RequireSession');
  return data;
}

let signedOut = false;

/** True after this tab signed out (until the next sign-in): the guard then sends to sign-in without a way back. */
export function hasSignedOut(): boolean {
  return signedOut;
}

/** After sign-in, sign-up, a password change or an accepted invitation: the new session, nothing cached from before. */
export function startSession(client: QueryClient, session: Session): void {
  signedOut = false;
  api.setCsrfToken(session.csrfToken, sessionOwner(session.user.id, session.organization?.id ?? null));
  rememberBrowser();
  client.removeQueries({ predicate: (query) => query.queryKey[0] !== SESSION_KEY[0] });
  client.setQueryData(SESSION_KEY, session);
}

/** After sign-out or a 401: forget the session and every record cached under it. */
export function endSession(client: QueryClient): void {
  api.setCsrfToken(null);
  client.removeQueries({ predicate: (query) => query.queryKey[0] !== SESSION_KEY[0] });
  client.setQueryData(SESSION_KEY, null);
}

export function useSessionActions() {
  const client = useQueryClient();
  return {
    start: (session: Session) => startSession(client, session),
    end: () => endSession(client),
    signOut: () => {
      signedOut = true;
      endSession(client);
    },
  };
}
