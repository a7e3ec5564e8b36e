import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../app.js';
import type { App } from '../http/app-type.js';
import { randomBase62 } from '../lib/ids.js';
import { createTestContext, testDialects, type TestContext } from '../../test/support/context.js';
import { developerSession } from '../../test/support/factories.js';
import { json, startHttpsEndpoint, type HttpsEndpoint } from '../../test/support/https-endpoint.js';
import { createAgent, install, MCP_HEADERS, mcpToolsList, toolEndpointOptions, toolHostResolver } from '../../test/support/invocation-factories.js';
import { createOrgWithKey, orgCaller, type OrgWithKey } from '../../test/support/org-factories.js';
import { createTool, publishTool, updateTool } from '../../test/support/tools-factories.js';

/**
 * Two app nodes on one database and one Redis: a change made through one node reaches the
 * other node's tool and key caches through the invalidation bus, without waiting for the TTL.
 * The second node's cache is warmed before each change. Endpoint on 127.0.0.1 only.
 */
const redisUrl = process.env.TEST_REDIS_URL;

describe.skipIf(!redisUrl).each(testDialects())('tool and key caches across two nodes on %s', (dialect) => {
  let t: TestContext;
  let second: App;
  let endpoint: HttpsEndpoint;
  let dev: Awaited<ReturnType<typeof developerSession>>;
  let org: OrgWithKey;
  let url: (path: string) => string;

  beforeAll(async () => {
    endpoint = await startHttpsEndpoint();
    url = (path) => `https://tool.test:${endpoint.port}${path}`;
    const redisPrefix = `test:${randomBase62(8)}:`;
    const resolveHost = toolHostResolver();
    t = await createTestContext(dialect, {
      env: toolEndpointOptions(endpoint, { REDIS_URL: redisUrl! }).env,
      deps: { redisPrefix, resolveHost },
    });
    second = await buildApp({ config: t.config, database: t.database, clock: t.clock, redisPrefix, resolveHost });
    await second.ready();
    dev = await developerSession(t.database, t.clock, t.app);
    org = await createOrgWithKey(t.database, t.clock);
  });
  afterEach(() => {
    endpoint.respond(json(200, { ok: true }));
    endpoint.reset();
  });
  afterAll(async () => {
    await second.close();
    await t.close();
    await endpoint.close();
  });

  /** Polls until `check` passes: pub/sub delivery takes a moment. */
  async function eventually(check: () => Promise<boolean>): Promise<void> {
    for (let attempt = 0; attempt < 100; attempt++) {
      if (await check()) return;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    throw new Error('condition not met within 2 s');
  }

  const ARGS = { weightKg: 1, country: 'PT' };
  const run = (node: App, agentId: string, name: string) => orgCaller(node)('POST', `/api/org/agents/${agentId}/tool-calls`, org, { name, arguments: ARGS });

  it('a tool withdrawn through one node stops on the other, and its republished revision is used there', async () => {
    const agent = await createAgent(t.app, org);
    const tool = await publishTool(t.app, dev.auth, (await createTool(t.app, dev.auth, { name: 'two_nodes', endpoint: url('/v1') })).id);
    await install(t.app, org, { toolId: tool.id });
    expect((await run(second, agent.id, 'two_nodes')).statusCode).toBe(200);
    await t.app.inject({ method: 'POST', url: `/api/dev/tools/${tool.id}/unpublish`, headers: dev.auth });
    await eventually(async () => (await run(second, agent.id, 'two_nodes')).json().code === 'TOOL_NOT_ENABLED');
    await updateTool(t.app, dev.auth, tool.id, { endpoint: url('/v2') });
    await publishTool(t.app, dev.auth, tool.id);
    endpoint.reset();
    await eventually(async () => (await run(second, agent.id, 'two_nodes')).statusCode === 200);
    expect(endpoint.requests.at(-1)!.path).toBe('/v2');
  });

  it('credentials replaced and an installation deleted through one node apply on the other', async () => {
    const agent = await createAgent(t.app, org);
    const tool = await publishTool(t.app, dev.auth, (await createTool(t.app, dev.auth, { name: 'two_node_creds', authType: 'bearer', endpoint: url('/c') })).id);
    const inst = await install(t.app, org, { toolId: tool.id, credentials: { token: 'old-token' } });
    expect((await run(second, agent.id, 'two_node_creds')).statusCode).toBe(200);
    expect(endpoint.requests[0]!.headers.authorization).toBe('Bearer old-token');
    await orgCaller(t.app)('PATCH', `/api/org/installations/${inst.id}`, org, { credentials: { token: 'new-token' } });
    await eventually(async () => {
      endpoint.reset();
      await run(second, agent.id, 'two_node_creds');
      return endpoint.requests[0]?.headers.authorization === 'Bearer new-token';
    });
    await orgCaller(t.app)('DELETE', `/api/org/installations/${inst.id}`, org);
    await eventually(async () => (await run(second, agent.id, 'two_node_creds')).json().code === 'TOOL_NOT_ENABLED');
  });

  it('an org key revoked and an agent key deleted through one node are refused by the other', async () => {
    const created = (await orgCaller(t.app)('POST', '/api/org/api-keys', org, { name: 'two nodes' })).json().data;
    const mine = { auth: { authorization: `Bearer ${created.key}` } };
    expect((await orgCaller(second)('GET', '/api/org/api-keys', mine)).statusCode).toBe(200);
    await orgCaller(t.app)('POST', `/api/org/api-keys/${created.id}/revoke`, org);
    await eventually(async () => (await orgCaller(second)('GET', '/api/org/api-keys', mine)).statusCode === 401);

    const agent = await createAgent(t.app, org);
    const agentKey = (await orgCaller(t.app)('POST', `/api/org/agents/${agent.id}/keys`, org, { name: 'K' })).json().data;
    const mcp = () => second.inject({ method: 'POST', url: '/mcp', headers: { ...MCP_HEADERS, authorization: `Bearer ${agentKey.key}` }, payload: mcpToolsList });
    expect((await mcp()).statusCode).toBe(200);
    await orgCaller(t.app)('DELETE', `/api/org/agents/${agent.id}/keys/${agentKey.id}`, org);
    await eventually(async () => (await mcp()).statusCode === 401);
  });
});
