import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { followCallback, signUpPerson, stateOf, type ConsolePerson } from '../../test/support/connection-factories.js';
import { createTestContext, testDialects, type TestContext } from '../../test/support/context.js';
import { developerSession } from '../../test/support/factories.js';
import { json, startHttpsEndpoint, type HttpsEndpoint } from '../../test/support/https-endpoint.js';
import { createAgent, toolEndpointOptions } from '../../test/support/invocation-factories.js';
import {
  invalidGrant, oauthError, redirectTo, refreshWithoutNewRefreshToken, slow, startScriptedTokenServer, tokens, unavailable, type ScriptedTokenServer,
} from '../../test/support/oauth-scripted-token-server.js';
import { createTool, publishTool } from '../../test/support/tools-factories.js';

/**
 * The providers that are not oidc-provider: a token endpoint scripted answer by answer (RFC 6749 §5.1 read as
 * written: `expires_in` may be missing, `scope` may be narrower, a refresh may bring no new refresh token) and
 * failing in each way a real one does (invalid_grant, 5xx, too slow, a redirect), with client_secret_post.
 */
const SECRET = 'scripted-client-secret';

describe.each(testDialects())('odd OAuth providers on %s', (dialect) => {
  let t: TestContext;
  let server: ScriptedTokenServer;
  let endpoint: HttpsEndpoint;
  let owner: ConsolePerson;
  let apiKey: { authorization: string };
  let agentId: string;
  let installationId: string;
  /** The access tokens the endpoint takes; any other is answered 401. */
  const accepted = new Set<string>();

  const call = () => t.app.inject({ method: 'POST', url: `/api/org/agents/${agentId}/tool-calls`, headers: apiKey, payload: { name: 'crm', arguments: {} } });
  const connection = async () => t.database.db.selectFrom('oauth_connections').selectAll().where('installation_id', '=', installationId).executeTakeFirstOrThrow();
  const sentTokens = () => endpoint.requests.map((r) => String(r.headers.authorization).replace(/^Bearer /, ''));

  /** Connects with the code exchange answered by `answer`; the authorization page itself is never visited. */
  async function connect(answer: Parameters<ScriptedTokenServer['script']>[0]) {
    server.script(answer);
    const started = await owner.send('POST', `/api/org/installations/${installationId}/connection`);
    expect(started.statusCode, started.body).toBe(200);
    return followCallback(t.app, `${t.config.publicUrl}/oauth/callback?code=code-${server.requests.length}&state=${stateOf(started.json().data.authorizationUrl)}`, owner.cookie);
  }

  beforeAll(async () => {
    server = await startScriptedTokenServer();
    endpoint = await startHttpsEndpoint((request, response) => {
      const token = String(request.headers.authorization ?? '').replace(/^Bearer /, '');
      return (accepted.has(token) ? json(200, { ok: true }) : json(401, { error: 'invalid_token' }))(request, response);
    });
    t = await createTestContext(dialect, toolEndpointOptions(endpoint, { TOOL_CALL_TIMEOUT_MS: '1500' }));
    const dev = await developerSession(t.database, t.clock, t.app);
    const tool = await createTool(t.app, dev.auth, {
      name: 'crm', endpoint: `https://tool.test:${endpoint.port}/crm`, authType: 'oauth2', parameters: [],
      oauth: { authorizationUrl: `${server.origin}/authorize`, tokenUrl: server.tokenUrl, scopes: ['contacts.read', 'contacts.write'], clientId: 'scripted', clientSecret: SECRET, tokenAuthMethod: 'client_secret_post' },
    });
    await publishTool(t.app, dev.auth, tool.id);
    owner = await signUpPerson(t.app, { email: `odd-${dialect}@example.com`, organizationName: 'Odd Co' });
    apiKey = { authorization: `Bearer ${(await owner.send('POST', '/api/org/api-keys', { name: 'calls' })).json().data.key as string}` };
    agentId = (await createAgent(t.app, { auth: apiKey })).id;
    installationId = (await owner.send('POST', '/api/org/installations', { toolId: tool.id })).json().data.id;
  });
  afterAll(async () => {
    await t?.close();
    await server?.close();
    await endpoint?.close();
  });

  it('a token endpoint error at connect time stores nothing and says so on a page', async () => {
    const page = await connect(oauthError('invalid_client', { status: 401 }));
    expect(page.statusCode).toBe(502);
    expect(page.body).toContain('invalid_client');
    expect(await t.database.db.selectFrom('oauth_connections').selectAll().execute()).toEqual([]);
  });

  it('sends the code with the PKCE verifier and client_secret_post; records the narrower scope; without expires_in, refreshes only on a 401, keeping a refresh token the answer left out', async () => {
    accepted.add('at-1');
    expect((await connect(tokens({ accessToken: 'at-1', refreshToken: 'rt-1', scope: 'contacts.read' }))).statusCode).toBe(303);
    const exchange = server.requests.at(-1)!;
    expect(exchange).toMatchObject({ grantType: 'authorization_code', clientAuth: 'client_secret_post', clientId: 'scripted', clientSecret: SECRET, redirectUri: `${t.config.publicUrl}/oauth/callback` });
    expect(exchange.codeVerifier).toMatch(/^[\w-]{43,128}$/);
    const installation = (await owner.send('GET', `/api/org/installations/${installationId}`)).json().data;
    expect(installation.connection).toMatchObject({ status: 'connected', scopes: ['contacts.read'], expiresAt: null });

    // No expiry: a week later the same token, and the token endpoint is not asked.
    t.clock.advance(7 * 24 * 3600 * 1000);
    const asked = server.requests.length;
    expect((await call()).statusCode).toBe(200);
    expect(server.requests).toHaveLength(asked);

    // The endpoint refuses it: one refresh (no new refresh token in the answer), the call made again once.
    accepted.delete('at-1');
    accepted.add('at-2');
    server.script(refreshWithoutNewRefreshToken('at-2'));
    const retried = await call();
    expect(retried.statusCode, retried.body).toBe(200);
    expect(sentTokens().slice(-2)).toEqual(['at-1', 'at-2']);
    expect(server.requests.at(-1)).toMatchObject({ grantType: 'refresh_token', refreshToken: 'rt-1', clientAuth: 'client_secret_post' });
    const calls = await t.database.db.selectFrom('tool_calls').select(['outcome', 'http_status']).where('installation_id', '=', installationId).orderBy('id', 'desc').limit(1).execute();
    expect(calls).toEqual([{ outcome: 'OK', http_status: 200 }]);

    // The old refresh token was kept: the next refresh sends it again.
    accepted.clear();
    accepted.add('at-3');
    server.script(tokens({ accessToken: 'at-3', refreshToken: 'rt-3', expiresIn: 3600 }));
    expect((await call()).statusCode).toBe(200);
    expect(server.requests.at(-1)).toMatchObject({ grantType: 'refresh_token', refreshToken: 'rt-1' });
  });

  it('a 401 after a fresh refresh is the endpoint\'s answer: refreshed and retried once, never more', async () => {
    accepted.clear();
    server.script(tokens({ accessToken: 'at-4', refreshToken: 'rt-4', expiresIn: 3600 }));
    const before = endpoint.requests.length;
    const refused = await call();
    expect(refused.statusCode).toBe(502);
    expect(refused.json()).toMatchObject({ code: 'TOOL_HTTP_ERROR', status: 401 });
    expect(endpoint.requests.length - before).toBe(2);
    expect(server.pending).toBe(0);
    accepted.add('at-4');
  });

  it('a 503, a slow answer or a redirect from the token endpoint leaves the connection as it is and is tried again after a backoff', async () => {
    for (const [answer, words] of [[unavailable(), '503'], [slow(3000, tokens({ accessToken: 'late' })), 'in time'], [redirectTo('https://127.0.0.1:9/elsewhere'), 'redirect']] as const) {
      // The access token expires: the next call must renew it first.
      t.clock.advance(3600 * 1000);
      server.script(answer);
      const asked = server.requests.length;
      const failed = await call();
      expect(failed.statusCode, failed.body).toBe(502);
      expect(failed.json().code).toBe('TOOL_UNREACHABLE');
      expect(failed.json().error).toContain(words);
      expect(failed.json().error).toMatch(/asks again in \d+ s/);
      expect(server.requests.length - asked).toBe(1);
      const row = await connection();
      expect(row.status).toBe('connected');
      expect(Number(row.refresh_failures)).toBeGreaterThan(0);

      // Within the backoff, the provider is not asked again.
      expect((await call()).json().code).toBe('TOOL_UNREACHABLE');
      expect(server.requests.length - asked).toBe(1);
      // After it, it is: this time it answers.
      t.clock.advance(10 * 60 * 1000);
      accepted.add(`at-after-${asked}`);
      server.script(tokens({ accessToken: `at-after-${asked}`, refreshToken: `rt-after-${asked}`, expiresIn: 3600 }));
      expect((await call()).statusCode).toBe(200);
      expect(Number((await connection()).refresh_failures)).toBe(0);
    }
  });

  it('invalid_grant marks the connection for reconnecting; calls then fail at once', async () => {
    t.clock.advance(3600 * 1000);
    server.script(invalidGrant());
    const expired = await call();
    expect(expired.statusCode).toBe(409);
    expect(expired.json().code).toBe('TOOL_CONNECTION_EXPIRED');
    expect((await connection()).status).toBe('needs_reconnect');
    const asked = server.requests.length;
    expect((await call()).json().code).toBe('TOOL_CONNECTION_EXPIRED');
    expect(server.requests).toHaveLength(asked);
  });
});

describe('OAuth URLs under the address policy', () => {
  let t: TestContext;
  const dns: Record<string, string[]> = { 'api.example.com': ['93.184.216.34'], 'idp.example.com': ['93.184.216.35'] };
  let dev: Awaited<ReturnType<typeof developerSession>>;
  const oauth = (overrides: Record<string, unknown> = {}) => ({
    authorizationUrl: 'https://idp.example.com/authorize', tokenUrl: 'https://idp.example.com/token', scopes: ['read'], clientId: 'c', clientSecret: 's', ...overrides,
  });

  beforeAll(async () => {
    t = await createTestContext('sqlite', { deps: { resolveHost: async (host) => dns[host] ?? [] } });
    dev = await developerSession(t.database, t.clock, t.app);
  });
  afterAll(() => t?.close());

  it('refuses an internal, loopback or plain-http URL at save, naming the field; and a client secret is required', async () => {
    const cases: Array<[Record<string, unknown>, string]> = [
      [oauth({ tokenUrl: 'https://10.1.2.3/token' }), 'oauth.tokenUrl'],
      [oauth({ authorizationUrl: 'https://127.0.0.1/authorize' }), 'oauth.authorizationUrl'],
      [oauth({ revocationUrl: 'https://169.254.169.254/revoke' }), 'oauth.revocationUrl'],
      [oauth({ tokenUrl: 'http://idp.example.com/token' }), 'oauth.tokenUrl'],
    ];
    for (const [settings, field] of cases) {
      const res = await t.app.inject({ method: 'POST', url: '/api/dev/tools', headers: dev.auth, payload: { name: 'crm', description: 'CRM', endpoint: 'https://api.example.com/crm', authType: 'oauth2', oauth: settings } });
      expect(res.statusCode, res.body).toBe(400);
      expect(res.json()).toMatchObject({ code: 'ENDPOINT_NOT_ALLOWED', field });
    }
    const { clientSecret: _s, ...withoutSecret } = oauth();
    const missing = await t.app.inject({ method: 'POST', url: '/api/dev/tools', headers: dev.auth, payload: { name: 'crm', description: 'CRM', endpoint: 'https://api.example.com/crm', authType: 'oauth2', oauth: withoutSecret } });
    expect(missing.json()).toMatchObject({ code: 'VALIDATION_ERROR', field: 'oauth.clientSecret' });
    const reserved = await t.app.inject({ method: 'POST', url: '/api/dev/tools', headers: dev.auth, payload: { name: 'crm', description: 'CRM', endpoint: 'https://api.example.com/crm', authType: 'oauth2', oauth: oauth({ extraAuthorizeParams: { redirect_uri: 'https://evil.example' } }) } });
    expect(reserved.json()).toMatchObject({ code: 'VALIDATION_ERROR' });
    expect(reserved.json().error).toContain('oauth.extraAuthorizeParams.redirect_uri');
    expect(await t.database.db.selectFrom('tools').selectAll().execute()).toEqual([]);
  });

  it('refuses at publish and at connect time a provider whose name now resolves to an internal address; the secret is never answered', async () => {
    const created = await t.app.inject({ method: 'POST', url: '/api/dev/tools', headers: dev.auth, payload: { name: 'crm', description: 'CRM', endpoint: 'https://api.example.com/crm', authType: 'oauth2', oauth: oauth() } });
    expect(created.statusCode, created.body).toBe(201);
    const tool = created.json().data;
    expect(tool.oauth).toMatchObject({ hasClientSecret: true, redirectUri: 'http://localhost:3000/oauth/callback', tokenAuthMethod: 'client_secret_basic', revocationUrl: null, extraAuthorizeParams: {} });
    expect(created.body).not.toContain('"clientSecret"');
    await publishTool(t.app, dev.auth, tool.id);

    const person = await signUpPerson(t.app, { email: 'policy@example.com', organizationName: 'Policy Co' });
    const installed = (await person.send('POST', '/api/org/installations', { toolId: tool.id })).json().data;
    dns['idp.example.com'] = ['10.0.0.5'];
    const start = await person.send('POST', `/api/org/installations/${installed.id}/connection`);
    expect(start.statusCode).toBe(400);
    expect(start.json()).toMatchObject({ code: 'ENDPOINT_NOT_ALLOWED', field: 'oauth.authorizationUrl' });
    expect(await t.database.db.selectFrom('oauth_states').selectAll().execute()).toEqual([]);
    const publish = await t.app.inject({ method: 'POST', url: `/api/dev/tools/${tool.id}/publish`, headers: dev.auth, payload: {} });
    expect(publish.json()).toMatchObject({ code: 'ENDPOINT_NOT_ALLOWED', field: 'oauth.authorizationUrl' });
  });
});
