import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createTestContext, testDialects, type TestContext } from '../../test/support/context.js';
import { developerSession } from '../../test/support/factories.js';
import { json, startHttpsEndpoint, type HttpsEndpoint } from '../../test/support/https-endpoint.js';
import { createAgent, install, MCP_HEADERS, mcpToolsList, toolEndpointOptions } from '../../test/support/invocation-factories.js';
import { createOrgWithKey, orgCaller, type OrgWithKey } from '../../test/support/org-factories.js';
import { createTool, publishTool } from '../../test/support/tools-factories.js';

/**
 * The per-node caches of agents' tools and of keys: every test first warms the cache with a
 * call, then changes what it was built from, and checks that the very next call sees the change
 * (no waiting, no TTL). Endpoint on 127.0.0.1 only.
 */
type Session = Awaited<ReturnType<typeof developerSession>>;


describe.each(testDialects())('tool and key caches on %s', (dialect) => {
  let t: TestContext;
  let endpoint: HttpsEndpoint;
  let dev: Session;
  let org: OrgWithKey;
  let call: ReturnType<typeof orgCaller>;
  let url: (path: string) => string;

  beforeAll(async () => {
    endpoint = await startHttpsEndpoint();
    url = (path) => `https://tool.test:${endpoint.port}${path}`;
    t = await createTestContext(dialect, toolEndpointOptions(endpoint));
    call = orgCaller(t.app);
    dev = await developerSession(t.database, t.clock, t.app);
    org = await createOrgWithKey(t.database, t.clock);
  });
  afterEach(() => {
    endpoint.respond(json(200, { ok: true }));
    endpoint.reset();
  });
  afterAll(async () => {
    await t.close();
    await endpoint.close();
  });

  const ARGS = { weightKg: 1, country: 'PT' };
  const run = (agentId: string, name: string, who: OrgWithKey = org) => call('POST', `/api/org/agents/${agentId}/tool-calls`, who, { name, arguments: ARGS });
  const publish = async (name: string, spec: Record<string, unknown> = {}) =>
    publishTool(t.app, dev.auth, (await createTool(t.app, dev.auth, { name, endpoint: url(`/${name}`), ...spec })).id);

  it('an installation patched with new credentials sends them from the next call', async () => {
    const agent = await createAgent(t.app, org);
    await publish('creds_change', { authType: 'bearer' });
    const tool = (await call('GET', '/api/catalog/tools?q=creds_change', null)).json().data.items[0];
    const inst = await install(t.app, org, { toolId: tool.id, credentials: { token: 'first-token' } });
    expect((await run(agent.id, 'creds_change')).statusCode).toBe(200);
    expect(endpoint.requests[0]!.headers.authorization).toBe('Bearer first-token');
    expect((await call('PATCH', `/api/org/installations/${inst.id}`, org, { credentials: { token: 'second-token' } })).statusCode).toBe(200);
    expect((await run(agent.id, 'creds_change')).statusCode).toBe(200);
    expect(endpoint.requests[1]!.headers.authorization).toBe('Bearer second-token');
    // Credentials removed: refused, nothing sent.
    await call('PATCH', `/api/org/installations/${inst.id}`, org, { credentials: null });
    expect((await run(agent.id, 'creds_change')).json().code).toBe('TOOL_CREDENTIALS_MISSING');
    expect(endpoint.requests).toHaveLength(2);
  });

  it('an alias, the agents and a deletion of an installation apply from the next call', async () => {
    const a = await createAgent(t.app, org, 'A');
    const b = await createAgent(t.app, org, 'B');
    const tool = await publish('scoped');
    const inst = await install(t.app, org, { toolId: tool.id });
    expect((await run(a.id, 'scoped')).statusCode).toBe(200);
    expect((await run(b.id, 'scoped')).statusCode).toBe(200);

    await call('PATCH', `/api/org/installations/${inst.id}`, org, { alias: 'renamed' });
    expect((await run(a.id, 'scoped')).json().code).toBe('TOOL_NOT_ENABLED');
    expect((await run(a.id, 'renamed')).statusCode).toBe(200);
    expect((await call('GET', `/api/org/agents/${a.id}/tools`, org)).json().data.tools.map((x: { function: { name: string } }) => x.function.name)).toContain('renamed');

    await call('PATCH', `/api/org/installations/${inst.id}`, org, { agentIds: [a.id] });
    expect((await run(a.id, 'renamed')).statusCode).toBe(200);
    expect((await run(b.id, 'renamed')).json().code).toBe('TOOL_NOT_ENABLED');

    await call('DELETE', `/api/org/installations/${inst.id}`, org);
    expect((await run(a.id, 'renamed')).json().code).toBe('TOOL_NOT_ENABLED');
  });

  it('a tool installed after the agent\'s tools were read is callable at once', async () => {
    const agent = await createAgent(t.app, org);
    expect((await run(agent.id, 'late_comer')).json().code).toBe('TOOL_NOT_ENABLED');
    expect((await call('GET', `/api/org/agents/${agent.id}/tools`, org)).json().data.tools).toBeDefined();
    await install(t.app, org, { toolId: (await publish('late_comer')).id });
    expect((await run(agent.id, 'late_comer')).statusCode).toBe(200);
  });

  it('a withdrawn tool stops at once, and is callable again from the call after it is republished', async () => {
    const agent = await createAgent(t.app, org);
    const tool = await publish('on_off');
    await install(t.app, org, { toolId: tool.id });
    expect((await run(agent.id, 'on_off')).statusCode).toBe(200);
    await t.app.inject({ method: 'POST', url: `/api/dev/tools/${tool.id}/unpublish`, headers: dev.auth });
    // Read (and cached) while withdrawn …
    expect((await run(agent.id, 'on_off')).json().code).toBe('TOOL_NOT_ENABLED');
    // … and published again with the same revision: the cached entry is dropped all the same.
    await publishTool(t.app, dev.auth, tool.id);
    expect((await run(agent.id, 'on_off')).statusCode).toBe(200);
  });

  it('a deleted agent answers AGENT_NOT_FOUND at once, and its keys stop working', async () => {
    const agent = await createAgent(t.app, org, 'Short-lived');
    await install(t.app, org, { toolId: (await publish('for_the_doomed')).id });
    const key = (await call('POST', `/api/org/agents/${agent.id}/keys`, org, { name: 'K' })).json().data.key as string;
    const mcp = () => t.app.inject({ method: 'POST', url: '/mcp', headers: { ...MCP_HEADERS, authorization: `Bearer ${key}` }, payload: mcpToolsList });
    expect((await run(agent.id, 'for_the_doomed')).statusCode).toBe(200);
    expect((await mcp()).statusCode).toBe(200);
    await call('DELETE', `/api/org/agents/${agent.id}`, org);
    const res = await run(agent.id, 'for_the_doomed');
    expect(res.statusCode).toBe(404);
    expect(res.json().code).toBe('AGENT_NOT_FOUND');
    expect((await mcp()).statusCode).toBe(401);
  });

  it('a deleted agent key is refused from the next request, a new one accepted at once', async () => {
    const agent = await createAgent(t.app, org);
    const created = (await call('POST', `/api/org/agents/${agent.id}/keys`, org, { name: 'K' })).json().data;
    const mcp = (key: string) => t.app.inject({ method: 'POST', url: '/mcp', headers: { ...MCP_HEADERS, authorization: `Bearer ${key}` }, payload: mcpToolsList });
    expect((await mcp(created.key)).statusCode).toBe(200);
    expect((await mcp(created.key)).statusCode).toBe(200);
    await call('DELETE', `/api/org/agents/${agent.id}/keys/${created.id}`, org);
    expect((await mcp(created.key)).statusCode).toBe(401);
    const next = (await call('POST', `/api/org/agents/${agent.id}/keys`, org, { name: 'K2' })).json().data;
    expect((await mcp(next.key)).statusCode).toBe(200);
  });

  it('an org API key in use is refused from the next request once revoked, or deleted', async () => {
    for (const how of ['revoke', 'delete'] as const) {
      const created = (await call('POST', '/api/org/api-keys', org, { name: how })).json().data;
      const mine = { auth: { authorization: `Bearer ${created.key}` } };
      expect((await call('GET', '/api/org/api-keys', mine)).statusCode).toBe(200);
      expect((await call('GET', '/api/org/api-keys', mine)).statusCode).toBe(200);
      if (how === 'revoke') await call('POST', `/api/org/api-keys/${created.id}/revoke`, org);
      else await call('DELETE', `/api/org/api-keys/${created.id}`, org);
      const refused = await call('GET', '/api/org/api-keys', mine);
      expect(refused.statusCode).toBe(401);
      expect(refused.json()).toMatchObject({ code: 'INVALID_TOKEN', error: how === 'revoke' ? expect.stringContaining('revoked') : expect.stringContaining('not valid') });
    }
  });

  it('still writes last_used_at at most once a minute with the key cached', async () => {
    const created = (await call('POST', '/api/org/api-keys', org, { name: 'touch' })).json().data;
    const mine = { auth: { authorization: `Bearer ${created.key}` } };
    await call('GET', '/api/org/api-keys', mine);
    const first = (await call('GET', `/api/org/api-keys/${created.id}`, org)).json().data.lastUsedAt;
    expect(first).toEqual(expect.any(String));
    t.clock.advance(30_000);
    await call('GET', '/api/org/api-keys', mine);
    expect((await call('GET', `/api/org/api-keys/${created.id}`, org)).json().data.lastUsedAt).toBe(first);
    t.clock.advance(31_000);
    await call('GET', '/api/org/api-keys', mine);
    expect((await call('GET', `/api/org/api-keys/${created.id}`, org)).json().data.lastUsedAt).not.toBe(first);
  });
});
