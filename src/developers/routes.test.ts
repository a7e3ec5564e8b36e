import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LightMyRequestResponse } from 'fastify';
import { createTestContext, testDialects, type TestContext } from '../../test/support/context.js';
import { changedTables, databaseSnapshot } from '../../test/support/db-snapshot.js';
import { createDeveloperWithApp, getAccessToken, type DeveloperWithApp } from '../../test/support/factories.js';
import { createOrgWithKey } from '../../test/support/org-factories.js';

const FORM = { 'content-type': 'application/x-www-form-urlencoded' };
const PASSWORD = 'correct horse battery';

interface Session {
  cookie: string;
  csrfToken: string;
}

/**
 * `/api/dev/apps…` over HTTP (issue 20): a signed-in developer's console session only. The rules
 * themselves (rotation on the clock, tokens ended by deletion and narrowing) are in apps-service.test.ts.
 */
describe.each(testDialects())('/api/dev/apps on %s', (dialect) => {
  let t: TestContext;
  let ada: DeveloperWithApp;
  let bob: DeveloperWithApp;
  let adaSession: Session;
  let operatorSession: Session;

  async function signIn(email: string): Promise<Session> {
    const res = await t.app.inject({ method: 'POST', url: '/api/auth/signin', payload: { email, password: PASSWORD } });
    if (res.statusCode !== 200) throw new Error(`sign-in failed: ${res.statusCode} ${res.body}`);
    return { cookie: String(res.headers['set-cookie']).split(';')[0]!, csrfToken: (res.json() as { data: { csrfToken: string } }).data.csrfToken };
  }

  const as = (session: Session, csrf = true) => ({ cookie: session.cookie, ...(csrf ? { 'x-csrf-token': session.csrfToken } : {}) });
  const call = (method: 'GET' | 'POST' | 'PATCH' | 'DELETE', url: string, headers: Record<string, string>, payload?: unknown) =>
    t.app.inject({ method, url, headers, ...(payload !== undefined ? { payload: payload as Record<string, unknown> } : {}) });
  const tokenRequest = (clientId: string, clientSecret: string) =>
    t.app.inject({ method: 'POST', url: '/api/dev/oauth/token', headers: FORM, payload: new URLSearchParams({ grant_type: 'client_credentials', client_id: clientId, client_secret: clientSecret }).toString() });

  /** Status, code, message (and field) of a refusal, and that the request wrote nothing. */
  async function refused(send: () => Promise<LightMyRequestResponse>) {
    const before = await databaseSnapshot(t.database);
    const res = await send();
    const body = res.json() as { success: boolean; code: string; error: string; field?: string };
    expect(body.success).toBe(false);
    expect(changedTables(before, await databaseSnapshot(t.database))).toEqual([]);
    return { status: res.statusCode, code: body.code, error: body.error, field: body.field };
  }

  beforeAll(async () => {
    t = await createTestContext(dialect);
    ada = await createDeveloperWithApp(t.database, t.clock);
    bob = await createDeveloperWithApp(t.database, t.clock);
    adaSession = await signIn(ada.developer.email);
    const org = await createOrgWithKey(t.database, t.clock);
    operatorSession = await signIn(org.operator.email);
  });
  afterAll(async () => t.close());

  it('registers, lists, reads, renames, rotates with a grace and deletes an app', async () => {
    t.clock.advance(1000);
    const created = await call('POST', '/api/dev/apps', as(adaSession), { name: 'Quote bot', scopes: ['tools:read', 'tools:write'] });
    expect(created.statusCode, created.body).toBe(201);
    const app = created.json().data;
    expect(app).toMatchObject({ clientId: app.id, name: 'Quote bot', scopes: ['tools:read', 'tools:write'], lastTokenAt: null, secretRotatedAt: null, previousSecretExpiresAt: null });
    expect(app.clientSecret).toMatch(/^svc_cs_[0-9A-Za-z]{40}$/);
    expect((await tokenRequest(app.clientId, app.clientSecret)).statusCode).toBe(200);

    const list = await call('GET', '/api/dev/apps', as(adaSession, false));
    expect(list.statusCode).toBe(200);
    const items = list.json().data.items as Record<string, unknown>[];
    expect(items.map((item) => item.id)).toEqual([app.id, ada.app.clientId]);
    expect(Object.keys(items[0]!).sort()).toEqual(['clientId', 'createdAt', 'id', 'lastTokenAt', 'name', 'previousSecretExpiresAt', 'scopes', 'secretRotatedAt']);
    expect(items[0]!.lastTokenAt).toBe(t.clock.now().toISOString());
    expect(list.body).not.toMatch(/svc_cs_|hash/);
    // Bob's app is not among Ada's.
    expect(list.body).not.toContain(bob.app.clientId);

    const read = await call('GET', `/api/dev/apps/${app.id}`, as(adaSession, false));
    expect(read.json().data).toEqual(items[0]);
    const renamed = await call('PATCH', `/api/dev/apps/${app.id}`, as(adaSession), { name: 'Quote bot 2' });
    expect(renamed.statusCode).toBe(200);
    expect(renamed.json().data).toMatchObject({ name: 'Quote bot 2', scopes: ['tools:read', 'tools:write'] });

    const rotated = await call('POST', `/api/dev/apps/${app.id}/secret`, as(adaSession), { previousSecretExpiresIn: 300 });
    expect(rotated.statusCode, rotated.body).toBe(200);
    const secret = rotated.json().data.clientSecret as string;
    expect(rotated.json().data.previousSecretExpiresAt).toBe(new Date(t.clock.now().getTime() + 300_000).toISOString());
    expect((await tokenRequest(app.clientId, secret)).statusCode).toBe(200);
    expect((await tokenRequest(app.clientId, app.clientSecret)).statusCode).toBe(200);
    // With no body at all: no grace, the previous secret stops at once.
    const again = await call('POST', `/api/dev/apps/${app.id}/secret`, as(adaSession));
    expect(again.statusCode, again.body).toBe(200);
    expect(again.json().data.previousSecretExpiresAt).toBeNull();
    expect((await tokenRequest(app.clientId, secret)).statusCode).toBe(401);

    const token = await getAccessToken(t.app, { clientId: app.clientId, clientSecret: again.json().data.clientSecret });
    const deleted = await call('DELETE', `/api/dev/apps/${app.id}`, as(adaSession));
    expect(deleted.json()).toEqual({ success: true, data: { id: app.id, deleted: true } });
    const after = await call('GET', '/api/dev/tools', { authorization: `Bearer ${token}` });
    expect(after.statusCode).toBe(401);
    expect(after.json().code).toBe('INVALID_TOKEN');
    expect((await call('GET', `/api/dev/apps/${app.id}`, as(adaSession, false))).statusCode).toBe(404);
  });

  it('without a session: 401 UNAUTHORIZED, nothing written', async () => {
    for (const [method, url] of [['GET', '/api/dev/apps'], ['POST', '/api/dev/apps'], ['POST', `/api/dev/apps/${ada.app.clientId}/secret`]] as const) {
      expect(await refused(() => call(method, url, {}, method === 'POST' ? { name: 'x', scopes: ['tools:read'] } : undefined))).toMatchObject({ status: 401, code: 'UNAUTHORIZED' });
    }
  });

  it('a change without X-CSRF-Token: 403 FORBIDDEN, nothing written', async () => {
    const cases = [
      () => call('POST', '/api/dev/apps', as(adaSession, false), { name: 'Sneaky', scopes: ['tools:read'] }),
      () => call('PATCH', `/api/dev/apps/${ada.app.clientId}`, as(adaSession, false), { scopes: ['tools:read'] }),
      () => call('POST', `/api/dev/apps/${ada.app.clientId}/secret`, as(adaSession, false), {}),
      () => call('DELETE', `/api/dev/apps/${ada.app.clientId}`, as(adaSession, false)),
    ];
    for (const send of cases) {
      const refusal = await refused(send);
      expect(refusal).toMatchObject({ status: 403, code: 'FORBIDDEN' });
      expect(refusal.error).toContain('X-CSRF-Token');
    }
  });

  it('an access token, even with every scope, cannot list or make apps: 403 FORBIDDEN, nothing written', async () => {
    const token = await getAccessToken(t.app, ada.app);
    const bearer = { authorization: `Bearer ${token}` };
    for (const send of [() => call('POST', '/api/dev/apps', bearer, { name: 'Minted', scopes: ['tools:publish'] }), () => call('GET', '/api/dev/apps', bearer)]) {
      const refusal = await refused(send);
      expect(refusal).toMatchObject({ status: 403, code: 'FORBIDDEN' });
      expect(refusal.error).toMatch(/access token/);
    }
    // Not rescued by a session cookie sent along with it.
    expect(await refused(() => call('POST', '/api/dev/apps', { ...bearer, ...as(adaSession) }, { name: 'Minted', scopes: ['tools:publish'] }))).toMatchObject({ status: 403, code: 'FORBIDDEN' });
  });

  it('an operator session without a developer account: 403 FORBIDDEN, nothing written', async () => {
    for (const send of [() => call('GET', '/api/dev/apps', as(operatorSession)), () => call('POST', '/api/dev/apps', as(operatorSession), { name: 'Ops', scopes: ['tools:read'] })]) {
      const refusal = await refused(send);
      expect(refusal).toMatchObject({ status: 403, code: 'FORBIDDEN' });
      expect(refusal.error).toMatch(/not a developer account/);
    }
  });

  it('another developer\'s app: the same 404 APP_NOT_FOUND as a missing one, nothing written', async () => {
    const theirs = bob.app.clientId;
    const missing = { status: 404, code: 'APP_NOT_FOUND', error: 'No app with that id exists in your account.' };
    const cases = [
      () => call('GET', `/api/dev/apps/${theirs}`, as(adaSession)),
      () => call('PATCH', `/api/dev/apps/${theirs}`, as(adaSession), { name: 'Mine now' }),
      () => call('POST', `/api/dev/apps/${theirs}/secret`, as(adaSession), { previousSecretExpiresIn: 60 }),
      () => call('DELETE', `/api/dev/apps/${theirs}`, as(adaSession)),
      () => call('GET', '/api/dev/apps/app_00000000000000000000', as(adaSession)),
      () => call('GET', '/api/dev/apps/not-an-app-id', as(adaSession)),
    ];
    for (const send of cases) expect(await refused(send)).toMatchObject(missing);
    expect((await tokenRequest(bob.app.clientId, bob.app.clientSecret)).statusCode).toBe(200);
  });

  it('bad input: 400 VALIDATION_ERROR naming the field, nothing written', async () => {
    const url = `/api/dev/apps/${ada.app.clientId}`;
    const cases: [() => Promise<LightMyRequestResponse>, string][] = [
      [() => call('POST', '/api/dev/apps', as(adaSession), { name: 'x'.repeat(101), scopes: ['tools:read'] }), 'name'],
      [() => call('POST', '/api/dev/apps', as(adaSession), { name: '   ', scopes: ['tools:read'] }), 'name'],
      [() => call('POST', '/api/dev/apps', as(adaSession), { name: 'Bot', scopes: [] }), 'scopes'],
      [() => call('POST', '/api/dev/apps', as(adaSession), { name: 'Bot', scopes: ['tools:read', 'tools:read'] }), 'scopes'],
      [() => call('POST', '/api/dev/apps', as(adaSession), { name: 'Bot', scopes: ['admin'] }), 'scopes.0'],
      [() => call('POST', '/api/dev/apps', as(adaSession), { name: 'Bot' }), 'scopes'],
      [() => call('POST', '/api/dev/apps', as(adaSession), { name: 'Bot', scopes: ['tools:read'], clientSecret: 'svc_cs_mine' }), 'clientSecret'],
      [() => call('PATCH', url, as(adaSession), {}), 'body'],
      [() => call('POST', `${url}/secret`, as(adaSession), { previousSecretExpiresIn: 86_401 }), 'previousSecretExpiresIn'],
      [() => call('POST', `${url}/secret`, as(adaSession), { previousSecretExpiresIn: -1 }), 'previousSecretExpiresIn'],
      [() => call('POST', `${url}/secret`, as(adaSession), { previousSecretExpiresIn: 1.5 }), 'previousSecretExpiresIn'],
      [() => call('POST', `${url}/secret`, as(adaSession), { previousSecretExpiresIn: '60' }), 'previousSecretExpiresIn'],
    ];
    for (const [send, field] of cases) expect(await refused(send)).toMatchObject({ status: 400, code: 'VALIDATION_ERROR', field });
    // An oversized body is refused before it is read.
    const huge = await refused(() => call('POST', '/api/dev/apps', as(adaSession), { name: 'x'.repeat(20_000), scopes: ['tools:read'] }));
    expect(huge).toMatchObject({ status: 413, code: 'PAYLOAD_TOO_LARGE' });
  });
});
