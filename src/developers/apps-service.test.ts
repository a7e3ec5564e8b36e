import { CLI_AUDIT } from '../audit/context.js';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createTestContext, testDialects, type TestContext } from '../../test/support/context.js';
import { changedTables, databaseSnapshot } from '../../test/support/db-snapshot.js';
import { createDeveloperWithApp, getAccessToken, type DeveloperWithApp } from '../../test/support/factories.js';
import { AppError } from '../http/errors.js';
import { transactOn } from '../repos.js';
import { createAppsRepo } from './apps-repo.js';
import { createAppsService, type AppsService } from './apps-service.js';

const FORM = { 'content-type': 'application/x-www-form-urlencoded' };
const ALL = ['tools:read', 'tools:write', 'tools:publish'];

/**
 * The portal's apps (issue 20), through the service the routes call, and their effect on the real
 * token endpoint and bearer check (app.inject): rotation with and without grace on the injected clock,
 * deletion and narrowed scopes ending tokens, lastTokenAt. The HTTP routes' own tests are in routes.test.ts.
 */
describe.each(testDialects())('developer apps on %s', (dialect) => {
  let t: TestContext;
  let apps: AppsService;
  let ada: DeveloperWithApp;
  let bob: DeveloperWithApp;

  const tokenRequest = (clientId: string, clientSecret: string, scope?: string) =>
    t.app.inject({ method: 'POST', url: '/api/dev/oauth/token', headers: FORM, payload: new URLSearchParams({ grant_type: 'client_credentials', client_id: clientId, client_secret: clientSecret, ...(scope ? { scope } : {}) }).toString() });
  const listTools = (token: string) => t.app.inject({ method: 'GET', url: '/api/dev/tools', headers: { authorization: `Bearer ${token}` } });
  const storedApp = (id: string) => t.database.db.selectFrom('apps').selectAll().where('id', '=', id).executeTakeFirst();
  const storedTokens = (appId: string) => t.database.db.selectFrom('access_tokens').selectAll().where('app_id', '=', appId).execute();

  /** The AppError a call throws (failing the test when it throws something else or nothing). */
  async function refusal(call: Promise<unknown>): Promise<AppError> {
    const error = await call.then(() => undefined, (e: unknown) => e);
    expect(error).toBeInstanceOf(AppError);
    return error as AppError;
  }

  beforeAll(async () => {
    t = await createTestContext(dialect);
    apps = createAppsService({ repo: createAppsRepo(t.database.db), transact: transactOn(t.database.db), clock: t.clock, audit: { record: async () => {} } });
    ada = await createDeveloperWithApp(t.database, t.clock);
    bob = await createDeveloperWithApp(t.database, t.clock);
  });
  afterAll(async () => t.close());

  describe('register and read', () => {
    it('registers an app: its secret shown once and stored only as a hash, and it gets tokens at once', async () => {
      const created = await apps.create(ada.developer.id, { name: '  Quote bot  ', scopes: ['tools:write', 'tools:read', 'tools:read'] });
      expect(Object.keys(created).sort()).toEqual(['clientId', 'clientSecret', 'createdAt', 'id', 'lastTokenAt', 'name', 'previousSecretExpiresAt', 'scopes', 'secretRotatedAt']);
      expect(created).toMatchObject({ clientId: created.id, name: 'Quote bot', scopes: ['tools:read', 'tools:write'], lastTokenAt: null, secretRotatedAt: null, previousSecretExpiresAt: null });
      expect(created.id).toMatch(/^app_/);
      expect(created.clientSecret).toMatch(/^svc_cs_[0-9A-Za-z]{40}$/);
      const row = await storedApp(created.id);
      expect(JSON.stringify(row)).not.toContain(created.clientSecret);
      expect(row).toMatchObject({ developer_id: ada.developer.id, scopes: 'tools:read tools:write' });

      const res = await tokenRequest(created.clientId, created.clientSecret);
      expect(res.statusCode, res.body).toBe(200);
      expect(res.json().scope).toBe('tools:read tools:write');
      // Read back, the record is the same and never carries the secret.
      const read = await apps.get(ada.developer.id, created.id);
      expect(read).not.toHaveProperty('clientSecret');
      expect(read).toMatchObject({ id: created.id, name: 'Quote bot', scopes: ['tools:read', 'tools:write'] });
    });

    it('lists only the developer\'s own apps, newest first, in pages', async () => {
      const carol = await createDeveloperWithApp(t.database, t.clock);
      t.clock.advance(1000);
      const first = await apps.create(carol.developer.id, { name: 'First', scopes: ['tools:read'] });
      t.clock.advance(1000);
      const second = await apps.create(carol.developer.id, { name: 'Second', scopes: ['tools:read'] });
      const page1 = await apps.list(carol.developer.id, { limit: 2 });
      expect(page1.items.map((item) => item.id)).toEqual([second.id, first.id]);
      expect(page1.nextCursor).not.toBeNull();
      const page2 = await apps.list(carol.developer.id, { limit: 2, cursor: page1.nextCursor! });
      // The CLI made the oldest one with the account.
      expect(page2).toEqual({ items: [expect.objectContaining({ id: carol.app.clientId })], nextCursor: null });
      expect(JSON.stringify([page1, page2])).not.toMatch(/hash|svc_cs_/);
    });

    it('refuses a bad name or scopes with VALIDATION_ERROR naming the field, and writes nothing', async () => {
      const before = await databaseSnapshot(t.database);
      const cases: [{ name: string; scopes: string[] }, string, string][] = [
        [{ name: '   ', scopes: ['tools:read'] }, 'name', 'Enter an app name of 1 to 100 characters.'],
        [{ name: 'x'.repeat(101), scopes: ['tools:read'] }, 'name', 'Enter an app name of 1 to 100 characters.'],
        [{ name: 'Bot', scopes: [] }, 'scopes', 'Scopes must be among: tools:read tools:write tools:publish (at least one).'],
        [{ name: 'Bot', scopes: ['tools:read', 'admin'] }, 'scopes', 'Scopes must be among: tools:read tools:write tools:publish (at least one).'],
      ];
      for (const [input, field, message] of cases) {
        const error = await refusal(apps.create(ada.developer.id, input));
        expect({ code: error.code, field: error.field, message: error.message }).toEqual({ code: 'VALIDATION_ERROR', field, message });
      }
      // The CLI's app create applies the very same rules (app-rules.ts).
      expect(changedTables(before, await databaseSnapshot(t.database))).toEqual([]);
    });

    it('answers APP_NOT_FOUND for another developer\'s app on every operation, exactly as for a missing one, and changes nothing', async () => {
      const theirs = bob.app.clientId;
      const before = await databaseSnapshot(t.database);
      // Each started only when awaited: a rejection no one awaits yet is an unhandled one.
      const calls = [
        () => apps.get(ada.developer.id, theirs),
        () => apps.update(ada.developer.id, theirs, { name: 'Mine now' }),
        () => apps.rotateSecret(ada.developer.id, theirs, { previousSecretExpiresIn: 60 }, CLI_AUDIT),
        () => apps.remove(ada.developer.id, theirs),
        () => apps.get(ada.developer.id, 'app_00000000000000000000'),
      ];
      for (const call of calls) {
        const error = await refusal(call());
        expect({ code: error.code, status: error.status, message: error.message }).toEqual({ code: 'APP_NOT_FOUND', status: 404, message: 'No app with that id exists in your account.' });
      }
      expect(changedTables(before, await databaseSnapshot(t.database))).toEqual([]);
      expect((await tokenRequest(bob.app.clientId, bob.app.clientSecret)).statusCode).toBe(200);
    });
  });

  describe('secret rotation', () => {
    let app: { clientId: string; clientSecret: string };
    beforeEach(async () => {
      app = await apps.create(ada.developer.id, { name: 'Rolling', scopes: ALL });
    });

    it('without grace: the old secret is refused at once, the new one works, and the app\'s tokens are revoked', async () => {
      const token = await getAccessToken(t.app, app);
      const rotated = await apps.rotateSecret(ada.developer.id, app.clientId, {}, CLI_AUDIT);
      expect(rotated.clientSecret).toMatch(/^svc_cs_/);
      expect(rotated.clientSecret).not.toBe(app.clientSecret);
      expect(rotated).toMatchObject({ secretRotatedAt: t.clock.now().toISOString(), previousSecretExpiresAt: null });

      const old = await tokenRequest(app.clientId, app.clientSecret);
      expect(old.statusCode).toBe(401);
      expect(old.json()).toEqual({ error: 'invalid_client', error_description: 'Client authentication failed: unknown client_id or wrong client_secret.' });
      expect((await tokenRequest(app.clientId, rotated.clientSecret)).statusCode).toBe(200);
      const before = await listTools(token);
      expect(before.statusCode).toBe(401);
      expect(before.json()).toMatchObject({ code: 'INVALID_TOKEN', error: 'The access token was revoked. Request a new one from /api/dev/oauth/token.' });
    });

    it('with grace: the old secret works strictly before its stated time and is refused exactly at it; tokens live on', async () => {
      const token = await getAccessToken(t.app, app);
      const rotatedAt = t.clock.now().getTime();
      const rotated = await apps.rotateSecret(ada.developer.id, app.clientId, { previousSecretExpiresIn: 600 }, CLI_AUDIT);
      const expiresAt = new Date(rotatedAt + 600_000).toISOString();
      expect(rotated.previousSecretExpiresAt).toBe(expiresAt);
      expect(await apps.get(ada.developer.id, app.clientId)).toMatchObject({ previousSecretExpiresAt: expiresAt });

      // Both secrets, and the token got before the rotation, work during the grace.
      expect((await tokenRequest(app.clientId, rotated.clientSecret)).statusCode).toBe(200);
      expect((await listTools(token)).statusCode).toBe(200);
      t.clock.advance(600_000 - 1);
      expect((await tokenRequest(app.clientId, app.clientSecret)).statusCode).toBe(200);
      t.clock.advance(1);
      expect(t.clock.now().toISOString()).toBe(expiresAt);
      const atExpiry = await tokenRequest(app.clientId, app.clientSecret);
      expect(atExpiry.statusCode).toBe(401);
      expect(atExpiry.json().error).toBe('invalid_client');
      expect((await tokenRequest(app.clientId, rotated.clientSecret)).statusCode).toBe(200);
      // Past its time the record no longer shows a grace.
      expect(await apps.get(ada.developer.id, app.clientId)).toMatchObject({ previousSecretExpiresAt: null });
    });

    it('rotating again ends the earlier previous secret at once: only one previous secret is kept', async () => {
      const second = await apps.rotateSecret(ada.developer.id, app.clientId, { previousSecretExpiresIn: 3600 }, CLI_AUDIT);
      const third = await apps.rotateSecret(ada.developer.id, app.clientId, { previousSecretExpiresIn: 3600 }, CLI_AUDIT);
      expect((await tokenRequest(app.clientId, app.clientSecret)).statusCode).toBe(401);
      expect((await tokenRequest(app.clientId, second.clientSecret)).statusCode).toBe(200);
      expect((await tokenRequest(app.clientId, third.clientSecret)).statusCode).toBe(200);
      // And a rotation without grace ends a running grace too.
      const fourth = await apps.rotateSecret(ada.developer.id, app.clientId, { previousSecretExpiresIn: 0 }, CLI_AUDIT);
      expect((await tokenRequest(app.clientId, third.clientSecret)).statusCode).toBe(401);
      expect((await tokenRequest(app.clientId, fourth.clientSecret)).statusCode).toBe(200);
    });

    it('refuses a grace that is not a whole number of seconds from 0 to 86400, and changes nothing', async () => {
      const before = await databaseSnapshot(t.database);
      for (const previousSecretExpiresIn of [86_401, -1, 1.5]) {
        const error = await refusal(apps.rotateSecret(ada.developer.id, app.clientId, { previousSecretExpiresIn }, CLI_AUDIT));
        expect({ code: error.code, field: error.field }).toEqual({ code: 'VALIDATION_ERROR', field: 'previousSecretExpiresIn' });
      }
      expect(changedTables(before, await databaseSnapshot(t.database))).toEqual([]);
      expect((await tokenRequest(app.clientId, app.clientSecret)).statusCode).toBe(200);
      // 24 hours exactly is allowed.
      expect((await apps.rotateSecret(ada.developer.id, app.clientId, { previousSecretExpiresIn: 86_400 }, CLI_AUDIT)).previousSecretExpiresAt).toBe(new Date(t.clock.now().getTime() + 86_400_000).toISOString());
    });
  });

  describe('deletion and scope changes end tokens', () => {
    it('deleting an app deletes its tokens in the same transaction: the next request with one is refused', async () => {
      const app = await apps.create(ada.developer.id, { name: 'Doomed', scopes: ALL });
      const token = await getAccessToken(t.app, app);
      const otherToken = await getAccessToken(t.app, ada.app);
      expect((await listTools(token)).statusCode).toBe(200);

      expect(await apps.remove(ada.developer.id, app.id)).toEqual({ id: app.id, deleted: true });
      const res = await listTools(token);
      expect(res.statusCode).toBe(401);
      expect(res.json()).toMatchObject({ code: 'INVALID_TOKEN' });
      expect(await storedTokens(app.id)).toEqual([]);
      expect(await storedApp(app.id)).toBeUndefined();
      expect((await tokenRequest(app.clientId, app.clientSecret)).statusCode).toBe(401);
      // The developer's other apps keep their tokens.
      expect((await listTools(otherToken)).statusCode).toBe(200);
      expect((await refusal(apps.get(ada.developer.id, app.id))).code).toBe('APP_NOT_FOUND');
    });

    it('narrowing scopes revokes the tokens holding a scope the app lost; the others keep working; widening changes no token', async () => {
      const app = await apps.create(ada.developer.id, { name: 'Narrowed', scopes: ALL });
      const wide = await getAccessToken(t.app, app);
      const readOnly = await getAccessToken(t.app, app, 'tools:read');

      const updated = await apps.update(ada.developer.id, app.id, { scopes: ['tools:read', 'tools:publish'], name: 'Narrow bot' });
      expect(updated).toMatchObject({ name: 'Narrow bot', scopes: ['tools:read', 'tools:publish'] });
      const refused = await listTools(wide);
      expect(refused.statusCode).toBe(401);
      expect(refused.json().error).toBe('The access token was revoked. Request a new one from /api/dev/oauth/token.');
      expect((await listTools(readOnly)).statusCode).toBe(200);
      const res = await tokenRequest(app.clientId, app.clientSecret, 'tools:write');
      expect(res.json().error).toBe('invalid_scope');

      await apps.update(ada.developer.id, app.id, { scopes: ALL });
      expect((await listTools(readOnly)).statusCode).toBe(200);
      expect((await tokenRequest(app.clientId, app.clientSecret, 'tools:write')).statusCode).toBe(200);
      // A rename alone touches no token.
      await apps.update(ada.developer.id, app.id, { name: 'Renamed' });
      expect((await storedTokens(app.id)).filter((row) => row.revoked_at !== null)).toHaveLength(1);
    });
  });

  describe('lastTokenAt', () => {
    it('shows when the app last got a token, written at most once a minute', async () => {
      const app = await apps.create(ada.developer.id, { name: 'Busy', scopes: ALL });
      const first = t.clock.now().toISOString();
      await getAccessToken(t.app, app);
      expect((await apps.get(ada.developer.id, app.id)).lastTokenAt).toBe(first);
      t.clock.advance(59_000);
      await getAccessToken(t.app, app);
      expect((await apps.get(ada.developer.id, app.id)).lastTokenAt).toBe(first);
      t.clock.advance(2_000);
      const later = t.clock.now().toISOString();
      await getAccessToken(t.app, app);
      expect((await apps.get(ada.developer.id, app.id)).lastTokenAt).toBe(later);
      // A refused request is not a token.
      t.clock.advance(120_000);
      await tokenRequest(app.clientId, 'svc_cs_wrong');
      expect((await apps.get(ada.developer.id, app.id)).lastTokenAt).toBe(later);
    });
  });
});
