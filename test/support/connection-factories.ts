import type { LightMyRequestResponse } from 'fastify';
import type { App } from '../../src/http/app-type.js';

/**
 * A person in the console for connection tests: signed up (owner of a new organization, or a developer), with the
 * session cookie and CSRF token a browser would send; `send` makes requests as them.
 */
export const CONSOLE_ORIGIN = 'http://localhost:3000';

export interface ConsolePerson {
  cookie: string;
  headers: Record<string, string>;
  orgId: string | null;
  send(method: 'GET' | 'POST' | 'PATCH' | 'DELETE', url: string, payload?: object): Promise<LightMyRequestResponse>;
}

/** `origin`: the console's (PUBLIC_URL's origin); the test context's default when left out. */
export async function signUpPerson(app: App, who: { email: string; organizationName?: string; developer?: boolean; origin?: string }): Promise<ConsolePerson> {
  const origin = who.origin ?? CONSOLE_ORIGIN;
  const res = await app.inject({
    method: 'POST', url: '/api/auth/signup', headers: { origin },
    payload: { email: who.email, password: 'violet kettle marathon', name: 'Olive', ...(who.organizationName ? { organizationName: who.organizationName } : {}), ...(who.developer ? { developer: true } : {}) },
  });
  if (res.statusCode !== 201) throw new Error(`sign-up failed: ${res.statusCode} ${res.body}`);
  const cookie = /^svc_session=[^;]*/.exec(String(res.headers['set-cookie']))![0];
  const data = res.json().data as { csrfToken: string; organization?: { id: string } | null };
  const headers = { origin, cookie, 'x-csrf-token': data.csrfToken };
  return {
    cookie,
    headers,
    orgId: data.organization?.id ?? null,
    send: (method, url, payload) => app.inject({ method, url, headers, ...(payload ? { payload } : {}) }),
  };
}

/** The `state` of an authorization URL (what the provider hands back). */
export function stateOf(authorizationUrl: string): string {
  return new URL(authorizationUrl).searchParams.get('state')!;
}

/** The provider's redirect to `/oauth/callback`, followed as the person's browser does (their cookie only). */
export function followCallback(app: App, redirect: string, cookie: string | undefined) {
  const url = new URL(redirect);
  return app.inject({ method: 'GET', url: url.pathname + url.search, headers: cookie ? { cookie } : {} });
}
