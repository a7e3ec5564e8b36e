import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestContext, testDialects, type TestContext } from '../../test/support/context.js';
import { createDeveloperWithApp, type DeveloperWithApp } from '../../test/support/factories.js';

const FORM = { 'content-type': 'application/x-www-form-urlencoded' };

describe.each(testDialects())('POST /api/dev/oauth/token on %s', (dialect) => {
  let t: TestContext;
  let dev: DeveloperWithApp;
  let readOnly: DeveloperWithApp;

  const token = (form: Record<string, string>, headers: Record<string, string> = {}) =>
    t.app.inject({ method: 'POST', url: '/api/dev/oauth/token', headers: { ...FORM, ...headers }, payload: new URLSearchParams(form).toString() });
  const basic = (id: string, secret: string) => ({ authorization: `Basic ${Buffer.from(`${encodeURIComponent(id)}:${encodeURIComponent(secret)}`).toString('base64')}` });

  beforeAll(async () => {
    t = await createTestContext(dialect);
    dev = await createDeveloperWithApp(t.database, t.clock);
    readOnly = await createDeveloperWithApp(t.database, t.clock, { scopes: 'tools:read' });
  });
  afterAll(async () => t.close());

  describe('happy path', () => {
    it('issues a one-hour bearer token for credentials in the body, with every allowed scope by default', async () => {
      const res = await token({ grant_type: 'client_credentials', client_id: dev.app.clientId, client_secret: dev.app.clientSecret });
      expect(res.statusCode).toBe(200);
      expect(res.headers['cache-control']).toBe('no-store');
      expect(res.headers['content-type']).toContain('application/json');
      const body = res.json();
      expect(Object.keys(body).sort()).toEqual(['access_token', 'expires_in', 'scope', 'token_type']);
      expect(body.access_token).toMatch(/^svc_at_[0-9A-Za-z]{40}$/);
      expect(body).toMatchObject({ token_type: 'Bearer', expires_in: 3600, scope: 'tools:read tools:write tools:publish' });
    });

    it('accepts HTTP Basic client authentication (RFC 6749 §2.3.1)', async () => {
      const res = await token({ grant_type: 'client_credentials' }, basic(dev.app.clientId, dev.app.clientSecret));
      expect(res.statusCode).toBe(200);
      expect(res.json().token_type).toBe('Bearer');
    });

    it('narrows the grant to the requested scopes', async () => {
      const res = await token({ grant_type: 'client_credentials', client_id: dev.app.clientId, client_secret: dev.app.clientSecret, scope: 'tools:read  tools:read' });
      expect(res.statusCode).toBe(200);
      expect(res.json().scope).toBe('tools:read');
    });

    it('issues a different token on every request', async () => {
      const form = { grant_type: 'client_credentials', client_id: dev.app.clientId, client_secret: dev.app.clientSecret };
      const [a, b] = await Promise.all([token(form), token(form)]);
      expect(a.json().access_token).not.toBe(b.json().access_token);
    });
  });

  describe('errors (RFC 6749 §5.2)', () => {
    it('refuses a scope beyond what the app may be granted with invalid_scope', async () => {
      const res = await token({ grant_type: 'client_credentials', client_id: readOnly.app.clientId, client_secret: readOnly.app.clientSecret, scope: 'tools:read tools:write' });
      expect(res.statusCode).toBe(400);
      expect(res.json()).toEqual({ error: 'invalid_scope', error_description: expect.stringContaining('tools:write') });
    });

    it('refuses an unknown scope with invalid_scope', async () => {
      const res = await token({ grant_type: 'client_credentials', client_id: dev.app.clientId, client_secret: dev.app.clientSecret, scope: 'admin' });
      expect(res.statusCode).toBe(400);
      expect(res.json().error).toBe('invalid_scope');
    });

    it('refuses other grant types with unsupported_grant_type', async () => {
      const res = await token({ grant_type: 'password', client_id: dev.app.clientId, client_secret: dev.app.clientSecret });
      expect(res.statusCode).toBe(400);
      expect(res.json().error).toBe('unsupported_grant_type');
    });

    it('refuses a missing grant_type with invalid_request', async () => {
      const res = await token({ client_id: dev.app.clientId, client_secret: dev.app.clientSecret });
      expect(res.statusCode).toBe(400);
      expect(res.json().error).toBe('invalid_request');
      expect(res.headers['cache-control']).toBe('no-store');
    });

    it('refuses a repeated parameter with invalid_request', async () => {
      const res = await t.app.inject({
        method: 'POST', url: '/api/dev/oauth/token', headers: FORM,
        payload: `grant_type=client_credentials&client_id=${dev.app.clientId}&client_secret=${dev.app.clientSecret}&scope=tools:read&scope=tools:write`,
      });
      expect(res.statusCode).toBe(400);
      expect(res.json().error).toBe('invalid_request');
    });

    it('refuses two client authentication methods at once with invalid_request', async () => {
      const res = await token({ grant_type: 'client_credentials', client_secret: dev.app.clientSecret }, basic(dev.app.clientId, dev.app.clientSecret));
      expect(res.statusCode).toBe(400);
      expect(res.json().error).toBe('invalid_request');
    });

    it('refuses a JSON body with invalid_request, not a 500', async () => {
      const res = await t.app.inject({
        method: 'POST', url: '/api/dev/oauth/token', headers: { 'content-type': 'application/json' },
        payload: JSON.stringify({ grant_type: 'client_credentials', client_id: dev.app.clientId, client_secret: dev.app.clientSecret }),
      });
      expect(res.statusCode).toBe(400);
      expect(res.json().error).toBe('invalid_request');
    });

    it('refuses an oversized body with invalid_request', async () => {
      const res = await token({ grant_type: 'client_credentials', client_id: dev.app.clientId, client_secret: 'x'.repeat(20_000) });
      expect(res.statusCode).toBe(400);
      expect(res.json().error).toBe('invalid_request');
    });

    it('refuses an empty body with invalid_request', async () => {
      const res = await t.app.inject({ method: 'POST', url: '/api/dev/oauth/token', headers: FORM, payload: '' });
      expect(res.statusCode).toBe(400);
      expect(res.json().error).toBe('invalid_request');
    });
  });

  describe('security', () => {
    it('answers a wrong secret and an unknown client the same way: 401 invalid_client', async () => {
      const wrong = await token({ grant_type: 'client_credentials', client_id: dev.app.clientId, client_secret: `${dev.app.clientSecret}x` });
      const unknown = await token({ grant_type: 'client_credentials', client_id: 'app_doesnotexist000000', client_secret: dev.app.clientSecret });
      for (const res of [wrong, unknown]) {
        expect(res.statusCode).toBe(401);
        expect(res.json().error).toBe('invalid_client');
      }
      expect(wrong.json().error_description).toBe(unknown.json().error_description);
    });

    it('challenges Basic clients with WWW-Authenticate on a wrong secret', async () => {
      const res = await token({ grant_type: 'client_credentials' }, basic(dev.app.clientId, 'svc_cs_wrong'));
      expect(res.statusCode).toBe(401);
      expect(res.headers['www-authenticate']).toMatch(/^Basic realm="switchboard"/);
    });

    it('refuses a request without client authentication with invalid_client', async () => {
      const res = await token({ grant_type: 'client_credentials' });
      expect(res.statusCode).toBe(401);
      expect(res.json().error).toBe('invalid_client');
    });

    it('never repeats client text in its error descriptions', async () => {
      const secret = 'svc_cs_secret123';
      const refusals = await Promise.all([
        token({ grant_type: secret, client_id: dev.app.clientId, client_secret: dev.app.clientSecret }),
        token({ grant_type: 'client_credentials', client_id: dev.app.clientId, client_secret: dev.app.clientSecret, scope: `tools:write ${secret}` }),
        t.app.inject({ method: 'POST', url: '/api/dev/oauth/token', headers: FORM, payload: `grant_type=client_credentials&${secret}&${secret}` }),
      ]);
      expect(refusals.map((res) => [res.statusCode, res.json().error])).toEqual([
        [400, 'unsupported_grant_type'], [400, 'invalid_scope'], [400, 'invalid_request'],
      ]);
      for (const res of refusals) expect(res.body).not.toContain(secret);
      // Names we define are still given, so the client knows what to fix.
      expect(refusals[1]?.json().error_description).toMatch(/^This app may not be granted: 1 unknown scope\./);
    });

    it("refuses another app's secret", async () => {
      const res = await token({ grant_type: 'client_credentials', client_id: dev.app.clientId, client_secret: readOnly.app.clientSecret });
      expect(res.statusCode).toBe(401);
    });

    it('stores client secrets and access tokens only as hashes', async () => {
      const res = await token({ grant_type: 'client_credentials', client_id: dev.app.clientId, client_secret: dev.app.clientSecret });
      const issued = res.json().access_token as string;
      const apps = await t.database.db.selectFrom('apps').selectAll().execute();
      const tokens = await t.database.db.selectFrom('access_tokens').selectAll().execute();
      const dump = JSON.stringify({ apps, tokens });
      expect(dump).not.toContain(dev.app.clientSecret);
      expect(dump).not.toContain(issued);
      expect(dump).not.toContain('svc_cs_');
      expect(dump).not.toContain('svc_at_');
    });
  });
});
