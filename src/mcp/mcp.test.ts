import type { AddressInfo } from 'node:net';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createTestContext, testDialects, type TestContext } from '../../test/support/context.js';
import { developerSession } from '../../test/support/factories.js';
import { json, startHttpsEndpoint, type HttpsEndpoint } from '../../test/support/https-endpoint.js';
import { createAgent, install, toolEndpointOptions } from '../../test/support/invocation-factories.js';
import { createOrgWithKey, orgCaller, type OrgWithKey } from '../../test/support/org-factories.js';
import { createTool, publishTool } from '../../test/support/tools-factories.js';
import { MAX_JSON_DEPTH } from '../lib/json.js';

/**
 * The MCP endpoint driven by the SDK's own client (Streamable HTTP) over real HTTP against the
 * app listening on 127.0.0.1, for each protocol revision served; tool calls reach a real HTTPS
 * endpoint on 127.0.0.1 (test CA). No test connects anywhere else.
 */
const REVISIONS = [
  { revision: '2025-11-25', options: {} },
  { revision: '2026-07-28', options: { versionNegotiation: { mode: { pin: '2026-07-28' } } } },
] as const;

describe.each(testDialects())('MCP on %s', (dialect) => {
  let t: TestContext;
  let endpoint: HttpsEndpoint;
  let base: string;
  let org: OrgWithKey;
  let other: OrgWithKey;
  let agent: { id: string };
  let sibling: { id: string };
  let agentKey: string;
  let siblingKey: string;
  let otherKey: string;
  let quoteName: string;
  let siblingOnlyName: string;
  let otherOrgName: string;

  async function keyFor(who: OrgWithKey, agentId: string): Promise<string> {
    const res = await orgCaller(t.app)('POST', `/api/org/agents/${agentId}/keys`, who, { name: 'MCP test' });
    expect(res.statusCode).toBe(201);
    return (res.json() as { data: { key: string } }).data.key;
  }

  beforeAll(async () => {
    endpoint = await startHttpsEndpoint();
    t = await createTestContext(dialect, toolEndpointOptions(endpoint));
    await t.app.listen({ host: '127.0.0.1', port: 0 });
    base = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`;
    const dev = await developerSession(t.database, t.clock, t.app);
    [org, other] = await Promise.all([createOrgWithKey(t.database, t.clock), createOrgWithKey(t.database, t.clock)]);
    agent = await createAgent(t.app, org);
    sibling = await createAgent(t.app, org, 'Sales bot');
    const otherAgent = await createAgent(t.app, other);

    const url = `https://tool.test:${endpoint.port}/quote`;
    const publish = async (overrides: Record<string, unknown> = {}) =>
      publishTool(t.app, dev.auth, (await createTool(t.app, dev.auth, { endpoint: url, ...overrides })).id);
    const quote = await publish();
    const siblingOnly = await publish();
    const otherOrgTool = await publish();
    quoteName = (await install(t.app, org, { toolId: quote.id, alias: 'shipping_quote' })).name;
    siblingOnlyName = (await install(t.app, org, { toolId: siblingOnly.id, agentIds: [sibling.id] })).name;
    otherOrgName = (await install(t.app, other, { toolId: otherOrgTool.id })).name;

    [agentKey, siblingKey, otherKey] = await Promise.all([keyFor(org, agent.id), keyFor(org, sibling.id), keyFor(other, otherAgent.id)]);
  });
  afterEach(() => {
    endpoint.respond(json(200, { ok: true }));
    endpoint.reset();
  });
  afterAll(async () => {
    await t.close();
    await endpoint.close();
  });

  async function connect(key: string, options: (typeof REVISIONS)[number]['options']): Promise<Client> {
    const transport = new StreamableHTTPClientTransport(new URL(`${base}/mcp`), { requestInit: { headers: { Authorization: `Bearer ${key}` } } });
    const client = new Client({ name: 'switchboard-test', version: '1.0.0' }, options);
    await client.connect(transport);
    return client;
  }

  for (const { revision, options } of REVISIONS) {
    describe(`revision ${revision}`, () => {
      it('connects (initialize or server/discover) and negotiates the revision', async () => {
        const client = await connect(agentKey, options);
        try {
          expect(client.getNegotiatedProtocolVersion()).toBe(revision);
          expect(client.getServerVersion()?.name).toBe('switchboard');
          expect(client.getServerCapabilities()?.tools).toBeDefined();
        } finally {
          await client.close();
        }
      });

      it('lists only this agent\'s tools, with inputSchema', async () => {
        const client = await connect(agentKey, options);
        try {
          const { tools } = await client.listTools();
          expect(tools.map((tool) => tool.name)).toEqual([quoteName]);
          expect(quoteName).toBe('shipping_quote');
          expect(tools[0]!.inputSchema).toMatchObject({
            type: 'object',
            properties: { weightKg: { type: 'number' }, country: { type: 'string' } },
            required: ['weightKg', 'country'],
          });
        } finally {
          await client.close();
        }
      });

      it('calls a tool through the invoker: the endpoint\'s JSON as structuredContent and as a text block', async () => {
        endpoint.respond(json(200, { quote: 12.5, currency: 'EUR' }));
        t.clock.advance(60_000);
        const from = t.clock.now().toISOString();
        const client = await connect(agentKey, options);
        try {
          const result = await client.callTool({ name: quoteName, arguments: { weightKg: 2.5, country: 'PT' } });
          expect(result.isError ?? false).toBe(false);
          expect(result.structuredContent).toEqual({ quote: 12.5, currency: 'EUR' });
          expect(result.content).toEqual([{ type: 'text', text: JSON.stringify({ quote: 12.5, currency: 'EUR' }) }]);
          expect(endpoint.requests).toHaveLength(1);
          const body = JSON.parse(endpoint.requests[0]!.body.toString('utf8'));
          expect(body).toMatchObject({ weightKg: 2.5, country: 'PT', _svc_context: { agentId: agent.id, orgId: org.orgId } });
        } finally {
          await client.close();
        }
        // The call log names the path, and has the call as soon as it was answered.
        const logged = await orgCaller(t.app)('GET', `/api/org/tool-calls?agentId=${agent.id}&from=${encodeURIComponent(from)}`, org);
        expect((logged.json() as { data: { items: Array<{ path: string; outcome: string }> } }).data.items[0]).toMatchObject({ path: 'mcp', outcome: 'OK' });
      });

      it('answers invalid arguments as a result with isError and the code, without calling the endpoint', async () => {
        const client = await connect(agentKey, options);
        try {
          const result = await client.callTool({ name: quoteName, arguments: { weightKg: 'heavy' } });
          expect(result.isError).toBe(true);
          const failure = result.structuredContent as { code: string; error: string; details: unknown[]; callId: string };
          expect(failure.code).toBe('INVALID_ARGUMENTS');
          expect(failure.callId).toMatch(/^call_/);
          expect(failure.details.length).toBeGreaterThan(0);
          expect(JSON.parse((result.content as Array<{ text: string }>)[0]!.text)).toEqual(failure);
          expect(endpoint.requests).toHaveLength(0);
        } finally {
          await client.close();
        }
      });

      it('answers an unknown tool and an endpoint failure as results with isError', async () => {
        const client = await connect(agentKey, options);
        try {
          const unknown = await client.callTool({ name: siblingOnlyName, arguments: {} });
          expect(unknown.isError).toBe(true);
          expect((unknown.structuredContent as { code: string }).code).toBe('TOOL_NOT_ENABLED');

          endpoint.respond(json(503, { error: 'maintenance' }));
          const failed = await client.callTool({ name: quoteName, arguments: { weightKg: 1, country: 'PT' } });
          expect(failed.isError).toBe(true);
          expect(failed.structuredContent).toMatchObject({ code: 'TOOL_HTTP_ERROR', status: 503, body: { error: 'maintenance' } });
        } finally {
          await client.close();
        }
      });

      it('gives another agent\'s key only that agent\'s tools, and another org\'s key only its own', async () => {
        const [mine, theirs] = await Promise.all([connect(siblingKey, options), connect(otherKey, options)]);
        try {
          expect((await mine.listTools()).tools.map((tool) => tool.name).sort()).toEqual([quoteName, siblingOnlyName].sort());
          expect((await theirs.listTools()).tools.map((tool) => tool.name)).toEqual([otherOrgName]);
          const refused = await theirs.callTool({ name: quoteName, arguments: { weightKg: 1, country: 'PT' } });
          expect(refused.isError).toBe(true);
          expect((refused.structuredContent as { code: string }).code).toBe('TOOL_NOT_ENABLED');
          expect(endpoint.requests).toHaveLength(0);
        } finally {
          await Promise.all([mine.close(), theirs.close()]);
        }
      });
    });
  }

  describe('bodies refused while reading them, and params the SDK refuses: JSON-RPC errors with the id, in our words', () => {
    const rpc = (body: string | Buffer, headers: Record<string, string> = {}) => fetch(`${base}/mcp`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${agentKey}`, 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream', 'MCP-Protocol-Version': '2025-11-25', ...headers },
      body,
    });
    /** A tools/call whose arguments nest so that the whole message is `levels` deep (message, params and arguments are three). */
    const deepCall = (levels: number) =>
      `{"jsonrpc":"2.0","id":42,"method":"tools/call","params":{"name":"${quoteName}","arguments":{"weightKg":${'['.repeat(levels - 3)}${']'.repeat(levels - 3)}}}}`;

    it.each([
      ['without protocolVersion or clientInfo', { capabilities: {} }, 'Invalid params: params.protocolVersion is required (a string); params.clientInfo is required (an object).'],
      ['without clientInfo', { protocolVersion: '2025-11-25', capabilities: {} }, 'Invalid params: params.clientInfo is required (an object).'],
      ['with protocolVersion 5', { protocolVersion: 5, capabilities: {}, clientInfo: { name: 'raw', version: '1' } }, 'Invalid params: params.protocolVersion must be a string (got a number).'],
    ])('answers an initialize %s with -32602 and one clean sentence', async (_what, params, message) => {
      const res = await rpc(JSON.stringify({ jsonrpc: '2.0', id: 'init-1', method: 'initialize', params }));
      expect(res.status).toBe(200);
      expect(await res.json()).toEqual({ jsonrpc: '2.0', id: 'init-1', error: { code: -32602, message } });
    });

    it('answers malformed params of other methods the same way, never with the validator\'s raw issue list', async () => {
      for (const [method, params] of [['tools/list', { cursor: 5 }], ['tools/call', { name: 7, arguments: {} }]] as const) {
        const text = await (await rpc(JSON.stringify({ jsonrpc: '2.0', id: 5, method, params }))).text();
        expect(JSON.parse(text), method).toMatchObject({ id: 5, error: { code: -32602, message: expect.stringMatching(/^Invalid .*params\.(cursor|name) must be a string \(got a number\)\.$/) } });
        expect(text).not.toMatch(/invalid_type|"expected"|\\n/);
      }
    });

    it(`reads a ${MAX_JSON_DEPTH}-level tools/call and refuses ${MAX_JSON_DEPTH + 1} or 10,000 levels with 400, -32602 and the id, calling nothing`, async () => {
      const deepest = await rpc(deepCall(MAX_JSON_DEPTH));
      expect(deepest.status).toBe(200);
      // Read and handed to the invoker, which refuses an array for a number: the model's mistake, as a result.
      expect(await deepest.json()).toMatchObject({ id: 42, result: { isError: true, structuredContent: { code: 'INVALID_ARGUMENTS' } } });
      for (const levels of [MAX_JSON_DEPTH + 1, 10_000]) {
        const res = await rpc(deepCall(levels));
        expect(res.status, `${levels}`).toBe(400);
        expect(await res.json()).toEqual({
          jsonrpc: '2.0', id: 42,
          error: {
            code: -32602,
            message: `The request body nests objects and arrays more than ${MAX_JSON_DEPTH} levels deep (in "params"). Send at most ${MAX_JSON_DEPTH} levels.`,
            data: { code: 'VALIDATION_ERROR', requestId: expect.stringMatching(/^req_/) },
          },
        });
      }
      const batch = await rpc(`[${deepCall(10_000)}]`);
      expect(batch.status).toBe(400);
      expect(await batch.json()).toMatchObject({ jsonrpc: '2.0', id: null, error: { code: -32600 } });
      expect(endpoint.requests).toHaveLength(0);
    });

    it('refuses bytes that are not UTF-8 with 400 and -32700, answering the id it could read', async () => {
      const body = Buffer.concat([Buffer.from(`{"jsonrpc":"2.0","id":"call-8","method":"tools/call","params":{"name":"${quoteName}","arguments":{"weightKg":1,"country":"P`), Buffer.from([0xc3, 0x28]), Buffer.from('"}}}')]);
      const res = await rpc(body);
      expect(res.status).toBe(400);
      expect(await res.json()).toMatchObject({ jsonrpc: '2.0', id: 'call-8', error: { code: -32700, message: expect.stringMatching(/^The request body is not valid UTF-8 \(at byte \d+\)/), data: { code: 'VALIDATION_ERROR' } } });
      expect(endpoint.requests).toHaveLength(0);
    });
  });

  describe('HTTP-level refusals', () => {
    const initialize = JSON.stringify({
      jsonrpc: '2.0', id: 1, method: 'initialize',
      params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
    });
    const post = (headers: Record<string, string>, path = '/mcp') => fetch(`${base}${path}`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream', ...headers },
      body: initialize,
    });

    it('401 with WWW-Authenticate without a key, and with error="invalid_token" for a bad one', async () => {
      const none = await post({});
      expect(none.status).toBe(401);
      expect(none.headers.get('www-authenticate')).toBe('Bearer realm="switchboard", resource_metadata="http://localhost:3000/.well-known/oauth-protected-resource/mcp", scope="mcp:tools"');
      expect(await none.json()).toMatchObject({ jsonrpc: '2.0', id: null, error: { code: -32000, data: { code: 'UNAUTHORIZED' } } });

      for (const bad of [`svc_agt_${'x'.repeat(40)}`, org.apiKey]) {
        const res = await post({ Authorization: `Bearer ${bad}` });
        expect(res.status).toBe(401);
        expect(res.headers.get('www-authenticate')).toBe('Bearer realm="switchboard", resource_metadata="http://localhost:3000/.well-known/oauth-protected-resource/mcp", error="invalid_token", scope="mcp:tools"');
        expect(await res.json()).toMatchObject({ error: { data: { code: 'INVALID_TOKEN' } } });
      }
    });

    it('refuses a key in the query string with 401, even beside a valid header', async () => {
      for (const query of [`?key=${agentKey}`, `?access_token=${agentKey}`, `?x=${agentKey}`]) {
        const res = await post({ Authorization: `Bearer ${agentKey}` }, `/mcp${query}`);
        expect(res.status, query).toBe(401);
        expect(res.headers.get('www-authenticate')).toMatch(/^Bearer realm="switchboard", error="invalid_request"/);
        expect(await res.text()).not.toContain(agentKey);
      }
    });

    it('403 for an Origin that is not the service\'s own; the own origin and no Origin pass', async () => {
      const bad = await post({ Authorization: `Bearer ${agentKey}`, Origin: 'https://evil.example' });
      expect(bad.status).toBe(403);
      expect(await bad.json()).toMatchObject({ error: { data: { code: 'FORBIDDEN' } } });
      const nullOrigin = await post({ Authorization: `Bearer ${agentKey}`, Origin: 'null' });
      expect(nullOrigin.status).toBe(403);
      const own = await post({ Authorization: `Bearer ${agentKey}`, Origin: 'http://localhost:3000' });
      expect(own.status).toBe(200);
      // 2025-era answers are one JSON body, not a one-event SSE stream.
      expect(own.headers.get('content-type')).toMatch(/^application\/json/);
      expect(own.headers.get('mcp-session-id')).toBeNull();
      expect(await own.json()).toMatchObject({ jsonrpc: '2.0', id: 1, result: { protocolVersion: '2025-11-25', serverInfo: { name: 'switchboard' } } });
      const unauthenticatedBadOrigin = await post({ Origin: 'https://evil.example' });
      expect(unauthenticatedBadOrigin.status).toBe(403);
    });

    it('answers GET and DELETE with 405 (stateless: no SSE stream, no sessions)', async () => {
      for (const method of ['GET', 'DELETE']) {
        const res = await fetch(`${base}/mcp`, { method, headers: { Authorization: `Bearer ${agentKey}`, Accept: 'text/event-stream' } });
        expect(res.status, method).toBe(405);
        expect(res.headers.get('allow')).toBe('POST');
        const body = await res.json();
        expect(body).toMatchObject({ jsonrpc: '2.0', error: { code: -32000 } });
        // The one error handler's JSON-RPC shape: no id (no body to read one from), our code in data.
        expect(body).toMatchObject({ id: null, error: { message: expect.stringMatching(/^Method not allowed: /), data: { code: 'METHOD_NOT_ALLOWED', requestId: expect.any(String) } } });
      }
    });

    it('answers a body that is not JSON as a JSON-RPC parse error, and another media type with 415', async () => {
      const garbled = await fetch(`${base}/mcp`, { method: 'POST', headers: { Authorization: `Bearer ${agentKey}`, 'Content-Type': 'application/json' }, body: '{"jsonrpc":' });
      expect(garbled.status).toBe(400);
      expect(await garbled.json()).toMatchObject({ error: { code: -32700 } });
      const text = await fetch(`${base}/mcp`, { method: 'POST', headers: { Authorization: `Bearer ${agentKey}`, 'Content-Type': 'text/plain' }, body: initialize });
      expect(text.status).toBe(415);
    });

    it('answers an unknown method as a JSON-RPC error, not an HTTP failure', async () => {
      const res = await fetch(`${base}/mcp`, {
        method: 'POST',
        headers: { Authorization: `Bearer ${agentKey}`, 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream', 'MCP-Protocol-Version': '2025-11-25' },
        body: JSON.stringify({ jsonrpc: '2.0', id: 7, method: 'prompts/list', params: {} }),
      });
      const text = await res.text();
      expect(text).toContain('"id":7');
      expect(text).toMatch(/"code":-32601/);
    });
  });
});
