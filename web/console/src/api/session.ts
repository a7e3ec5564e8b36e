import { useQuery } from '@tanstack/react-query';
import { endSession, fetchSession, signOutSession, startSession } from './session-state';
import type { Session } from './types';

/**
 * The session through TanStack Query, for the signed-in pages (loaded with them, not with sign-in): the rest
 * is api/session-state.ts and api/areas.ts, re-exported here.
 */
export * from './session-state';
export * from './areas';

export const SESSION_KEY = ['session'] as const;

export function useSession() {
  return useQuery({ queryKey: SESSION_KEY, queryFn: fetchSession, staleTime: 5 * 60_000 });
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

/** Start, end or sign out of the session (api/session-state.ts; the query cache follows). */
export function useSessionActions() {
  return { start: startSession, end: endSession, signOut: signOutSession };
}
