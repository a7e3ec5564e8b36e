import { Writable } from 'node:stream';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { followCallback, signUpPerson, type ConsolePerson } from '../../test/support/connection-factories.js';
import { createTestContext, testDialects, type TestContext } from '../../test/support/context.js';
import { developerSession } from '../../test/support/factories.js';
import { json, startHttpsEndpoint, type HttpsEndpoint, type Responder } from '../../test/support/https-endpoint.js';
import { createAgent, toolEndpointOptions } from '../../test/support/invocation-factories.js';
import { startOAuthProvider, type OAuthProvider } from '../../test/support/oauth-provider.js';
import { createTool, publishTool } from '../../test/support/tools-factories.js';

/**
 * An oauth2 tool against a real authorization server: oidc-provider on https://127.0.0.1 (test/support/oauth-provider.ts),
 * rotating refresh tokens, and a protected endpoint that checks each bearer token at the provider (introspection).
 * Connecting, calling, refreshing by itself, a revoked grant, reconnecting, disconnecting; the state's rules; tenant
 * isolation; and no token in an answer, a log line, the call log or a webhook.
 */
const CLIENT = { clientId: 'switchboard', clientSecret: 'provider-client-secret-0123456789' };

describe.each(testDialects())('OAuth connections on %s', (dialect) => {
  let t: TestContext;
  let provider: OAuthProvider;
  let endpoint: HttpsEndpoint;
  let owner: ConsolePerson;
  let apiKey: { authorization: string };
  let agentId: string;
  let toolId: string;
  let installationId: string;
  const logs: string[] = [];
  /** Every bearer token the endpoint saw, to look for in logs and rows. */
  const seenTokens: string[] = [];

  /** Answers 200 with the account when the provider says the token is active, 401 otherwise (as a resource server does). */
  const protectedEndpoint: Responder = async (request, response) => {
    const token = /^Bearer (.+)$/.exec(String(request.headers.authorization ?? ''))?.[1];
    if (token) seenTokens.push(token);
    const verdict = token ? await provider.verifyAccessToken(token) : { active: false };
    const answer = verdict.active ? json(200, { events: [], account: verdict.sub }) : json(401, { error: 'invalid_token' }, { 'www-authenticate': 'Bearer error="invalid_token"' });
    await answer(request, response);
  };

  const call = () => t.app.inject({ method: 'POST', url: `/api/org/agents/${agentId}/tool-calls`, headers: apiKey, payload: { name: 'calendar', arguments: { day: 'monday' } } });
  const installation = async () => (await owner.send('GET', `/api/org/installations/${installationId}`)).json().data;
  const outboxTypes = async () => (await t.database.db.selectFrom('webhook_outbox').select('events').execute()).flatMap((row) => (JSON.parse(row.events) as Array<{ type: string }>).map((event) => event.type));

  /** Connect as a person would: start, sign in and consent at the provider, follow its redirect back. */
  async function connect(person: ConsolePerson, account = 'alice') {
    const started = await person.send('POST', `/api/org/installations/${installationId}/connection`);
    expect(started.statusCode, started.body).toBe(200);
    const back = await provider.authorize(started.json().data.authorizationUrl, { accountId: account });
    return followCallback(t.app, back, person.cookie);
  }

  beforeAll(async () => {
    endpoint = await startHttpsEndpoint(protectedEndpoint);
    const options = toolEndpointOptions(endpoint, { TOOL_CALL_TIMEOUT_MS: '5000', LOG_LEVEL: 'trace' });
    t = await createTestContext(dialect, { ...options, deps: { ...options.deps, logStream: new Writable({ write(chunk, _e, done) { logs.push(String(chunk)); done(); } }) } });
    provider = await startOAuthProvider({ clients: [{ ...CLIENT, redirectUris: [`${t.config.publicUrl}/oauth/callback`] }], accessTokenTtlSeconds: 3600 });

    const dev = await developerSession(t.database, t.clock, t.app);
    const tool = await createTool(t.app, dev.auth, {
      name: 'calendar', endpoint: `https://tool.test:${endpoint.port}/events`, authType: 'oauth2',
      parameters: [{ name: 'day', type: 'string', required: true }],
      oauth: { authorizationUrl: provider.authorizationUrl, tokenUrl: provider.tokenUrl, revocationUrl: provider.revocationUrl, scopes: ['openid', 'email', 'offline_access'], ...CLIENT },
    });
    toolId = tool.id;
    await publishTool(t.app, dev.auth, toolId);

    owner = await signUpPerson(t.app, { email: `owner-${dialect}@example.com`, organizationName: 'Calendar Co' });
    const key = await owner.send('POST', '/api/org/api-keys', { name: 'calls' });
    apiKey = { authorization: `Bearer ${key.json().data.key as string}` };
    agentId = (await createAgent(t.app, { auth: apiKey })).id;
    const installed = await owner.send('POST', '/api/org/installations', { toolId });
    expect(installed.statusCode, installed.body).toBe(201);
    installationId = installed.json().data.id;
    const hook = await owner.send('POST', '/api/org/webhooks', { url: `https://tool.test:${endpoint.port}/hooks`, events: ['installation.connection_failed', 'installation.connection_restored'] });
    expect(hook.statusCode, hook.body).toBe(201);
  });
  afterAll(async () => {
    await t?.close();
    await provider?.close();
    await endpoint?.close();
  });
  beforeEach(() => endpoint.reset());

  it('shows the tool as oauth2 without its secret, and the installation as not connected: calls say how to connect', async () => {
    const catalog = (await t.app.inject({ method: 'GET', url: `/api/catalog/tools/${toolId}` })).json().data;
    expect(catalog.oauth).toEqual({ authorizationHost: new URL(provider.authorizationUrl).host, scopes: ['openid', 'email', 'offline_access'] });
    expect(JSON.stringify(catalog)).not.toContain(CLIENT.clientSecret);
    const stored = await t.database.db.selectFrom('tools').select('oauth_client_secret').where('id', '=', toolId).executeTakeFirstOrThrow();
    expect(stored.oauth_client_secret).not.toContain(CLIENT.clientSecret);

    expect(await installation()).toMatchObject({ authType: 'oauth2', credentialsSet: false, connection: { status: 'not_connected', accountLabel: null } });
    const refused = await call();
    expect(refused.statusCode).toBe(409);
    expect(refused.json()).toMatchObject({ code: 'TOOL_CREDENTIALS_MISSING', callId: expect.stringMatching(/^call_/) });
    expect(refused.json().error).toContain(`POST /api/org/installations/${installationId}/connection`);
    expect(endpoint.requests).toHaveLength(0);
  });

  it('refuses to start a connection with an API key, or for another organization\'s installation', async () => {
    const withKey = await t.app.inject({ method: 'POST', url: `/api/org/installations/${installationId}/connection`, headers: apiKey });
    expect(withKey.statusCode).toBe(403);
    expect(withKey.json()).toMatchObject({ code: 'FORBIDDEN' });

    const stranger = await signUpPerson(t.app, { email: `stranger-${dialect}@example.com`, organizationName: 'Other Co' });
    for (const method of ['POST', 'GET', 'DELETE'] as const) {
      const res = await stranger.send(method, `/api/org/installations/${installationId}/connection`);
      expect(res.statusCode, `${method} ${res.body}`).toBe(404);
    }
    expect(await t.database.db.selectFrom('oauth_states').selectAll().where('org_id', '=', stranger.orgId!).execute()).toEqual([]);
  });

  it('connects an account: PKCE and state at the provider, tokens sealed, the person back on the installation page; a call sends its token', async () => {
    const started = await owner.send('POST', `/api/org/installations/${installationId}/connection`);
    const url = new URL(started.json().data.authorizationUrl);
    expect(url.origin).toBe(provider.issuer);
    expect(Object.fromEntries(url.searchParams)).toMatchObject({
      response_type: 'code', client_id: CLIENT.clientId, redirect_uri: `${t.config.publicUrl}/oauth/callback`,
      scope: 'openid email offline_access', code_challenge_method: 'S256', code_challenge: expect.stringMatching(/^[\w-]{43}$/), state: expect.stringMatching(/^[\w-]{43}$/),
    });
    const back = await provider.authorize(url.href, { accountId: 'alice' });
    const landed = await followCallback(t.app, back, owner.cookie);
    expect(landed.statusCode).toBe(303);
    expect(landed.headers.location).toBe(`/app/tools/${installationId}?connection=connected`);

    expect(await installation()).toMatchObject({
      credentialsSet: true,
      connection: { status: 'connected', accountLabel: 'alice@example.test', connectedAt: expect.any(String), reason: null, scopes: expect.arrayContaining(['openid', 'email']) },
    });
    const row = await t.database.db.selectFrom('oauth_connections').selectAll().where('installation_id', '=', installationId).executeTakeFirstOrThrow();
    expect(row.refresh_token).not.toBeNull();

    const answered = await call();
    expect(answered.statusCode, answered.body).toBe(200);
    expect(answered.json().data.result).toEqual({ events: [], account: 'alice' });
    expect(endpoint.requests).toHaveLength(1);
    const sent = String(endpoint.requests[0]!.headers.authorization);
    expect(sent).toMatch(/^Bearer .+/);
    expect(row.access_token).not.toContain(sent.slice(7));
  });

  it('refuses a reused, forged, expired or another session\'s state, and a denial, storing nothing', async () => {
    const before = await t.database.db.selectFrom('oauth_connections').select(['id', 'token_version']).execute();
    const countStates = async () => (await t.database.db.selectFrom('oauth_states').select('state_hash').execute()).length;

    // Reused: the first use consumed it.
    const started = await owner.send('POST', `/api/org/installations/${installationId}/connection`);
    const back = await provider.authorize(started.json().data.authorizationUrl);
    expect((await followCallback(t.app, back, owner.cookie)).statusCode).toBe(303);
    const again = await followCallback(t.app, back, owner.cookie);
    expect(again.statusCode).toBe(400);
    expect(again.headers['content-type']).toContain('text/html');
    expect(again.body).toContain('no longer valid');

    // Forged.
    const forged = await followCallback(t.app, `${t.config.publicUrl}/oauth/callback?code=abc&state=${'A'.repeat(43)}`, owner.cookie);
    expect(forged.statusCode).toBe(400);
    expect(forged.headers['content-security-policy']).toContain("frame-ancestors 'none'");

    // Another person's session, or none: the state is taken and refused.
    const stranger = await signUpPerson(t.app, { email: `other-session-${dialect}@example.com`, organizationName: 'Else Co' });
    for (const cookie of [stranger.cookie, undefined]) {
      const mine = await owner.send('POST', `/api/org/installations/${installationId}/connection`);
      const redirect = await provider.authorize(mine.json().data.authorizationUrl);
      const res = await followCallback(t.app, redirect, cookie);
      expect(res.statusCode).toBe(403);
      expect(res.body).toContain('Sign in with the account that started this connection');
      // Single-use even when refused: the owner cannot finish it afterwards either.
      expect((await followCallback(t.app, redirect, owner.cookie)).statusCode).toBe(400);
    }

    // Expired: ten minutes.
    const late = await owner.send('POST', `/api/org/installations/${installationId}/connection`);
    const lateBack = await provider.authorize(late.json().data.authorizationUrl);
    t.clock.advance(10 * 60 * 1000 + 1);
    const expired = await followCallback(t.app, lateBack, owner.cookie);
    expect(expired.statusCode).toBe(400);
    expect(expired.body).toContain('took too long');

    // Denied at the provider.
    const denied = await owner.send('POST', `/api/org/installations/${installationId}/connection`);
    const deniedBack = await provider.authorize(denied.json().data.authorizationUrl, { deny: true });
    expect(new URL(deniedBack).searchParams.get('error')).toBe('access_denied');
    const deniedPage = await followCallback(t.app, deniedBack, owner.cookie);
    expect(deniedPage.statusCode).toBe(400);
    expect(deniedPage.body).toContain('was not approved');

    const after = await t.database.db.selectFrom('oauth_connections').select(['id', 'token_version']).execute();
    expect(after).toHaveLength(before.length);
    expect(await countStates()).toBe(0);
  });

  it('refreshes by itself before the token expires, once, with the rotated refresh token; the call never notices', async () => {
    const version = async () => Number((await t.database.db.selectFrom('oauth_connections').select('token_version').where('installation_id', '=', installationId).executeTakeFirstOrThrow()).token_version);
    const before = await version();
    const refreshes = () => provider.tokenRequests.filter((r) => r.grantType === 'refresh_token').length;
    const refreshesBefore = refreshes();
    // The provider's token lives an hour: move our clock to within its last minute, where it is renewed first.
    t.clock.advance(3600 * 1000 - 30_000);
    const [first, second] = await Promise.all([call(), call()]);
    expect(first.statusCode, first.body).toBe(200);
    expect(second.statusCode, second.body).toBe(200);
    expect(refreshes()).toBe(refreshesBefore + 1);
    expect(await version()).toBe(before + 1);
    expect((await installation()).connection.refreshedAt).toEqual(expect.any(String));
    // Both calls sent the new token, which the provider says is active.
    const tokens = endpoint.requests.map((r) => String(r.headers.authorization));
    expect(new Set(tokens).size).toBe(1);
  });

  it('after the provider revokes the grant: the call answers TOOL_CONNECTION_EXPIRED, the installation says reconnect, the webhook is queued; reconnecting restores it', async () => {
    await provider.revokeGrants('alice');
    const expired = await call();
    expect(expired.statusCode, expired.body).toBe(409);
    expect(expired.json()).toMatchObject({ code: 'TOOL_CONNECTION_EXPIRED', callId: expect.stringMatching(/^call_/) });
    expect(expired.json().error).toContain('Reconnect');
    expect(provider.tokenRequests.at(-1)).toMatchObject({ grantType: 'refresh_token', error: 'invalid_grant' });
    expect(await installation()).toMatchObject({ credentialsSet: false, connection: { status: 'needs_reconnect', reason: expect.stringContaining('invalid_grant') } });
    expect(await outboxTypes()).toContain('installation.connection_failed');

    // At once from now on: the endpoint and the provider are not asked again.
    const asked = endpoint.requests.length;
    const tokenCalls = provider.tokenRequests.length;
    const again = await call();
    expect(again.json().code).toBe('TOOL_CONNECTION_EXPIRED');
    expect(endpoint.requests).toHaveLength(asked);
    expect(provider.tokenRequests).toHaveLength(tokenCalls);

    const reconnected = await connect(owner);
    expect(reconnected.statusCode).toBe(303);
    expect(await installation()).toMatchObject({ credentialsSet: true, connection: { status: 'connected' } });
    expect(await outboxTypes()).toContain('installation.connection_restored');
    expect((await call()).statusCode).toBe(200);
  });

  it('disconnects: revokes at the provider, wipes the tokens, and calls need a connection again', async () => {
    const revocations = provider.revocationRequests.length;
    const res = await owner.send('DELETE', `/api/org/installations/${installationId}/connection`);
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().data).toEqual({ disconnected: true, revoked: true });
    expect(provider.revocationRequests.length).toBeGreaterThan(revocations);
    expect(await t.database.db.selectFrom('oauth_connections').selectAll().where('installation_id', '=', installationId).execute()).toEqual([]);
    expect((await call()).json().code).toBe('TOOL_CREDENTIALS_MISSING');
    expect((await owner.send('DELETE', `/api/org/installations/${installationId}/connection`)).json().data).toEqual({ disconnected: false, revoked: false });
    expect((await connect(owner)).statusCode).toBe(303);
  });

  it('lets a developer connect their own test account and test-call with it; never with an access token, never on another developer\'s tool', async () => {
    const developer = await signUpPerson(t.app, { email: `portal-${dialect}@example.com`, developer: true });
    const created = await developer.send('POST', '/api/dev/tools', {
      name: 'calendar_draft', description: 'Reads the calendar.', endpoint: `https://tool.test:${endpoint.port}/events`, authType: 'oauth2', parameters: [],
      oauth: { authorizationUrl: provider.authorizationUrl, tokenUrl: provider.tokenUrl, scopes: ['openid', 'email'], ...CLIENT },
    });
    expect(created.statusCode, created.body).toBe(201);
    const draftId = created.json().data.id as string;
    expect((await developer.send('GET', `/api/dev/tools/${draftId}/test-connection`)).json().data).toMatchObject({ status: 'not_connected' });

    const rival = await signUpPerson(t.app, { email: `rival-${dialect}@example.com`, developer: true });
    for (const method of ['POST', 'GET', 'DELETE'] as const) expect((await rival.send(method, `/api/dev/tools/${draftId}/test-connection`)).statusCode).toBe(404);
    const other = await developerSession(t.database, t.clock, t.app);
    const ownToken = await createTool(t.app, other.auth, { authType: 'oauth2', parameters: [], oauth: { authorizationUrl: provider.authorizationUrl, tokenUrl: provider.tokenUrl, scopes: [], ...CLIENT } });
    expect((await t.app.inject({ method: 'POST', url: `/api/dev/tools/${ownToken.id}/test-connection`, headers: other.auth })).json()).toMatchObject({ code: 'FORBIDDEN' });

    const started = await developer.send('POST', `/api/dev/tools/${draftId}/test-connection`);
    expect(started.statusCode, started.body).toBe(200);
    const landed = await followCallback(t.app, await provider.authorize(started.json().data.authorizationUrl, { accountId: 'dana' }), developer.cookie);
    expect(landed.headers.location).toBe(`/app/developer/tools/${draftId}?connection=connected`);
    expect((await developer.send('GET', `/api/dev/tools/${draftId}/test-connection`)).json().data).toMatchObject({ status: 'connected', accountLabel: 'dana@example.test' });

    const tested = await developer.send('POST', `/api/dev/tools/${draftId}/test`, { arguments: {} });
    expect(tested.statusCode, tested.body).toBe(200);
    expect(tested.json().data.response).toMatchObject({ ok: true, result: { account: 'dana' } });
    expect(tested.json().data.request.headers.Authorization).toBe('Bearer ********');
    // The developer's account is theirs: no organization's installation sees it.
    expect((await t.database.db.selectFrom('oauth_connections').selectAll().where('tool_id', '=', draftId).execute()).map((r) => [r.org_id, r.installation_id])).toEqual([[null, null]]);
    expect((await developer.send('DELETE', `/api/dev/tools/${draftId}/test-connection`)).json().data).toMatchObject({ disconnected: true });
  });

  it('never puts a token in an answer, a log line, the call log or a webhook', async () => {
    expect(seenTokens.length).toBeGreaterThan(2);
    const everything = [
      logs.join(''),
      JSON.stringify(await t.database.db.selectFrom('tool_calls').selectAll().execute()),
      JSON.stringify(await t.database.db.selectFrom('webhook_outbox').selectAll().execute()),
      JSON.stringify(await installation()),
      (await owner.send('GET', `/api/org/installations/${installationId}/connection`)).body,
    ].join('\n');
    for (const token of new Set(seenTokens)) expect(everything).not.toContain(token);
    expect(everything).not.toContain(CLIENT.clientSecret);
  });
});
