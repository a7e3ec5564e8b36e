import { benchApi } from './seed.js';

/**
 * Connecting an `oauth2` installation in a benchmark, over plain HTTP on loopback, the way a person's browser does
 * it in the console but without visiting the provider:
 *
 * 1. sign in to the console (`POST /api/auth/signin`): the session cookie and its CSRF token;
 * 2. `POST /api/org/installations/{id}/connection` with that session: the provider's authorization URL, whose
 *    `state` is all the benchmark needs from it (the authorization page itself is never visited);
 * 3. `GET /oauth/callback?code=…&state=…` with the same cookie, as the provider's redirect would: Switchboard
 *    exchanges the code at the tool's token URL (bench/tool-endpoint.ts answers it) and answers 303 to the console.
 */

export interface ConsoleSession {
  cookie: string;
  csrfToken: string;
  /** Sent as Origin on changes: the server's own origin, which a development server accepts as same-site. */
  origin: string;
}

export async function signInToConsole(serverUrl: string, email: string, password: string): Promise<ConsoleSession> {
  const origin = new URL(serverUrl).origin;
  const res = await fetch(`${serverUrl}/api/auth/signin`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', origin },
    body: JSON.stringify({ email, password }),
  });
  if (res.status !== 200) throw new Error(`sign-in: ${res.status} ${await res.text()}`);
  const session = res.headers.getSetCookie().map((cookie) => cookie.split(';')[0]!).find((pair) => pair.startsWith('svc_session='));
  if (!session) throw new Error('sign-in set no svc_session cookie');
  const data = ((await res.json()) as { data: { csrfToken: string } }).data;
  return { cookie: session, csrfToken: data.csrfToken, origin };
}

/** Connects the installation's account through the callback, checks it is connected, and answers its status. */
export async function connectInstallation(serverUrl: string, apiKey: string, session: ConsoleSession, installationId: string): Promise<{ status: string; expiresAt: string | null }> {
  const started = await fetch(`${serverUrl}/api/org/installations/${installationId}/connection`, {
    method: 'POST',
    headers: { cookie: session.cookie, 'x-csrf-token': session.csrfToken, origin: session.origin },
  });
  if (started.status !== 200) throw new Error(`starting the connection: ${started.status} ${await started.text()}`);
  const { authorizationUrl } = ((await started.json()) as { data: { authorizationUrl: string } }).data;
  const state = new URL(authorizationUrl).searchParams.get('state');
  if (!state) throw new Error(`the authorization URL carries no state: ${authorizationUrl}`);

  const callback = await fetch(`${serverUrl}/oauth/callback?${new URLSearchParams({ code: 'bench-authorization-code', state })}`, {
    headers: { cookie: session.cookie },
    redirect: 'manual',
  });
  const location = callback.headers.get('location') ?? '';
  if (callback.status !== 303 || !location.includes('connection=connected')) {
    throw new Error(`the callback did not connect: ${callback.status} ${location} ${await callback.text()}`);
  }
  const status = await benchApi(serverUrl, 'GET', `/api/org/installations/${installationId}/connection`, apiKey);
  if (status.status !== 'connected') throw new Error(`the installation is not connected: ${JSON.stringify(status)}`);
  return { status: status.status, expiresAt: status.expiresAt };
}
