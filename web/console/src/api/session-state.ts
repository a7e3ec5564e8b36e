import { useEffect, useSyncExternalStore } from 'react';
import { api, sessionOwner } from './client';
import type { Session } from './types';

/**
 * The session as this tab knows it, without TanStack Query: what the signed-out pages (sign-in, sign-up, reset)
 * need, in the first page's chunk. The signed-in pages read it through the query cache (api/session.ts
 * `useSession`, loaded with them), which lib/query-root.tsx keeps in step: a session started or ended here is
 * set in that cache once it exists, and every fetch of the session through the cache lands here too.
 */

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
    return known(null);
  }
  api.setCsrfToken(session.csrfToken, sessionOwner(session.user.id, session.organization?.id ?? null));
  rememberBrowser();
  return known(session);
}

/** The session last known (a Session, null when signed out), undefined before it was first asked for. */
let current: Session | null | undefined;
const listeners = new Set<() => void>();

function known(session: Session | null): Session | null {
  current = session;
  for (const listener of listeners) listener();
  return session;
}

export function knownSession(): Session | null | undefined {
  return current;
}

/** The signed-in pages' query cache, once loaded (lib/query-root.tsx): told of each session started or ended. */
export interface SessionCache {
  start(session: Session): void;
  end(): void;
}
let cache: SessionCache | null = null;

export function attachSessionCache(attached: SessionCache): void {
  cache = attached;
}

const subscribe = (listener: () => void) => {
  listeners.add(listener);
  return () => void listeners.delete(listener);
};

/**
 * The signed-out pages' view of the session: a Session when someone is signed in (they send on), null when not,
 * undefined while it is asked for the first time. A failed request leaves it undefined: the page's form stays.
 */
export function useKnownSession(): Session | null | undefined {
  const session = useSyncExternalStore(subscribe, knownSession);
  useEffect(() => {
    if (knownSession() === undefined) fetchSession().catch(() => undefined);
  }, []);
  return session;
}

let signedOut = false;

/** True after this tab signed out (until the next sign-in): the guard then sends to sign-in without a way back. */
export function hasSignedOut(): boolean {
  return signedOut;
}

/** After sign-in, sign-up, a password change or an accepted invitation: the new session, nothing cached from before. */
export function startSession(session: Session): void {
  signedOut = false;
  api.setCsrfToken(session.csrfToken, sessionOwner(session.user.id, session.organization?.id ?? null));
  rememberBrowser();
  known(session);
  cache?.start(session);
}

/** After sign-out or a 401: forget the session and every record cached under it. */
export function endSession(): void {
  api.setCsrfToken(null);
  known(null);
  cache?.end();
}

/** Sign-out: as endSession, and the guard then sends to sign-in without a way back. */
export function signOutSession(): void {
  signedOut = true;
  endSession();
}
