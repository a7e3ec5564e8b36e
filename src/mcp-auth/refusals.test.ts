import { createHash, randomBytes } from 'node:crypto';
import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signUpPerson, type ConsolePerson } from '../../test/support/connection-factories.js';
import { createTestContext, testDialects, type TestContext } from '../../test/support/context.js';
import { delayed, json, raw, startHttpsEndpoint, type HttpsEndpoint } from '../../test/support/https-endpoint.js';
import { createAgent, MCP_HEADERS, mcpToolsList, toolEndpointOptions } from '../../test/support/invocation-factories.js';

/**
 * What the authorization server of `/mcp` refuses, each on its own: a wrong or missing `resource`, no PKCE or
 * `plain`, an unregistered redirect URI, a replayed code or refresh token (each revokes the grant), another
 * organization's agent slipped into the approval, a token used for another agent, and Client ID Metadata Documents
 * that are internal, too large, too slow or not about themselves. No code or token ever reaches the log.
 */
const REDIRECT = 'http://127.0.0.1:9/callback';
const verifier = () => randomBytes(32).toString('base64url');
const challenge = (v: string) => createHash('sha256').update(v).digest('base64url');

describe.each(testDialects())('MCP authorization refusals on %s', (dialect) => {
  let t: TestContext;
  let documents: HttpsEndpoint;
  let owner: ConsolePerson;
  let agentId: string;
  let otherAgentId: string;
  let clientId: string;
  const logs: string[] = [];
  const resource = 'http://localhost:3000/mcp';

  const authorize = (params: Record<string, string | undefined>) =>
    t.app.inject({ method: 'GET', url: `/oauth/authorize?${new URLSearchParams(Object.entries(params).filter((e): e is [string, string] => e[1] !== undefined))}` });
  const base = (v: string, overrides: Record<string, string | undefined> = {}) => ({
    response_type: 'code', client_id: clientId, redirect_uri: REDIRECT, code_challenge: challenge(v), code_challenge_method: 'S256', state: 'st-1', resource, ...overrides,
  });
  const token = (form: Record<string, string>) =>
    t.app.inject({ method: 'POST', url: '/api/dev/oauth/token', headers: { 'content-type': 'application/x-www-form-urlencoded' }, payload: new URLSearchParams(form).toString() });
  const mcp = (accessToken: string) => t.app.inject({ method: 'POST', url: '/mcp', headers: { ...MCP_HEADERS, authorization: `Bearer ${accessToken}` }, payload: mcpToolsList });

  /** Approves as the console's consent page does; the code and the verifier. */
  async function code(agent = agentId) {
    const v = verifier();
    const decided = await owner.send('POST', '/api/auth/mcp-authorization', { ...base(v), agentId: agent, decision: 'approve' });
    expect(decided.statusCode, decided.body).toBe(200);
    return { code: new URL(decided.json().data.redirectTo).searchParams.get('code')!, verifier: v };
  }
  const exchange = (c: { code: string; verifier: string }) => token({ grant_type: 'authorization_code', code: c.code, code_verifier: c.verifier, client_id: clientId, redirect_uri: REDIRECT, resource });

  beforeAll(async () => {
    documents = await startHttpsEndpoint();
    const options = toolEndpointOptions(documents, { LOG_LEVEL: 'trace' });
    t = await createTestContext(dialect, { ...options, deps: { ...options.deps, logStream: new Writable({ write(chunk, _e, done) { logs.push(String(chunk)); done(); } }) } });
    owner = await signUpPerson(t.app, { email: `refusals-${dialect}@example.com`, organizationName: 'Refusals Co' });
    const key = (await owner.send('POST', '/api/org/api-keys', { name: 'setup' })).json().data.key as string;
    agentId = (await createAgent(t.app, { auth: { authorization: `Bearer ${key}` } })).id;
    otherAgentId = (await createAgent(t.app, { auth: { authorization: `Bearer ${key}` } }, 'Sales bot')).id;
    const registered = await t.app.inject({ method: 'POST', url: '/oauth/register', payload: { client_name: 'Refusal host', redirect_uris: [REDIRECT] } });
    expect(registered.statusCode, registered.body).toBe(201);
    clientId = registered.json().client_id;
  });
  afterAll(async () => {
    await t?.close();
    await documents?.close();
  });

  it('publishes the resource and authorization server metadata, and names it on every 401 of /mcp', async () => {
    const prm = (await t.app.inject({ method: 'GET', url: '/.well-known/oauth-protected-resource/mcp' })).json();
    expect(prm).toMatchObject({ resource, authorization_servers: ['http://localhost:3000'], scopes_supported: ['mcp:tools'], bearer_methods_supported: ['header'] });
    const as = (await t.app.inject({ method: 'GET', url: '/.well-known/oauth-authorization-server' })).json();
    expect(as).toMatchObject({
      authorization_endpoint: 'http://localhost:3000/oauth/authorize', registration_endpoint: 'http://localhost:3000/oauth/register',
      grant_types_supported: expect.arrayContaining(['client_credentials', 'authorization_code', 'refresh_token']),
      code_challenge_methods_supported: ['S256'], client_id_metadata_document_supported: true,
      token_endpoint_auth_methods_supported: expect.arrayContaining(['none']),
    });
    for (const headers of [{}, { authorization: 'Bearer svc_mat_not-a-token' }]) {
      const res = await t.app.inject({ method: 'POST', url: '/mcp', headers: { ...MCP_HEADERS, ...headers }, payload: mcpToolsList });
      expect(res.statusCode).toBe(401);
      expect(res.headers['www-authenticate']).toContain('resource_metadata="http://localhost:3000/.well-known/oauth-protected-resource/mcp"');
    }
  });

  it('redirects with an error for a wrong or missing resource, no PKCE or plain; shows a page for an unregistered redirect URI; takes any loopback port', async () => {
    const v = verifier();
    for (const [overrides, error] of [
      [{ resource: undefined }, 'invalid_target'], [{ resource: 'https://elsewhere.example/mcp' }, 'invalid_target'],
      [{ code_challenge: undefined }, 'invalid_request'], [{ code_challenge_method: 'plain' }, 'invalid_request'], [{ response_type: 'token' }, 'unsupported_response_type'],
    ] as const) {
      const res = await authorize(base(v, overrides));
      expect(res.statusCode, JSON.stringify(overrides)).toBe(302);
      const location = new URL(res.headers.location as string);
      expect(`${location.origin}${location.pathname}`).toBe(REDIRECT);
      expect(Object.fromEntries(location.searchParams)).toMatchObject({ error, state: 'st-1', iss: 'http://localhost:3000' });
    }
    for (const redirect of ['https://evil.example/callback', 'http://127.0.0.1:9/other', 'javascript:alert(1)']) {
      const res = await authorize(base(v, { redirect_uri: redirect }));
      expect(res.statusCode).toBe(400);
      expect(res.headers.location).toBeUndefined();
      expect(res.headers['content-type']).toContain('text/html');
    }
    const unknown = await authorize(base(v, { client_id: 'mcpc_00000000000000000000' }));
    expect(unknown.statusCode).toBe(400);
    const otherPort = await authorize(base(v, { redirect_uri: 'http://127.0.0.1:54321/callback' }));
    expect(otherPort.statusCode).toBe(302);
    expect(otherPort.headers.location).toMatch(/^\/app\/authorize\?/);
  });

  it('refuses another organization\'s agent in the approval, and the consent API without a session', async () => {
    const stranger = await signUpPerson(t.app, { email: `stranger-mcp-${dialect}@example.com`, organizationName: 'Stranger Co' });
    const v = verifier();
    const slipped = await stranger.send('POST', '/api/auth/mcp-authorization', { ...base(v), agentId, decision: 'approve' });
    expect(slipped.statusCode).toBe(404);
    expect(slipped.json().code).toBe('AGENT_NOT_FOUND');
    const anonymous = await t.app.inject({ method: 'GET', url: `/api/auth/mcp-authorization?${new URLSearchParams(base(v))}` });
    expect(anonymous.statusCode).toBe(401);
    const noCsrf = await t.app.inject({ method: 'POST', url: '/api/auth/mcp-authorization', headers: { cookie: owner.cookie, origin: 'http://localhost:3000' }, payload: { ...base(v), agentId, decision: 'approve' } });
    expect(noCsrf.statusCode).toBe(403);
    expect(await t.database.db.selectFrom('mcp_grants').selectAll().where('org_id', '!=', owner.orgId!).execute()).toEqual([]);
  });

  it('revokes what a code issued when the code comes back, and the whole grant when a used refresh token does', async () => {
    const first = await code();
    const issued = await exchange(first);
    expect(issued.statusCode, issued.body).toBe(200);
    const tokens = issued.json();
    expect(tokens).toMatchObject({ token_type: 'Bearer', expires_in: 3600, scope: 'mcp:tools' });
    expect((await mcp(tokens.access_token)).statusCode).toBe(200);
    const replay = await exchange(first);
    expect(replay.json()).toMatchObject({ error: 'invalid_grant' });
    expect((await mcp(tokens.access_token)).statusCode).toBe(401);

    const second = (await exchange(await code())).json();
    const refreshed = await token({ grant_type: 'refresh_token', refresh_token: second.refresh_token, client_id: clientId });
    expect(refreshed.statusCode, refreshed.body).toBe(200);
    const reused = await token({ grant_type: 'refresh_token', refresh_token: second.refresh_token, client_id: clientId });
    expect(reused.json()).toMatchObject({ error: 'invalid_grant' });
    expect((await mcp(refreshed.json().access_token)).statusCode).toBe(401);
    expect((await token({ grant_type: 'refresh_token', refresh_token: refreshed.json().refresh_token, client_id: clientId })).json()).toMatchObject({ error: 'invalid_grant' });

    const wrongVerifier = await code();
    expect((await exchange({ code: wrongVerifier.code, verifier: verifier() })).json()).toMatchObject({ error: 'invalid_grant' });
  });

  it('binds a token to its agent: another agent\'s tools and connected apps are out of its reach', async () => {
    const tokens = (await exchange(await code(otherAgentId))).json();
    expect((await mcp(tokens.access_token)).statusCode).toBe(200);
    const mine = (await owner.send('GET', `/api/org/agents/${agentId}/mcp-grants`)).json().data.items as Array<{ id: string }>;
    const theirs = (await owner.send('GET', `/api/org/agents/${otherAgentId}/mcp-grants`)).json().data.items as Array<{ id: string }>;
    expect(theirs).toHaveLength(1);
    expect(mine.map((g) => g.id)).not.toContain(theirs[0]!.id);
    // Revoking it through the other agent's path is not found.
    expect((await owner.send('DELETE', `/api/org/agents/${agentId}/mcp-grants/${theirs[0]!.id}`)).statusCode).toBe(404);
    const stranger = await signUpPerson(t.app, { email: `grants-${dialect}@example.com`, organizationName: 'Grants Co' });
    expect((await stranger.send('GET', `/api/org/agents/${otherAgentId}/mcp-grants`)).statusCode).toBe(404);
  });

  it('reads a Client ID Metadata Document, and refuses one too large, too slow, about another client_id or with other redirect URIs', async () => {
    const docUrl = (path: string) => `https://tool.test:${documents.port}${path}`;
    const document = (path: string, extra: Record<string, unknown> = {}) => ({ client_id: docUrl(path), client_name: 'Document host', redirect_uris: [REDIRECT], ...extra });
    const v = verifier();

    documents.respond(json(200, document('/good.json'), { 'cache-control': 'max-age=60' }));
    const good = await authorize(base(v, { client_id: docUrl('/good.json') }));
    expect(good.statusCode, good.body).toBe(302);
    expect(good.headers.location).toMatch(/^\/app\/authorize\?/);
    const details = await owner.send('GET', `/api/auth/mcp-authorization?${new URLSearchParams(base(v, { client_id: docUrl('/good.json') }))}`);
    expect(details.json().data.client).toMatchObject({ name: 'Document host', verified: false });

    for (const [path, responder] of [
      ['/big.json', json(200, document('/big.json', { padding: 'x'.repeat(11 * 1024) }))],
      ['/slow.json', delayed(6000, json(200, document('/slow.json')))],
      ['/liar.json', json(200, document('/someone-else.json'))],
      ['/other-redirect.json', json(200, document('/other-redirect.json', { redirect_uris: ['https://elsewhere.example/cb'] }))],
      ['/not-json.json', raw(200, 'hello', 'text/plain')],
    ] as const) {
      documents.respond(responder);
      const res = await authorize(base(v, { client_id: docUrl(path) }));
      expect(res.statusCode, path).toBe(400);
      expect(res.headers.location).toBeUndefined();
    }
  }, 20_000);

  it('never writes a code or a token to the log', () => {
    const logged = logs.join('');
    expect(logged).toContain('/oauth/authorize');
    expect(logged).not.toMatch(/svc_(mat|mrt|mac)_[A-Za-z0-9]{10,}/);
  });
});

describe('a Client ID Metadata Document at an internal address', () => {
  let t: TestContext;
  beforeAll(async () => {
    t = await createTestContext('sqlite', { deps: { resolveHost: async () => ['10.0.0.7'] } });
  });
  afterAll(() => t?.close());

  it('is never fetched', async () => {
    for (const clientId of ['https://10.0.0.7/client.json', 'https://internal.example/client.json', 'https://127.0.0.1/client.json']) {
      const res = await t.app.inject({ method: 'GET', url: `/oauth/authorize?${new URLSearchParams({ response_type: 'code', client_id: clientId, redirect_uri: REDIRECT, code_challenge: challenge(verifier()), code_challenge_method: 'S256', resource: 'http://localhost:3000/mcp' })}` });
      expect(res.statusCode, clientId).toBe(400);
      expect(res.body).toContain('cannot be fetched');
    }
  });
});
