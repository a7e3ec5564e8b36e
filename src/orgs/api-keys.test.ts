import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hashSecret } from '../lib/hashing.js';
import { newId } from '../lib/ids.js';
import { createTestContext, testDialects, type TestContext } from '../../test/support/context.js';
import { createOrgWithKey, type OrgWithKey } from '../../test/support/org-factories.js';
import { developerSession } from '../../test/support/factories.js';

describe.each(testDialects())('Operator API: auth and API keys on %s', (dialect) => {
  let ctx: TestContext;
  let org: OrgWithKey;
  let other: OrgWithKey;

  beforeAll(async () => {
    ctx = await createTestContext(dialect);
    [org, other] = await Promise.all([createOrgWithKey(ctx.database, ctx.clock), createOrgWithKey(ctx.database, ctx.clock)]);
  });
  afterAll(async () => ctx.close());

  const inject = (method: 'GET' | 'POST' | 'DELETE', url: string, headers: Record<string, string>, payload?: unknown) =>
    ctx.app.inject({ method, url, headers, ...(payload !== undefined ? { payload: payload as object } : {}) });

  describe('authentication', () => {
    it('asks for a key when none is sent', async () => {
      const res = await inject('GET', '/api/org/api-keys', {});
      expect(res.statusCode).toBe(401);
      expect(res.headers['www-authenticate']).toBe('Bearer realm="switchboard"');
      expect(res.json()).toMatchObject({ success: false, code: 'UNAUTHORIZED' });
    });

    it.each([
      ['an unknown key', `Bearer svc_org_${'x'.repeat(40)}`],
      ['a developer access token', 'Bearer svc_at_abc'],
      ['a malformed header', 'Bearer'],
      ['another scheme', 'Basic dXNlcjpwYXNz'],
    ])('refuses %s with INVALID_TOKEN', async (_what, authorization) => {
      const res = await inject('GET', '/api/org/api-keys', { authorization });
      expect(res.statusCode).toBe(401);
      expect(res.json()).toMatchObject({ code: 'INVALID_TOKEN' });
      expect(res.headers['www-authenticate']).toMatch(/^Bearer realm="switchboard", error="invalid_token"/);
    });

    it('refuses a real developer token: the Developer API and the Operator API do not share credentials', async () => {
      const dev = await developerSession(ctx.database, ctx.clock, ctx.app);
      const res = await inject('GET', '/api/org/agents', dev.auth);
      expect(res.statusCode).toBe(401);
      expect(res.json().code).toBe('INVALID_TOKEN');
    });

    it('authenticates before it validates: an unauthenticated bad body is a 401, not a 400', async () => {
      const res = await inject('POST', '/api/org/api-keys', {}, { nope: true });
      expect(res.statusCode).toBe(401);
    });

    it('records when a key was last used', async () => {
      await inject('GET', '/api/org/api-keys', org.auth);
      const row = await ctx.database.db.selectFrom('org_api_keys').select('last_used_at').where('key_hash', '=', hashSecret(org.apiKey)).executeTakeFirstOrThrow();
      expect(row.last_used_at).not.toBeNull();
    });
  });

  describe('API keys', () => {
    it('creates a key shown once, stores only its hash, and the key works', async () => {
      const res = await inject('POST', '/api/org/api-keys', org.auth, { name: 'Zapier' });
      expect(res.statusCode).toBe(201);
      const created = res.json().data;
      expect(created).toMatchObject({ name: 'Zapier', revokedAt: null, lastUsedAt: null });
      expect(created.key).toMatch(/^svc_org_[A-Za-z0-9]{40}$/);
      expect(created.lastFour).toBe(created.key.slice(-4));
      const row = await ctx.database.db.selectFrom('org_api_keys').selectAll().where('id', '=', created.id).executeTakeFirstOrThrow();
      expect(row.key_hash).toBe(hashSecret(created.key));
      expect(JSON.stringify(row)).not.toContain(created.key);
      const use = await inject('GET', `/api/org/api-keys/${created.id}`, { authorization: `Bearer ${created.key}` });
      expect(use.statusCode).toBe(200);
      expect(use.json().data).not.toHaveProperty('key');
    });

    it('lists keys newest first without secrets, page by page', async () => {
      for (const name of ['k1', 'k2', 'k3']) {
        ctx.clock.advance(1000);
        await inject('POST', '/api/org/api-keys', org.auth, { name });
      }
      const first = await inject('GET', '/api/org/api-keys?limit=2', org.auth);
      expect(first.statusCode).toBe(200);
      const page1 = first.json().data;
      expect(page1.items.map((k: { name: string }) => k.name)).toEqual(['k3', 'k2']);
      expect(JSON.stringify(page1)).not.toMatch(/svc_org_/);
      const second = await inject('GET', `/api/org/api-keys?limit=2&cursor=${page1.nextCursor}`, org.auth);
      expect(second.json().data.items[0].name).toBe('k1');
      const theirs = await inject('GET', '/api/org/api-keys', other.auth);
      expect(theirs.json().data.items).toHaveLength(1);
    });

    it('revokes a key: it stops working at once with INVALID_TOKEN; revoking again is harmless', async () => {
      const created = (await inject('POST', '/api/org/api-keys', org.auth, { name: 'temp' })).json().data;
      const revoke = await inject('POST', `/api/org/api-keys/${created.id}/revoke`, org.auth);
      expect(revoke.statusCode).toBe(200);
      expect(revoke.json().data.revokedAt).toEqual(expect.any(String));
      const again = await inject('POST', `/api/org/api-keys/${created.id}/revoke`, org.auth);
      expect(again.json().data.revokedAt).toBe(revoke.json().data.revokedAt);
      const use = await inject('GET', '/api/org/api-keys', { authorization: `Bearer ${created.key}` });
      expect(use.statusCode).toBe(401);
      expect(use.json()).toMatchObject({ code: 'INVALID_TOKEN', error: expect.stringContaining('revoked') });
    });

    it('accepts bodiless actions sent with a JSON content type', async () => {
      const created = (await inject('POST', '/api/org/api-keys', org.auth, { name: 'bodiless' })).json().data;
      const res = await ctx.app.inject({ method: 'POST', url: `/api/org/api-keys/${created.id}/revoke`, headers: { ...org.auth, 'content-type': 'application/json' } });
      expect(res.statusCode).toBe(200);
      const empty = await ctx.app.inject({ method: 'POST', url: '/api/org/api-keys', headers: { ...org.auth, 'content-type': 'application/json' } });
      expect(empty.statusCode).toBe(400);
      const proto = await ctx.app.inject({ method: 'POST', url: '/api/org/api-keys', headers: { ...org.auth, 'content-type': 'application/json' }, payload: '{"name":"x","__proto__":{"admin":true}}' });
      expect(proto.statusCode).toBe(400);
    });

    it('deletes a key, which then no longer authenticates', async () => {
      const created = (await inject('POST', '/api/org/api-keys', org.auth, { name: 'gone' })).json().data;
      const del = await inject('DELETE', `/api/org/api-keys/${created.id}`, org.auth);
      expect(del.json()).toEqual({ success: true, data: { id: created.id, deleted: true } });
      expect((await inject('GET', `/api/org/api-keys/${created.id}`, org.auth)).statusCode).toBe(404);
      expect((await inject('GET', '/api/org/api-keys', { authorization: `Bearer ${created.key}` })).statusCode).toBe(401);
    });

    it("answers 404 for another org's key and never touches it", async () => {
      const theirs = (await inject('POST', '/api/org/api-keys', other.auth, { name: 'theirs' })).json().data;
      for (const [method, url] of [['GET', `/api/org/api-keys/${theirs.id}`], ['POST', `/api/org/api-keys/${theirs.id}/revoke`], ['DELETE', `/api/org/api-keys/${theirs.id}`]] as const) {
        const res = await inject(method, url, org.auth);
        expect(res.statusCode).toBe(404);
        expect(res.json().code).toBe('NOT_FOUND');
      }
      expect((await inject('GET', '/api/org/api-keys', { authorization: `Bearer ${theirs.key}` })).statusCode).toBe(200);
      expect((await inject('GET', `/api/org/api-keys/${newId('key')}`, org.auth)).statusCode).toBe(404);
    });

    it.each([
      ['no name', {}],
      ['a blank name', { name: '   ' }],
      ['a name too long', { name: 'x'.repeat(101) }],
      ['a number', { name: 42 }],
      ['an unknown field', { name: 'ok', scopes: 'all' }],
    ])('refuses %s with VALIDATION_ERROR and writes nothing', async (_what, body) => {
      const before = await ctx.database.db.selectFrom('org_api_keys').select('id').where('org_id', '=', org.orgId).execute();
      const res = await inject('POST', '/api/org/api-keys', org.auth, body);
      expect(res.statusCode).toBe(400);
      expect(res.json().code).toBe('VALIDATION_ERROR');
      const after = await ctx.database.db.selectFrom('org_api_keys').select('id').where('org_id', '=', org.orgId).execute();
      expect(after.length).toBe(before.length);
    });

    it('refuses malformed JSON, oversized bodies and a bad cursor with a 4xx', async () => {
      const bad = await ctx.app.inject({ method: 'POST', url: '/api/org/api-keys', headers: { ...org.auth, 'content-type': 'application/json' }, payload: '{"name": ' });
      expect(bad.statusCode).toBe(400);
      const big = await inject('POST', '/api/org/api-keys', org.auth, { name: 'x'.repeat(70 * 1024) });
      expect(big.statusCode).toBe(413);
      const cursor = await inject('GET', '/api/org/api-keys?cursor=nonsense', org.auth);
      expect(cursor.statusCode).toBe(400);
      const limit = await inject('GET', '/api/org/api-keys?limit=1000', org.auth);
      expect(limit.statusCode).toBe(400);
    });
  });
});
