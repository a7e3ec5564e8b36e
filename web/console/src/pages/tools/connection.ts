import { useEffect, useRef } from 'react';
import { useSearchParams } from 'react-router';
import { api } from '../../api/client';
import type { OAuthConnectionStart, OAuthDisconnected } from '../../api/types';
import { useNotify } from '../../lib/notices';

/**
 * Connecting an account for an oauth2 tool (docs/operator-api.md, "Connections"): the console asks the API to
 * start (an installation's `…/connection`, or a developer's `…/test-connection`), then sends the whole tab to the
 * provider's sign-in and consent page. The provider returns it to `/oauth/callback`, which sends it back to the
 * page it started from with `?connection=connected` (or shows a page of its own when something went wrong).
 */

/** Starts a connection at `path` and leaves for the provider; resolves only if the tab stays (it does not). */
export async function connectAt(path: string): Promise<void> {
  const started = await api.post<OAuthConnectionStart>(path);
  window.location.assign(started.authorizationUrl);
  // The page is being replaced: stay pending rather than redraw the button for a moment.
  await new Promise(() => {});
}

export const disconnectAt = (path: string) => api.delete<OAuthDisconnected>(path);

/** After a disconnect: what happened at the provider too. */
export function disconnectedMessage(result: OAuthDisconnected, what: string): string {
  if (!result.disconnected) return `${what} was not connected.`;
  return result.revoked ? `${what} is disconnected, and the provider revoked its access.` : `${what} is disconnected. Its tokens are deleted here; the provider did not confirm it revoked them.`;
}

/**
 * `?connection=connected` (the way back from the provider): the notice, once, and the parameter taken out of the
 * address so a reload or a shared link does not say it again.
 */
export function useConnectedNotice(message: string): void {
  const [params, setParams] = useSearchParams();
  const notify = useNotify();
  const shown = useRef(false);
  const connected = params.get('connection') === 'connected';
  useEffect(() => {
    if (!connected || shown.current) return;
    shown.current = true;
    notify(message);
    setParams(
      (current) => {
        const next = new URLSearchParams(current);
        next.delete('connection');
        return next;
      },
      { replace: true },
    );
  }, [connected, message, notify, setParams]);
}
