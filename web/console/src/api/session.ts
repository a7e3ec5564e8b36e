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

/** The console's two areas: the operator pages of an organization, and the developer portal. */
export type Area = 'business' | 'developer';

/** The area a person who is both last worked in, kept in this browser so sign-in lands there again. */
const LAST_AREA = 'switchboard.area';

export function rememberArea(area: Area): void {
  try {
    localStorage.setItem(LAST_AREA, area);
  } catch {
    // Storage refused: a person who is both lands on the operator pages, one click from the other area.
  }
}

function lastArea(): Area | null {
  try {
    const stored = localStorage.getItem(LAST_AREA);
    return stored === 'business' || stored === 'developer' ? stored : null;
  } catch {
    return null;
  }
}

/** The areas this person has: the operator pages with an organization, the portal with a developer account (or with neither, to become a developer). */
export function areasOf(session: Session): Area[] {
  const areas: Area[] = [];
  if (session.organization) areas.push('business');
  if (session.developer || !session.organization) areas.push('developer');
  return areas;
}

/** Which area a path belongs to; null for the pages both share (Settings, not found). */
export function areaOfPath(pathname: string): Area | null {
  if (pathname === '/developer' || pathname.startsWith('/developer/')) return 'developer';
  if (pathname === '/settings' || pathname === '/') return null;
  return 'business';
}

/** The area shown now: the page's own, else the one last chosen, else the first this person has. */
export function currentArea(session: Session, pathname: string): Area {
  const areas = areasOf(session);
  const wanted = areaOfPath(pathname) ?? lastArea();
  return wanted && areas.includes(wanted) ? wanted : areas[0]!;
}

export const AREA_HOME: Record<Area, string> = { business: '/forms', developer: '/developer' };

/** Where a person lands after signing in: the area they last worked in (operator pages first), or the only one they have. */
export function homeOf(session: Session): string {
  return AREA_HOME[currentArea(session, '/')];
}

/** The signed-in session; only for components under RequireSession. */
export function useCurrentSession(): Session {
  const { data } = useSession();
  if (!data) throw new Error('useCurrentSession outside RequireSession');
  return data;
}

/**
 * The address people reach the service at (the server's PUBLIC_URL), for the snippets the console gives
 * (the chat widget's tag, MCP's URL, a token request): not the address the console was opened at, which
 * may be an internal one.
 */
export function usePublicUrl(): string {
  return useCurrentSession().publicUrl;
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
