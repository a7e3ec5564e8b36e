import Fastify from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDeveloperAuth } from './bearer.js';
import type { OAuthService } from './service.js';
import { createTestContext, testDialects, type TestContext } from '../../test/support/context.js';
import { createDeveloperWithApp, getAccessToken, type DeveloperWithApp } from '../../test/support/factories.js';

const FORM = { 'content-type': 'application/x-www-form-urlencoded' };

describe.each(testDialects())('bearer tokens on the Developer API (RFC 6750, RFC 7009) on %s', (dialect) => {
  let t: TestContext;
  let dev: DeveloperWithApp;
  let other: DeveloperWithApp;

  const listTools = (authorization?: string) =>
    t.app.inject({ method: 'GET', url: '/api/dev/tools', headers: authorization ? { authorization } : {} });
  const revoke = (credentials: DeveloperWithApp, tokenValue: string) =>
    t.app.inject({
      method: 'POST', url: '/api/dev/oauth/revoke', headers: FORM,
      payload: new URLSearchParams({ token: tokenValue, client_id: credentials.app.clientId, client_secret: credentials.app.clientSecret }).toString(),
    });

  beforeAll(async () => {
    t = await createTestContext(dialect);
    dev = await createDeveloperWithApp(t.database, t.clock);
    other = await createDeveloperWithApp(t.database, t.clock);
  });
  afterAll(async () => t.close());

  it('lets a valid token through', async () => {
    const res = await listTools(`Bearer ${await getAccessToken(t.app, dev.app)}`);
    expect(res.statusCode).toBe(200);
  });

  it('answers a missing token with 401 UNAUTHORIZED and a Bearer challenge', async () => {
    const res = await listTools();
    expect(res.statusCode).toBe(401);
    expect(res.headers['www-authenticate']).toBe('Bearer realm="switchboard"');
    expect(res.json()).toMatchObject({ success: false, code: 'UNAUTHORIZED' });
  });

  it('answers a non-Bearer scheme like a missing token', async () => {
    const res = await listTools(`Basic ${Buffer.from('a:b').toString('base64')}`);
    expect(res.statusCode).toBe(401);
    expect(res.json().code).toBe('UNAUTHORIZED');
  });

  it('answers an unknown token with 401 INVALID_TOKEN and error="invalid_token"', async () => {
    const res = await listTools('Bearer svc_at_notarealtoken');
    expect(res.statusCode).toBe(401);
    expect(res.headers['www-authenticate']).toContain('error="invalid_token"');
    expect(res.json().code).toBe('INVALID_TOKEN');
  });

  it('refuses a token once its hour is up', async () => {
    const value = await getAccessToken(t.app, dev.app);
    t.clock.advance(3599_000);
    expect((await listTools(`Bearer ${value}`)).statusCode).toBe(200);
    t.clock.advance(2_000);
    const res = await listTools(`Bearer ${value}`);
    expect(res.statusCode).toBe(401);
    expect(res.json().error).toContain('expired');
  });

  it('answers a token without the needed scope with 403 INSUFFICIENT_SCOPE naming the scope', async () => {
    const value = await getAccessToken(t.app, dev.app, 'tools:write');
    const res = await listTools(`Bearer ${value}`);
    expect(res.statusCode).toBe(403);
    expect(res.headers['www-authenticate']).toBe('Bearer realm="switchboard", error="insufficient_scope", scope="tools:read"');
    expect(res.json().code).toBe('INSUFFICIENT_SCOPE');
  });

  it('checks the token before the body, so unauthenticated callers learn nothing from validation', async () => {
    const res = await t.app.inject({ method: 'POST', url: '/api/dev/tools', headers: { 'content-type': 'application/json' }, payload: '{not json' });
    expect(res.statusCode).toBe(401);
  });

  it('revokes a token (RFC 7009) so it stops working at once', async () => {
    const value = await getAccessToken(t.app, dev.app);
    const res = await revoke(dev, value);
    expect(res.statusCode).toBe(200);
    expect(res.headers['cache-control']).toBe('no-store');
    const after = await listTools(`Bearer ${value}`);
    expect(after.statusCode).toBe(401);
    expect(after.json().error).toContain('revoked');
  });

  it('answers 200 for an unknown token, so tokens cannot be probed', async () => {
    expect((await revoke(dev, 'svc_at_unknown')).statusCode).toBe(200);
  });

  it("does not let one app revoke another app's token", async () => {
    const value = await getAccessToken(t.app, dev.app);
    expect((await revoke(other, value)).statusCode).toBe(200);
    expect((await listTools(`Bearer ${value}`)).statusCode).toBe(200);
  });

  it('requires client authentication to revoke', async () => {
    const res = await t.app.inject({ method: 'POST', url: '/api/dev/oauth/revoke', headers: FORM, payload: 'token=svc_at_x' });
    expect(res.statusCode).toBe(401);
    expect(res.json().error).toBe('invalid_client');
  });

  it('publishes authorization server metadata (RFC 8414)', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/.well-known/oauth-authorization-server' });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({
      issuer: 'http://localhost:3000',
      token_endpoint: 'http://localhost:3000/api/dev/oauth/token',
      revocation_endpoint: 'http://localhost:3000/api/dev/oauth/revoke',
      grant_types_supported: ['client_credentials'],
      token_endpoint_auth_methods_supported: ['client_secret_basic', 'client_secret_post'],
      scopes_supported: ['tools:read', 'tools:write', 'tools:publish'],
    });
  });
});

describe('a route states its scope once (requireDeclaredScope)', () => {
  const oauth = { checkAccessToken: async () => ({ ok: true, principal: { developerId: 'dev_1', appId: 'app_1', scopes: ['tools:read'] } }) } as unknown as OAuthService;

  it('checks the scope named in schema.security, before the handler', async () => {
    const auth = createDeveloperAuth(oauth);
    const app = Fastify();
    app.addHook('onRoute', auth.requireDeclaredScope);
    app.get('/read', { schema: { security: [{ oauth2: ['tools:read'] }] } }, async () => 'ok');
    app.get('/write', { schema: { security: [{ oauth2: ['tools:write'] }] } }, async () => 'ok');
    const bearer = { authorization: 'Bearer svc_at_x' };
    expect((await app.inject({ url: '/read', headers: bearer })).statusCode).toBe(200);
    expect((await app.inject({ url: '/read' })).statusCode).toBe(401);
    expect((await app.inject({ url: '/write', headers: bearer })).statusCode).toBe(403);
    await app.close();
  });

  it('refuses to start with a route that states no scope, rather than leave it open', async () => {
    const app = Fastify();
    app.addHook('onRoute', createDeveloperAuth(oauth).requireDeclaredScope);
    expect(() => app.get('/open', async () => 'ok')).toThrow(/GET \/open: state the route's one OAuth scope/);
    await app.close();
  });
});
