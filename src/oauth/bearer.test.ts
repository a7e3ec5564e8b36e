import Fastify from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { APPS_NEED_A_SESSION, NOT_A_DEVELOPER, createDeveloperAuth, type DeveloperAuth, type DeveloperSessionResolver } from './bearer.js';
import { AppError } from '../http/errors.js';
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
      grant_types_supported: ['client_credentials', 'authorization_code', 'refresh_token'],
      token_endpoint_auth_methods_supported: ['client_secret_basic', 'client_secret_post', 'none'],
      scopes_supported: ['tools:read', 'tools:write', 'tools:publish', 'mcp:tools'],
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

describe('a console session on the Developer API (the session seam)', () => {
  const oauth = { checkAccessToken: async () => ({ ok: true, principal: { developerId: 'dev_token', appId: 'app_1', scopes: ['tools:read'] } }) } as unknown as OAuthService;
  /** A fake seam: `cookie: dev` is a developer's session, `cookie: op` an operator's; a change without `x-csrf-token` is refused as the real one does. */
  const sessions: DeveloperSessionResolver = {
    async resolve(request) {
      const who = request.headers.cookie;
      if (who !== 'dev' && who !== 'op') return undefined;
      if (request.method !== 'GET' && request.headers['x-csrf-token'] !== 'ok') throw new AppError('FORBIDDEN', 'This change needs the X-CSRF-Token header.');
      return { userId: 'usr_1', email: 'ada@example.com', developerId: who === 'dev' ? 'dev_session' : null };
    },
  };

  async function appWith(auth: DeveloperAuth) {
    const app = Fastify();
    app.setErrorHandler((error: AppError, _request, reply) => reply.code(error.status ?? 500).send({ code: error.code, error: error.message }));
    await app.register(async (scope) => {
      scope.addHook('onRoute', auth.requireDeclaredScope);
      scope.get('/tools', { schema: { security: [{ oauth2: ['tools:write'] }] } }, async (request) => auth.principal(request));
      scope.post('/tools', { schema: { security: [{ oauth2: ['tools:write'] }] } }, async (request) => auth.principal(request));
    });
    app.post('/apps', { onRequest: auth.requireDeveloperSession }, async (request) => auth.principal(request));
    return app;
  }

  it('lets a developer\'s session through with every scope; a change needs the CSRF token', async () => {
    const app = await appWith(createDeveloperAuth(oauth, sessions));
    const read = await app.inject({ url: '/tools', headers: { cookie: 'dev' } });
    expect(read.json()).toEqual({ developerId: 'dev_session', appId: null, scopes: ['tools:read', 'tools:write', 'tools:publish'], via: 'session', actor: { type: 'user', id: 'usr_1', label: 'ada@example.com' } });
    expect((await app.inject({ method: 'POST', url: '/tools', headers: { cookie: 'dev', 'x-csrf-token': 'ok' } })).statusCode).toBe(200);
    const noCsrf = await app.inject({ method: 'POST', url: '/tools', headers: { cookie: 'dev' } });
    expect([noCsrf.statusCode, noCsrf.json().code]).toEqual([403, 'FORBIDDEN']);
    await app.close();
  });

  it('refuses an operator\'s session that has no developer account: 403 saying how to become one', async () => {
    const app = await appWith(createDeveloperAuth(oauth, sessions));
    for (const res of [await app.inject({ url: '/tools', headers: { cookie: 'op' } }), await app.inject({ method: 'POST', url: '/apps', headers: { cookie: 'op', 'x-csrf-token': 'ok' } })]) {
      expect(res.statusCode).toBe(403);
      expect(res.json()).toEqual({ code: 'FORBIDDEN', error: NOT_A_DEVELOPER });
      expect(NOT_A_DEVELOPER).toContain('POST /api/auth/developer');
    }
    await app.close();
  });

  it('lets the bearer token win when both are sent, and never rescues a bad one with the cookie', async () => {
    const app = await appWith(createDeveloperAuth(oauth, sessions));
    const both = await app.inject({ url: '/tools', headers: { cookie: 'dev', authorization: 'Bearer svc_at_x' } });
    // The token lacks tools:write: its own refusal, not the session's every-scope pass.
    expect([both.statusCode, both.json().code]).toEqual([403, 'INSUFFICIENT_SCOPE']);
    const malformed = await app.inject({ url: '/tools', headers: { cookie: 'dev', authorization: 'Basic x' } });
    expect(malformed.statusCode).toBe(401);
    await app.close();
  });

  it('session-only routes (apps): a bearer credential is 403, no session 401, a developer\'s session passes', async () => {
    const app = await appWith(createDeveloperAuth(oauth, sessions));
    const token = await app.inject({ method: 'POST', url: '/apps', headers: { authorization: 'Bearer svc_at_x', cookie: 'dev', 'x-csrf-token': 'ok' } });
    expect([token.statusCode, token.json().error]).toEqual([403, APPS_NEED_A_SESSION]);
    expect((await app.inject({ method: 'POST', url: '/apps' })).statusCode).toBe(401);
    expect((await app.inject({ method: 'POST', url: '/apps', headers: { cookie: 'dev' } })).statusCode).toBe(403);
    const ok = await app.inject({ method: 'POST', url: '/apps', headers: { cookie: 'dev', 'x-csrf-token': 'ok' } });
    expect(ok.json()).toMatchObject({ developerId: 'dev_session', via: 'session' });
    await app.close();
  });

  it('documents the session as the alternative the check accepts, and only when sessions are wired', async () => {
    const routes: Array<{ security?: unknown }> = [];
    for (const withSessions of [true, false]) {
      const auth = createDeveloperAuth(oauth, withSessions ? sessions : undefined);
      const schema = { security: [{ oauth2: ['tools:read'] }] };
      auth.requireDeclaredScope({ method: 'GET', url: '/tools', schema });
      routes.push(schema);
    }
    expect(routes).toEqual([{ security: [{ oauth2: ['tools:read'] }, { consoleSession: [] }] }, { security: [{ oauth2: ['tools:read'] }] }]);
  });

  it('without the seam, a cookie alone is no credential (the token-only API of before)', async () => {
    const app = await appWith(createDeveloperAuth(oauth));
    expect((await app.inject({ url: '/tools', headers: { cookie: 'dev' } })).statusCode).toBe(401);
    await app.close();
  });
});
