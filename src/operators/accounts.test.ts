import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hashSecret } from '../lib/hashing.js';
import { newId } from '../lib/ids.js';
import { createTestContext, testDialects, type TestContext } from '../../test/support/context.js';
import { createOrgWithKey, type OrgWithKey } from '../../test/support/org-factories.js';

type Method = 'GET' | 'POST' | 'PATCH' | 'DELETE';
const ORIGIN = 'http://localhost:3000';

/** A browser: its cookie, CSRF token and address. */
interface Browser {
  cookie: string;
  csrf: string;
  user: { id: string; email: string; role: string };
  organization: { id: string; name: string };
}

let counter = 0;
const unique = () => `${Date.now().toString(36)}${(counter++).toString(36)}`;

function sessionCookie(setCookie: string | string[] | undefined): string {
  const header = Array.isArray(setCookie) ? setCookie[0] : setCookie;
  const match = /^svc_session=([^;]*)/.exec(header ?? '');
  if (!match) throw new Error(`no session cookie in ${String(header)}`);
  return `svc_session=${match[1]}`;
}

describe.each(testDialects())('console accounts on %s', (dialect) => {
  let t: TestContext;
  let keyed: OrgWithKey;

  beforeAll(async () => {
    t = await createTestContext(dialect);
    keyed = await createOrgWithKey(t.database, t.clock);
  });
  afterAll(async () => t.close());

  /** Each call from its own address unless told, so per-address limits do not mix tests. */
  const send = (method: Method, url: string, options: { browser?: Browser | null; csrf?: boolean; headers?: Record<string, string>; payload?: unknown; ip?: string } = {}) => {
    const headers: Record<string, string> = { origin: ORIGIN, ...options.headers };
    if (options.browser) {
      headers.cookie = options.browser.cookie;
      if (options.csrf !== false) headers['x-csrf-token'] = options.browser.csrf;
    }
    return t.app.inject({ method, url, headers, remoteAddress: options.ip ?? `10.0.${counter % 250}.${++counter % 250}`, ...(options.payload !== undefined ? { payload: options.payload as object } : {}) });
  };

  function browserOf(res: Awaited<ReturnType<typeof send>>): Browser {
    const data = res.json().data;
    return { cookie: sessionCookie(res.headers['set-cookie']), csrf: data.csrfToken, user: data.user, organization: data.organization };
  }

  /** GET /api/auth/session as this browser: always 200, with the session or null (signed out). */
  async function signedIn(browser?: Browser, headers: Record<string, string> = {}): Promise<boolean> {
    const res = await send('GET', '/api/auth/session', { browser, headers });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.headers['cache-control']).toBe('no-store');
    const data = res.json().data;
    if (data !== null) expect(data).toMatchObject({ user: { id: expect.any(String) }, csrfToken: expect.any(String) });
    return data !== null;
  }

  async function signUp(overrides: Record<string, string> = {}): Promise<Browser & { email: string; password: string }> {
    const email = `owner-${unique()}@example.com`;
    const password = 'violet kettle marathon';
    const res = await send('POST', '/api/auth/signup', { payload: { email, password, name: 'Olive Owner', organizationName: 'Olive Plumbing', ...overrides } });
    expect(res.statusCode, res.body).toBe(201);
    return { ...browserOf(res), email, password };
  }

  async function invite(owner: Browser, email = `member-${unique()}@example.com`) {
    const res = await send('POST', '/api/org/invitations', { browser: owner, payload: { email } });
    expect(res.statusCode, res.body).toBe(201);
    return res.json().data as { id: string; email: string; url: string; expiresAt: string };
  }

  async function member(owner: Browser): Promise<Browser> {
    const invitation = await invite(owner);
    const token = invitation.url.split('/').pop()!;
    const res = await send('POST', `/api/auth/invitations/${token}/accept`, { payload: { name: 'Max Member', password: 'amber lantern harbour' } });
    expect(res.statusCode, res.body).toBe(201);
    return browserOf(res);
  }

  describe('sign-up', () => {
    it('creates the org with its default pipeline, the user as owner, and signs in with a secure cookie', async () => {
      const res = await send('POST', '/api/auth/signup', { payload: { email: `New-${unique()}@Example.com`, password: 'violet kettle marathon', name: 'Ada', organizationName: 'Ada Co' } });
      expect(res.statusCode).toBe(201);
      const data = res.json().data;
      expect(data).toMatchObject({ user: { name: 'Ada', role: 'owner' }, organization: { name: 'Ada Co' }, csrfToken: expect.any(String) });
      expect(data.user.email).toMatch(/^new-.*@example\.com$/);
      const cookie = String(res.headers['set-cookie']);
      // Exactly these attributes, in any order (the serializer, @fastify/cookie, chooses the order).
      const [pair, ...attributes] = cookie.split('; ');
      expect(pair).toMatch(/^svc_session=svc_ses_[0-9A-Za-z]{40}$/);
      expect(attributes.sort()).toEqual(['HttpOnly', 'Max-Age=2592000', 'Path=/', 'SameSite=Lax']);
      expect(cookie).not.toContain('Secure');
      const token = /svc_ses_\w+/.exec(cookie)![0];
      const row = await t.database.db.selectFrom('sessions').selectAll().where('token_hash', '=', hashSecret(token)).executeTakeFirstOrThrow();
      expect(JSON.stringify(row)).not.toContain(token);
      const pipelines = await t.database.db.selectFrom('pipelines').select(['name', 'is_default']).where('org_id', '=', data.organization.id).execute();
      expect(pipelines).toEqual([{ name: 'Sales', is_default: 1 }]);
      // No API key nobody saw.
      expect(await t.database.db.selectFrom('org_api_keys').select('id').where('org_id', '=', data.organization.id).execute()).toEqual([]);
      // The session works on the Operator API.
      const org = await send('GET', '/api/org/organization', { browser: browserOf(res) });
      expect(org.json().data.name).toBe('Ada Co');
    });

    it.each([
      ['a short password', { password: 'short' }, 'password', /at least 10/],
      ['a common password', { password: 'Password123' }, 'password', /most common/],
      ['one repeated character', { password: 'aaaaaaaaaaaa' }, 'password', /most common/],
      ['a bad email', { email: 'not-an-email' }, 'email', /email/i],
      ['a blank organization', { organizationName: '  ' }, 'organizationName', /organization name/],
      ['a blank name', { name: ' ' }, 'name', /name/],
    ])('refuses %s with a clear message', async (_what, overrides, field, message) => {
      const res = await send('POST', '/api/auth/signup', { payload: { email: `x-${unique()}@example.com`, password: 'violet kettle marathon', name: 'A', organizationName: 'B', ...overrides } });
      expect(res.statusCode).toBe(400);
      expect(res.json()).toMatchObject({ code: 'VALIDATION_ERROR', field, error: expect.stringMatching(message) });
    });

    it('refuses an email that has an account with 409', async () => {
      const owner = await signUp();
      const res = await send('POST', '/api/auth/signup', { payload: { email: owner.email.toUpperCase(), password: 'violet kettle marathon', name: 'A', organizationName: 'B' } });
      expect(res.statusCode).toBe(409);
      expect(res.json().code).toBe('CONFLICT');
    });

    it('refuses a cross-site sign-up, malformed JSON, unknown fields and oversized bodies', async () => {
      const body = { email: `x-${unique()}@example.com`, password: 'violet kettle marathon', name: 'A', organizationName: 'B' };
      expect((await send('POST', '/api/auth/signup', { payload: body, headers: { origin: 'https://evil.example' } })).statusCode).toBe(403);
      expect((await send('POST', '/api/auth/signup', { payload: body, headers: { 'sec-fetch-site': 'cross-site' } })).statusCode).toBe(403);
      const bad = await t.app.inject({ method: 'POST', url: '/api/auth/signup', headers: { 'content-type': 'application/json' }, payload: '{"email":' });
      expect(bad.statusCode).toBe(400);
      expect((await send('POST', '/api/auth/signup', { payload: { ...body, admin: true } })).statusCode).toBe(400);
      const big = await send('POST', '/api/auth/signup', { payload: { ...body, name: 'x'.repeat(20_000) } });
      expect(big.statusCode).toBe(413);
      const text = await t.app.inject({ method: 'POST', url: '/api/auth/signup', headers: { 'content-type': 'text/plain' }, payload: 'hello' });
      expect(text.statusCode).toBe(415);
    });
  });

  describe('sign-in', () => {
    it('signs in, and the session answers GET /api/auth/session', async () => {
      const owner = await signUp();
      const res = await send('POST', '/api/auth/signin', { payload: { email: owner.email, password: owner.password } });
      expect(res.statusCode).toBe(200);
      const browser = browserOf(res);
      expect(browser.cookie).not.toBe(owner.cookie);
      const session = await send('GET', '/api/auth/session', { browser });
      expect(session.statusCode).toBe(200);
      expect(session.json().data).toEqual({ user: { id: owner.user.id, email: owner.email, name: 'Olive Owner', role: 'owner' }, organization: owner.organization, developer: null, csrfToken: browser.csrf, publicUrl: 'http://localhost:3000' });
      // Signed out is a 200 with null (the console asks on every load: no error in the browser's console).
      const nobody = await send('GET', '/api/auth/session');
      expect(nobody.statusCode).toBe(200);
      expect(nobody.json()).toEqual({ success: true, data: null });
      expect(await signedIn(undefined, { cookie: 'svc_session=svc_ses_nonsense' })).toBe(false);
      // Every other session route still refuses with 401.
      expect((await send('POST', '/api/auth/signout')).statusCode).toBe(401);
      expect((await send('POST', '/api/auth/password', { payload: { currentPassword: 'x', newPassword: 'y' } })).statusCode).toBe(401);
      expect((await send('GET', '/api/org/organization')).statusCode).toBe(401);
    });

    it('gives the same 401 for an unknown email and a wrong password', async () => {
      const owner = await signUp();
      const wrong = await send('POST', '/api/auth/signin', { payload: { email: owner.email, password: 'not the password' } });
      const unknown = await send('POST', '/api/auth/signin', { payload: { email: `nobody-${unique()}@example.com`, password: 'not the password' } });
      const malformed = await send('POST', '/api/auth/signin', { payload: { email: 'nobody', password: 'not the password' } });
      for (const res of [wrong, unknown, malformed]) {
        expect(res.statusCode).toBe(401);
        expect(res.headers['set-cookie']).toBeUndefined();
      }
      const strip = (body: string) => ({ ...JSON.parse(body), requestId: undefined });
      expect(strip(wrong.body)).toEqual(strip(unknown.body));
      expect(strip(wrong.body)).toEqual(strip(malformed.body));
      expect(strip(wrong.body)).toMatchObject({ success: false, code: 'UNAUTHORIZED', error: 'The email or password is not right.' });
    });

    it('limits attempts per account, whatever the address, with 429 and Retry-After', async () => {
      const owner = await signUp();
      const statuses: number[] = [];
      for (let i = 0; i < 11; i++) statuses.push((await send('POST', '/api/auth/signin', { payload: { email: owner.email, password: 'not the password' } })).statusCode);
      expect(statuses.slice(0, 10)).toEqual(Array(10).fill(401));
      const limited = await send('POST', '/api/auth/signin', { payload: { email: owner.email, password: owner.password } });
      expect(limited.statusCode).toBe(429);
      expect(limited.json().code).toBe('RATE_LIMIT_EXCEEDED');
      expect(Number(limited.headers['retry-after'])).toBeGreaterThan(0);
      t.clock.advance(16 * 60_000);
      expect((await send('POST', '/api/auth/signin', { payload: { email: owner.email, password: owner.password } })).statusCode).toBe(200);
    });

    it('limits attempts per address', async () => {
      const ip = '10.99.0.1';
      let last = 0;
      // Malformed emails: refused without a password check (no account can have them), so this test stays fast.
      for (let i = 0; i < 31; i++) last = (await send('POST', '/api/auth/signin', { ip, payload: { email: `nobody-${i}`, password: 'x' } })).statusCode;
      expect(last).toBe(429);
      t.clock.advance(16 * 60_000);
    });
  });

  describe('sessions', () => {
    it('signs out on the server: the old cookie then gets 401', async () => {
      const owner = await signUp();
      const out = await send('POST', '/api/auth/signout', { browser: owner });
      expect(out.statusCode).toBe(200);
      expect(out.json().data).toEqual({ signedOut: true });
      expect(String(out.headers['set-cookie'])).toMatch(/^svc_session=; .*Max-Age=0/);
      expect(await signedIn(owner)).toBe(false);
      expect((await send('GET', '/api/org/organization', { browser: owner })).statusCode).toBe(401);
    });

    it('needs the CSRF token and a same-site Origin for cookie changes; GETs and bearer keys need neither', async () => {
      const owner = await signUp();
      const body = { name: 'Brand', branding: { name: 'B', primaryColor: '#112233', backgroundColor: '#ffffff', textColor: '#000000', logoUrl: 'https://cdn.example.com/l.png' } };
      const noToken = await send('POST', '/api/org/agents', { browser: owner, csrf: false, payload: body });
      expect(noToken.statusCode).toBe(403);
      expect(noToken.json()).toMatchObject({ code: 'FORBIDDEN', error: expect.stringContaining('X-CSRF-Token') });
      expect((await send('POST', '/api/org/agents', { browser: owner, csrf: false, headers: { 'x-csrf-token': 'wrong' }, payload: body })).statusCode).toBe(403);
      expect((await send('POST', '/api/org/agents', { browser: owner, headers: { origin: 'https://evil.example' }, payload: body })).statusCode).toBe(403);
      expect((await send('POST', '/api/org/agents', { browser: owner, headers: { origin: 'null' }, payload: body })).statusCode).toBe(403);
      expect((await send('POST', '/api/auth/signout', { browser: owner, csrf: false })).statusCode).toBe(403);
      // Same site: with the token, from PUBLIC_URL's origin or with no Origin at all.
      expect((await send('POST', '/api/org/agents', { browser: owner, payload: body })).statusCode).toBe(201);
      expect((await send('GET', '/api/org/agents', { browser: owner, csrf: false, headers: { origin: 'https://evil.example' } })).statusCode).toBe(200);
      const noOrigin = await t.app.inject({ method: 'POST', url: '/api/org/agents', headers: { cookie: owner.cookie, 'x-csrf-token': owner.csrf }, payload: body });
      expect(noOrigin.statusCode).toBe(201);
      // An API key carries no ambient authority: no CSRF token needed, and a cookie alongside is ignored.
      const keyed1 = await t.app.inject({ method: 'POST', url: '/api/org/agents', headers: { ...keyed.auth, origin: 'https://evil.example', cookie: owner.cookie }, payload: body });
      expect(keyed1.statusCode).toBe(201);
      expect(await send('GET', `/api/org/agents/${keyed1.json().data.id}`, { browser: owner })).toMatchObject({ statusCode: 404 });
    });

    it('ends a session after the idle time, and after the absolute time even when used', async () => {
      const owner = await signUp();
      t.clock.advance(6 * 24 * 3600_000);
      expect(await signedIn(owner)).toBe(true);
      t.clock.advance(6 * 24 * 3600_000);
      expect(await signedIn(owner)).toBe(true);
      t.clock.advance(8 * 24 * 3600_000);
      expect(await signedIn(owner)).toBe(false);
      const again = browserOf(await send('POST', '/api/auth/signin', { payload: { email: owner.email, password: owner.password } }));
      for (let day = 0; day < 4; day++) {
        t.clock.advance(6 * 24 * 3600_000);
        expect(await signedIn(again)).toBe(true);
      }
      t.clock.advance(6 * 24 * 3600_000);
      expect(await signedIn(again)).toBe(false);
    });

    it('writes last_seen_at at most once a minute', async () => {
      const owner = await signUp();
      const seen = async () => (await t.database.db.selectFrom('sessions').select('last_seen_at').where('user_id', '=', owner.user.id).executeTakeFirstOrThrow()).last_seen_at;
      const first = await seen();
      t.clock.advance(30_000);
      await send('GET', '/api/auth/session', { browser: owner });
      expect(await seen()).toBe(first);
      t.clock.advance(31_000);
      await send('GET', '/api/auth/session', { browser: owner });
      expect(await seen()).not.toBe(first);
    });
  });

  describe('password change', () => {
    it('needs the current password, refuses a weak one, and ends every other session', async () => {
      const owner = await signUp();
      const laptop = browserOf(await send('POST', '/api/auth/signin', { payload: { email: owner.email, password: owner.password } }));
      const wrong = await send('POST', '/api/auth/password', { browser: owner, payload: { currentPassword: 'nope nope nope', newPassword: 'brand new secret words' } });
      expect(wrong.statusCode).toBe(400);
      expect(wrong.json().field).toBe('currentPassword');
      const weak = await send('POST', '/api/auth/password', { browser: owner, payload: { currentPassword: owner.password, newPassword: 'qwertyuiop' } });
      expect(weak.json()).toMatchObject({ code: 'VALIDATION_ERROR', field: 'newPassword' });
      expect((await send('POST', '/api/auth/password', { browser: owner, csrf: false, payload: { currentPassword: owner.password, newPassword: 'brand new secret words' } })).statusCode).toBe(403);
      const changed = await send('POST', '/api/auth/password', { browser: owner, payload: { currentPassword: owner.password, newPassword: 'brand new secret words' } });
      expect(changed.statusCode).toBe(200);
      const fresh = browserOf(changed);
      expect(await signedIn(laptop)).toBe(false);
      expect(await signedIn(owner)).toBe(false);
      expect(await signedIn(fresh)).toBe(true);
      expect((await send('POST', '/api/auth/signin', { payload: { email: owner.email, password: owner.password } })).statusCode).toBe(401);
      expect((await send('POST', '/api/auth/signin', { payload: { email: owner.email, password: 'brand new secret words' } })).statusCode).toBe(200);
    });
  });

  describe('password reset', () => {
    async function resetToken(email: string): Promise<string> {
      const res = await send('POST', '/api/auth/password-reset', { payload: { email } });
      expect(res.statusCode).toBe(202);
      // The link is made after the answer.
      await t.background.idle();
      const row = await t.database.db.selectFrom('password_resets as r').innerJoin('users as u', 'u.id', 'r.user_id').select(['r.token_hash', 'r.created_at']).where('u.email', '=', email).orderBy('r.created_at', 'desc').executeTakeFirstOrThrow();
      // Tests cannot read a token back from its hash: issue a known one the same way the service does.
      const token = `svc_rst_${'a'.repeat(20)}${unique().padEnd(20, 'b').slice(0, 20)}`;
      await t.database.db.updateTable('password_resets').set({ token_hash: hashSecret(token) }).where('token_hash', '=', row.token_hash).execute();
      return token;
    }

    it('answers 202 for known and unknown emails alike', async () => {
      const owner = await signUp();
      const known = await send('POST', '/api/auth/password-reset', { payload: { email: owner.email } });
      const unknown = await send('POST', '/api/auth/password-reset', { payload: { email: `nobody-${unique()}@example.com` } });
      expect(known.statusCode).toBe(202);
      expect(unknown.statusCode).toBe(202);
      expect(known.json()).toEqual(unknown.json());
    });

    it('sets a new password once, signs in, and ends other sessions; a used or expired token is 404', async () => {
      const owner = await signUp();
      const token = await resetToken(owner.email);
      const weak = await send('POST', '/api/auth/password-reset/confirm', { payload: { token, password: '1234567890' } });
      expect(weak.statusCode).toBe(400);
      const done = await send('POST', '/api/auth/password-reset/confirm', { payload: { token, password: 'a fresh start today' } });
      expect(done.statusCode).toBe(200);
      expect(done.json().data.user.id).toBe(owner.user.id);
      expect(await signedIn(owner)).toBe(false);
      expect(await signedIn(browserOf(done))).toBe(true);
      const reused = await send('POST', '/api/auth/password-reset/confirm', { payload: { token, password: 'another fresh start' } });
      expect(reused.statusCode).toBe(404);
      const late = await resetToken(owner.email);
      t.clock.advance(61 * 60_000);
      expect((await send('POST', '/api/auth/password-reset/confirm', { payload: { token: late, password: 'another fresh start' } })).statusCode).toBe(404);
      expect((await send('POST', '/api/auth/password-reset/confirm', { payload: { token: 'svc_rst_unknown', password: 'another fresh start' } })).statusCode).toBe(404);
    });
  });

  describe('invitations and members', () => {
    it('invites by a single-use link; the member signs in with role member', async () => {
      const owner = await signUp();
      const invitation = await invite(owner, `Mia-${unique()}@Example.com`);
      expect(invitation.url).toMatch(/^http:\/\/localhost:3000\/app\/invitations\/svc_inv_\w{40}$/);
      expect(invitation.email).toBe(invitation.email.toLowerCase());
      const token = invitation.url.split('/').pop()!;
      const preview = await send('GET', `/api/auth/invitations/${token}`);
      expect(preview.json().data).toEqual({ email: invitation.email, organization: { name: 'Olive Plumbing' }, expiresAt: invitation.expiresAt });
      const pending = await send('GET', '/api/org/invitations', { browser: owner });
      expect(pending.json().data.map((i: { id: string }) => i.id)).toEqual([invitation.id]);
      const accepted = await send('POST', `/api/auth/invitations/${token}/accept`, { payload: { name: 'Mia', password: 'amber lantern harbour' } });
      expect(accepted.statusCode).toBe(201);
      expect(accepted.json().data).toMatchObject({ user: { role: 'member', email: invitation.email }, organization: owner.organization });
      expect((await send('POST', `/api/auth/invitations/${token}/accept`, { payload: { name: 'Mia', password: 'amber lantern harbour' } })).statusCode).toBe(404);
      expect((await send('GET', `/api/auth/invitations/${token}`)).statusCode).toBe(404);
      expect((await send('GET', '/api/org/invitations', { browser: owner })).json().data).toEqual([]);
      const members = (await send('GET', '/api/org/members', { browser: owner })).json().data;
      expect(members.map((m: { role: string }) => m.role)).toEqual(['owner', 'member']);
    });

    it('refuses expired and revoked invitations, weak passwords, and an email that has an account', async () => {
      const owner = await signUp();
      const expired = await invite(owner);
      t.clock.advance(7 * 24 * 3600_000 + 1000);
      Object.assign(owner, browserOf(await send('POST', '/api/auth/signin', { payload: { email: owner.email, password: owner.password } })));
      expect((await send('GET', `/api/auth/invitations/${expired.url.split('/').pop()}`)).statusCode).toBe(404);
      expect((await send('POST', `/api/auth/invitations/${expired.url.split('/').pop()}/accept`, { payload: { name: 'A', password: 'amber lantern harbour' } })).statusCode).toBe(404);
      const revoked = await invite(owner);
      expect((await send('DELETE', `/api/org/invitations/${revoked.id}`, { browser: owner })).json().data).toEqual({ id: revoked.id, deleted: true });
      expect((await send('GET', `/api/auth/invitations/${revoked.url.split('/').pop()}`)).statusCode).toBe(404);
      const open = await invite(owner);
      const weak = await send('POST', `/api/auth/invitations/${open.url.split('/').pop()}/accept`, { payload: { name: 'A', password: 'iloveyou123' } });
      expect(weak.json()).toMatchObject({ code: 'VALIDATION_ERROR', field: 'password' });
      const taken = await send('POST', '/api/org/invitations', { browser: owner, payload: { email: owner.email } });
      expect(taken.statusCode).toBe(409);
      expect((await send('POST', '/api/org/invitations', { browser: owner, payload: { email: 'nope' } })).statusCode).toBe(400);
    });

    it('keeps members out of members, invitations, API keys and webhooks (403 naming what the route guards), and lets them do the rest', async () => {
      const owner = await signUp();
      const staff = await member(owner);
      const guarded = [
        ['GET', '/api/org/members', 'manage members and invitations'], ['GET', '/api/org/invitations', 'manage members and invitations'],
        ['DELETE', `/api/org/members/${owner.user.id}`, 'manage members and invitations'], ['POST', '/api/org/invitations', 'manage members and invitations'],
        ['GET', '/api/org/api-keys', 'manage API keys'], ['POST', '/api/org/api-keys', 'manage API keys'],
        ['GET', '/api/org/webhooks', 'manage webhooks'], ['POST', '/api/org/webhooks', 'manage webhooks'],
      ] as const;
      for (const [method, url, what] of guarded) {
        const res = await send(method, url, { browser: staff, ...(method === 'POST' ? { payload: { name: 'k', email: 'a@example.com' } } : {}) });
        expect(res.statusCode, `${method} ${url}`).toBe(403);
        expect(res.json()).toMatchObject({ code: 'FORBIDDEN', error: `Only an owner of the organization can ${what}. Ask an owner to do it.` });
      }
      expect((await send('GET', '/api/org/forms', { browser: staff })).statusCode).toBe(200);
      const contact = await send('POST', '/api/org/contacts', { browser: staff, payload: { email: `lead-${unique()}@example.com` } });
      expect(contact.statusCode).toBe(201);
      expect(contact.json().data.source).toBe('panel');
      // An owner makes API keys with the session.
      expect((await send('POST', '/api/org/api-keys', { browser: owner, payload: { name: 'Zapier' } })).statusCode).toBe(201);
    });

    it('removes a member (their sessions end) but never the last owner', async () => {
      const owner = await signUp();
      const staff = await member(owner);
      expect((await send('DELETE', `/api/org/members/${owner.user.id}`, { browser: owner })).statusCode).toBe(409);
      const removed = await send('DELETE', `/api/org/members/${staff.user.id}`, { browser: owner });
      expect(removed.json().data).toEqual({ id: staff.user.id, deleted: true });
      expect(await signedIn(staff)).toBe(false);
      expect((await send('GET', '/api/org/members', { browser: owner })).json().data).toHaveLength(1);
    });

    it("answers 404 for another org's member and invitation ids", async () => {
      const owner = await signUp();
      const rival = await signUp();
      const theirInvitation = await invite(rival);
      const theirMember = await member(rival);
      expect((await send('DELETE', `/api/org/members/${theirMember.user.id}`, { browser: owner })).statusCode).toBe(404);
      expect((await send('DELETE', `/api/org/members/${rival.user.id}`, { browser: owner })).statusCode).toBe(404);
      expect((await send('DELETE', `/api/org/invitations/${theirInvitation.id}`, { browser: owner })).statusCode).toBe(404);
      expect((await send('DELETE', `/api/org/invitations/${newId('inv')}`, { browser: owner })).statusCode).toBe(404);
      expect((await send('DELETE', '/api/org/invitations/inv_bad', { browser: owner })).statusCode).toBe(404);
      expect((await send('GET', `/api/auth/invitations/${theirInvitation.url.split('/').pop()}`)).statusCode).toBe(200);
      expect((await send('GET', '/api/org/members', { browser: rival })).json().data).toHaveLength(2);
    });

    it('works with an org API key too', async () => {
      const res = await t.app.inject({ method: 'POST', url: '/api/org/invitations', headers: keyed.auth, payload: { email: `k-${unique()}@example.com` } });
      expect(res.statusCode).toBe(201);
      expect((await t.app.inject({ method: 'GET', url: '/api/org/members', headers: keyed.auth })).json().data).toHaveLength(1);
    });
  });
});
