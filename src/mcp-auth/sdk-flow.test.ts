import { Client, StreamableHTTPClientTransport, UnauthorizedError, type OAuthClientProvider } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signUpPerson, type ConsolePerson } from '../../test/support/connection-factories.js';
import { createServingTestContext, testDialects, type TestContext } from '../../test/support/context.js';
import { developerSession } from '../../test/support/factories.js';
import { json, startHttpsEndpoint, type HttpsEndpoint } from '../../test/support/https-endpoint.js';
import { createAgent, toolEndpointOptions } from '../../test/support/invocation-factories.js';
import { createTool, publishTool } from '../../test/support/tools-factories.js';

/**
 * The official MCP TypeScript SDK client, with its own OAuth client provider, against the running server: 401 →
 * resource metadata → authorization server metadata → Dynamic Client Registration → authorization code with PKCE
 * (the person's approval made as the console's consent page makes it) → token → tools/list and tools/call reaching
 * the tool endpoint; the access token expires and the SDK refreshes by itself; revoking the app in the console makes
 * the next call 401.
 */
const REVISIONS = [
  { revision: '2025-11-25', options: {} },
  { revision: '2026-07-28', options: { versionNegotiation: { mode: { pin: '2026-07-28' } } } },
] as const;

type OAuthTokens = NonNullable<Awaited<ReturnType<OAuthClientProvider['tokens']>>>;

class TestProvider implements OAuthClientProvider {
  information: Awaited<ReturnType<OAuthClientProvider['clientInformation']>>;
  stored: OAuthTokens | undefined;
  verifier = '';
  authorizationUrl: URL | undefined;
  constructor(readonly redirect: string) {}
  get redirectUrl() { return this.redirect; }
  get clientMetadata() {
    return { client_name: 'SDK test host', redirect_uris: [this.redirect], grant_types: ['authorization_code', 'refresh_token'], response_types: ['code'], token_endpoint_auth_method: 'none' };
  }
  clientInformation() { return this.information; }
  saveClientInformation(info: NonNullable<TestProvider['information']>) { this.information = info; }
  tokens() { return this.stored; }
  saveTokens(tokens: OAuthTokens) { this.stored = tokens; }
  redirectToAuthorization(url: URL) { this.authorizationUrl = url; }
  saveCodeVerifier(verifier: string) { this.verifier = verifier; }
  codeVerifier() { return this.verifier; }
}

describe.each(testDialects())('an MCP host authorizes with OAuth on %s', (dialect) => {
  let t: TestContext & { url: string };
  let endpoint: HttpsEndpoint;
  let owner: ConsolePerson;
  let agentId: string;

  beforeAll(async () => {
    endpoint = await startHttpsEndpoint(json(200, { price: 12.5 }));
    t = await createServingTestContext(dialect, toolEndpointOptions(endpoint));
    const dev = await developerSession(t.database, t.clock, t.app);
    const tool = await createTool(t.app, dev.auth, { name: 'quote', endpoint: `https://tool.test:${endpoint.port}/quote`, parameters: [] });
    await publishTool(t.app, dev.auth, tool.id);
    owner = await signUpPerson(t.app, { email: `host-${dialect}@example.com`, organizationName: 'Host Co', origin: t.url });
    const key = (await owner.send('POST', '/api/org/api-keys', { name: 'setup' })).json().data.key as string;
    agentId = (await createAgent(t.app, { auth: { authorization: `Bearer ${key}` } })).id;
    await owner.send('POST', '/api/org/installations', { toolId: tool.id });
  });
  afterAll(async () => {
    await t?.close();
    await endpoint?.close();
  });

  /** What the consent page does for the signed-in person: read the request, approve it for the agent. */
  async function approve(authorizationUrl: URL, agent = agentId) {
    const authorize = await fetch(authorizationUrl, { redirect: 'manual' });
    expect(authorize.status).toBe(302);
    const consent = new URL(authorize.headers.get('location')!, t.url);
    expect(consent.pathname).toBe('/app/authorize');
    const details = await owner.send('GET', `/api/auth/mcp-authorization${consent.search}`);
    expect(details.statusCode, details.body).toBe(200);
    expect(details.json().data).toMatchObject({ client: { name: 'SDK test host', verified: false }, redirectHost: '127.0.0.1:9', agents: [{ id: agentId }] });
    const decided = await owner.send('POST', '/api/auth/mcp-authorization', { ...Object.fromEntries(consent.searchParams), agentId: agent, decision: 'approve' });
    expect(decided.statusCode, decided.body).toBe(200);
    return new URL(decided.json().data.redirectTo as string);
  }

  it.each(REVISIONS)('does the whole dance with the SDK on $revision, refreshes after expiry, and is refused once the app is revoked', async ({ revision, options }) => {
    const provider = new TestProvider('http://127.0.0.1:9/callback');
    const sentBefore = endpoint.requests.length;
    const connect = async () => {
      const client = new Client({ name: 'sdk-test', version: '1.0.0' }, options);
      await client.connect(new StreamableHTTPClientTransport(new URL(`${t.url}/mcp`), { authProvider: provider }));
      return client;
    };

    const first = new StreamableHTTPClientTransport(new URL(`${t.url}/mcp`), { authProvider: provider });
    await expect(new Client({ name: 'sdk-test', version: '1.0.0' }, options).connect(first)).rejects.toBeInstanceOf(UnauthorizedError);
    expect(provider.information?.client_id).toMatch(/^mcpc_/);
    const url = provider.authorizationUrl!;
    expect(Object.fromEntries(url.searchParams)).toMatchObject({ code_challenge_method: 'S256', resource: `${t.url}/mcp`, response_type: 'code' });

    const back = await approve(url);
    expect(back.searchParams.get('iss')).toBe(t.url);
    await first.finishAuth(back.searchParams);
    expect(provider.stored?.access_token).toMatch(/^svc_mat_/);

    const client = await connect();
    expect(client.getNegotiatedProtocolVersion()).toBe(revision);
    const tools = await client.listTools();
    expect(tools.tools.map((tool) => tool.name)).toEqual(['quote']);
    const called = await client.callTool({ name: 'quote', arguments: {} });
    expect(called.structuredContent).toEqual({ price: 12.5 });
    expect(endpoint.requests.length - sentBefore).toBe(1);

    const grants = (await owner.send('GET', `/api/org/agents/${agentId}/mcp-grants`)).json().data.items;
    expect(grants).toMatchObject([{ client: { name: 'SDK test host' }, approvedBy: { name: 'Olive' }, lastUsedAt: expect.any(String) }]);

    // An hour later the access token has expired: the SDK refreshes (a new pair) and carries on.
    const before = provider.stored!.access_token;
    t.clock.advance(3601 * 1000);
    await client.close();
    const again = await connect();
    expect((await again.callTool({ name: 'quote', arguments: {} })).structuredContent).toEqual({ price: 12.5 });
    expect(provider.stored!.access_token).not.toBe(before);

    // Revoked in the console: the next request is 401, and the refresh token no longer works either.
    expect((await owner.send('DELETE', `/api/org/agents/${agentId}/mcp-grants/${grants[0].id}`)).json().data).toEqual({ id: grants[0].id, revoked: true });
    const raw = await fetch(`${t.url}/mcp`, { method: 'POST', headers: { authorization: `Bearer ${provider.stored!.access_token}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream' }, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }) });
    expect(raw.status).toBe(401);
    expect(raw.headers.get('www-authenticate')).toContain(`resource_metadata="${t.url}/.well-known/oauth-protected-resource/mcp"`);
    await expect(again.callTool({ name: 'quote', arguments: {} })).rejects.toThrow();
  });
});
