import { createHmac } from 'node:crypto';
import { Writable } from 'node:stream';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createTestContext, testDialects, type TestContext } from '../../test/support/context.js';
import { developerSession } from '../../test/support/factories.js';
import { closedPort, delayed, json, raw, redirect, startHttpsEndpoint, streamed, type HttpsEndpoint, type RecordedRequest } from '../../test/support/https-endpoint.js';
import { createAgent, install, toolEndpointOptions } from '../../test/support/invocation-factories.js';
import { createOrgWithKey, orgCaller, type OrgWithKey } from '../../test/support/org-factories.js';
import { createTool, fixedResolver, publishTool, TEST_DNS, updateTool } from '../../test/support/tools-factories.js';
import { MAX_JSON_DEPTH } from '../lib/json.js';
import { VERSION } from '../version.js';

/**
 * Calls through POST /api/org/agents/{id}/tool-calls to a real HTTPS endpoint on
 * 127.0.0.1 (test CA, private endpoints allowed). No test connects anywhere else.
 */
type Session = Awaited<ReturnType<typeof developerSession>>;

const CREDENTIALS = {
  apiKey: 'k3y-for-the-endpoint',
  token: 'bearer-token-for-the-endpoint',
  username: 'shop-user',
  password: 'pä55:word',
  secret: 'whsec_shared_hmac_secret',
};

/** The HMAC as a receiver computes it, independently of the product's signer. */
function expectedSignature(secret: string, timestamp: string, body: Buffer): string {
  return `sha256=${createHmac('sha256', secret).update(`${timestamp}.`).update(body).digest('hex')}`;
}

describe.each(testDialects())('tool calls on %s', (dialect) => {
  let t: TestContext;
  let endpoint: HttpsEndpoint;
  let dev: Session;
  let org: OrgWithKey;
  let other: OrgWithKey;
  let agent: { id: string };
  let call: ReturnType<typeof orgCaller>;
  let url: (path: string) => string;
  const logs: string[] = [];

  beforeAll(async () => {
    endpoint = await startHttpsEndpoint();
    url = (path) => `https://tool.test:${endpoint.port}${path}`;
    const options = toolEndpointOptions(endpoint, { TOOL_CALL_TIMEOUT_MS: '1000', LOG_LEVEL: 'trace' });
    t = await createTestContext(dialect, {
      ...options,
      deps: { ...options.deps, logStream: new Writable({ write(chunk, _encoding, done) { logs.push(String(chunk)); done(); } }) },
    });
    call = orgCaller(t.app);
    dev = await developerSession(t.database, t.clock, t.app);
    [org, other] = await Promise.all([createOrgWithKey(t.database, t.clock), createOrgWithKey(t.database, t.clock)]);
    agent = await createAgent(t.app, org);
  });
  afterEach(() => {
    endpoint.respond(json(200, { ok: true }));
    endpoint.reset();
  });
  afterAll(async () => {
    await t.close();
    await endpoint.close();
  });

  /** Publishes a tool and installs it for the org's agents. */
  async function installed(spec: Record<string, unknown>, credentials?: Record<string, string>, who: OrgWithKey = org) {
    const tool = await publishTool(t.app, dev.auth, (await createTool(t.app, dev.auth, { endpoint: url('/hook?v=1'), ...spec })).id);
    const inst = await install(t.app, who, { toolId: tool.id, ...(credentials ? { credentials } : {}) });
    return { tool, inst };
  }

  const run = (name: string, args: unknown, who: OrgWithKey = org, agentId = agent.id) =>
    call('POST', `/api/org/agents/${agentId}/tool-calls`, who, { name, arguments: args });

  function only(): RecordedRequest {
    expect(endpoint.requests).toHaveLength(1);
    return endpoint.requests[0]!;
  }

  const AUTH_CASES: Array<[string, Record<string, string> | undefined, (r: RecordedRequest) => void]> = [
    ['none', undefined, (r) => { expect(r.headers.authorization).toBeUndefined(); expect(r.headers['x-api-key']).toBeUndefined(); }],
    ['api_key', { apiKey: CREDENTIALS.apiKey }, (r) => expect(r.headers['x-api-key']).toBe(CREDENTIALS.apiKey)],
    ['bearer', { token: CREDENTIALS.token }, (r) => expect(r.headers.authorization).toBe(`Bearer ${CREDENTIALS.token}`)],
    ['basic', { username: CREDENTIALS.username, password: CREDENTIALS.password }, (r) =>
      expect(r.headers.authorization).toBe(`Basic ${Buffer.from(`${CREDENTIALS.username}:${CREDENTIALS.password}`).toString('base64')}`)],
    ['hmac', { secret: CREDENTIALS.secret }, (r) => {
      const timestamp = String(r.headers['x-svc-timestamp']);
      expect(timestamp).toMatch(/^\d{10}$/);
      expect(r.headers['x-svc-signature']).toBe(expectedSignature(CREDENTIALS.secret, timestamp, r.body));
      const changed = Buffer.from(r.body);
      changed[changed.length - 2] = changed[changed.length - 2]! ^ 1;
      expect(r.headers['x-svc-signature']).not.toBe(expectedSignature(CREDENTIALS.secret, timestamp, changed));
      expect(r.headers['x-svc-signature']).not.toBe(expectedSignature('another-secret', timestamp, r.body));
    }],
  ];

  for (const [authType, credentials, checkAuth] of AUTH_CASES) {
    for (const method of authType === 'hmac' ? ['POST', 'GET', 'PUT', 'PATCH', 'DELETE'] : ['POST']) {
      it(`sends exactly the spec's body and headers: ${authType}, ${method}`, async () => {
        const { tool } = await installed({ name: `t_${authType}_${method}`.toLowerCase(), authType, method }, credentials);
        endpoint.respond(json(200, { quote: 12.5, currency: 'EUR' }));
        const res = await run(tool.name, { weightKg: 2.5, country: 'PT' });
        expect(res.statusCode).toBe(200);
        const data = res.json().data;
        expect(data).toEqual({ callId: expect.stringMatching(/^call_/), status: 200, durationMs: expect.any(Number), result: { quote: 12.5, currency: 'EUR' } });

        const received = only();
        expect(received.method).toBe(method);
        expect(received.path).toBe('/hook?v=1');
        expect(received.headers['content-type']).toBe('application/json');
        expect(received.headers.accept).toBe('application/json');
        expect(received.headers['user-agent']).toBe(`Switchboard/${VERSION}`);
        const body = JSON.parse(received.body.toString('utf8'));
        expect(body).toEqual({
          weightKg: 2.5,
          country: 'PT',
          _svc_context: { agentId: agent.id, orgId: org.orgId, timestamp: expect.any(String), callId: data.callId, toolId: tool.id },
        });
        expect(new Date(body._svc_context.timestamp).toISOString()).toBe(body._svc_context.timestamp);
        checkAuth(received);
        // Credentials never come back.
        for (const value of Object.values(CREDENTIALS)) expect(res.body).not.toContain(value);
      });
    }
  }

  it('sends the api key in the header the tool names', async () => {
    const { tool } = await installed({ name: 'custom_header', authType: 'api_key', apiKeyHeader: 'X-Shop-Key' }, { apiKey: CREDENTIALS.apiKey });
    expect((await run(tool.name, { weightKg: 1, country: 'PT' })).statusCode).toBe(200);
    expect(only().headers['x-shop-key']).toBe(CREDENTIALS.apiKey);
    expect(only().headers['x-api-key']).toBeUndefined();
  });

  it('accepts the arguments as the JSON string OpenAI gives', async () => {
    const { tool } = await installed({ name: 'stringly' });
    const res = await run(tool.name, JSON.stringify({ weightKg: 3, country: 'FR' }));
    expect(res.statusCode).toBe(200);
    expect(JSON.parse(only().body.toString())).toMatchObject({ weightKg: 3, country: 'FR' });
    const bad = await run(tool.name, '{not json');
    expect(bad.statusCode).toBe(400);
    expect(bad.json().code).toBe('INVALID_ARGUMENTS');
  });

  it('refuses invalid arguments with details and sends nothing', async () => {
    const { tool } = await installed({ name: 'strict' });
    const res = await run(tool.name, { weightKg: 'heavy', extra: 1, _svc_context: {} });
    expect(res.statusCode).toBe(400);
    const error = res.json();
    expect(error.code).toBe('INVALID_ARGUMENTS');
    expect(error.callId).toMatch(/^call_/);
    expect(error.details.map((d: { path: string }) => d.path).sort()).toEqual(['_svc_context', 'country', 'extra', 'weightKg']);
    expect(endpoint.requests).toHaveLength(0);
    expect(endpoint.connections).toBe(0);
  });

  describe(`nesting depth: ${MAX_JSON_DEPTH} levels per JSON document, the body's own braces counting as the first`, () => {
    const nested = (levels: number): unknown => {
      let value: unknown = [];
      for (let level = 1; level < levels; level++) value = [value];
      return value;
    };
    const depthOf = (value: unknown): number => {
      let depth = 0;
      for (let node = value; Array.isArray(node); node = node[0]) depth++;
      return depth;
    };
    const LIST = { parameters: [{ name: 'items', type: 'array', description: 'Anything, nested.', required: true }] };

    it(`takes arguments that make a ${MAX_JSON_DEPTH}-level body and refuses ${MAX_JSON_DEPTH + 1} levels with 400, sending nothing`, async () => {
      const { tool } = await installed({ name: 'nested_list', ...LIST });
      // {name, arguments: {items: …}}: the body and `arguments` are two levels, so items may nest 62.
      const deepest = await run(tool.name, { items: nested(MAX_JSON_DEPTH - 2) });
      expect(deepest.statusCode).toBe(200);
      expect(depthOf((JSON.parse(only().body.toString()) as { items: unknown }).items)).toBe(MAX_JSON_DEPTH - 2);
      endpoint.reset();

      const past = await run(tool.name, { items: nested(MAX_JSON_DEPTH - 1) });
      expect(past.statusCode).toBe(400);
      expect(past.json()).toMatchObject({
        code: 'VALIDATION_ERROR', field: 'arguments',
        error: `The request body nests objects and arrays more than ${MAX_JSON_DEPTH} levels deep (in "arguments"). Send at most ${MAX_JSON_DEPTH} levels.`,
      });
      expect(endpoint.requests).toHaveLength(0);
    });

    it('holds arguments sent as a JSON string to the same limit, on their own', async () => {
      const { tool } = await installed({ name: 'nested_string', ...LIST });
      // Written out, not JSON.stringify'd: V8's stringify itself overflows its stack at a few thousand levels.
      const argumentsText = (levels: number) => `{"items":${'['.repeat(levels)}${']'.repeat(levels)}}`;
      expect((await run(tool.name, argumentsText(MAX_JSON_DEPTH - 1))).statusCode).toBe(200);
      endpoint.reset();
      for (const levels of [MAX_JSON_DEPTH, 10_000]) {
        const res = await run(tool.name, argumentsText(levels));
        expect(res.statusCode, `${levels}`).toBe(400);
        expect(res.json()).toMatchObject({ code: 'INVALID_ARGUMENTS', error: expect.stringContaining(`more than ${MAX_JSON_DEPTH} levels deep`) });
      }
      expect(endpoint.requests).toHaveLength(0);
    });

    it(`answers 502 TOOL_INVALID_RESPONSE, not 500, when the endpoint's JSON nests deeper than ${MAX_JSON_DEPTH} levels`, async () => {
      const { tool } = await installed({ name: 'deep_answer' });
      endpoint.respond(raw(200, '['.repeat(MAX_JSON_DEPTH) + ']'.repeat(MAX_JSON_DEPTH), 'application/json'));
      expect((await run(tool.name, { weightKg: 1, country: 'PT' })).statusCode).toBe(200);
      for (const levels of [MAX_JSON_DEPTH + 1, 10_000]) {
        endpoint.respond(raw(200, '['.repeat(levels) + ']'.repeat(levels), 'application/json'));
        const res = await run(tool.name, { weightKg: 1, country: 'PT' });
        expect(res.statusCode, `${levels}`).toBe(502);
        expect(res.json()).toMatchObject({ code: 'TOOL_INVALID_RESPONSE', error: expect.stringContaining(`nested more than ${MAX_JSON_DEPTH} levels deep`) });
      }
      // An error answer's body is only echoed when it is within the limit too.
      endpoint.respond(raw(500, '['.repeat(10_000) + ']'.repeat(10_000), 'application/json'));
      const failed = await run(tool.name, { weightKg: 1, country: 'PT' });
      expect(failed.statusCode).toBe(502);
      expect(failed.json()).toMatchObject({ code: 'TOOL_HTTP_ERROR', status: 500 });
      expect(failed.json().body).toBeUndefined();
    });
  });

  it('answers 409 TOOL_CREDENTIALS_MISSING when the installation has no credentials, and sends nothing', async () => {
    const { tool } = await installed({ name: 'needs_token', authType: 'bearer' });
    const res = await run(tool.name, { weightKg: 1, country: 'PT' });
    expect(res.statusCode).toBe(409);
    expect(res.json()).toMatchObject({ code: 'TOOL_CREDENTIALS_MISSING', callId: expect.stringMatching(/^call_/) });
    expect(endpoint.requests).toHaveLength(0);
  });

  it.each([
    ['a 4xx with JSON', () => json(404, { error: 'no such parcel' }), 502, 'TOOL_HTTP_ERROR', { status: 404, body: { error: 'no such parcel' } }],
    ['a 5xx without JSON', () => raw(503, 'down for maintenance', 'text/plain'), 502, 'TOOL_HTTP_ERROR', { status: 503 }],
    ['a 3xx, not followed', () => redirect(302, 'https://tool.test/elsewhere'), 502, 'TOOL_HTTP_ERROR', { status: 302 }],
    ['a non-JSON 200', () => raw(200, '<html>hi</html>', 'text/html'), 502, 'TOOL_INVALID_RESPONSE', {}],
    ['a 100 KB + 1 response', () => streamed(100 * 1024 + 1).responder, 502, 'TOOL_RESPONSE_TOO_LARGE', {}],
    ['no answer within TOOL_CALL_TIMEOUT_MS', () => delayed(3000, json(200, { late: true })), 504, 'TOOL_TIMEOUT', {}],
  ] as const)('maps %s to its outcome with callId', async (_what, responder, status, code, extra) => {
    const { tool } = await installed({ name: `outcome_${code.toLowerCase()}_${status}_${Math.random().toString(36).slice(2, 6)}` });
    endpoint.respond(responder());
    const res = await run(tool.name, { weightKg: 1, country: 'PT' });
    expect(res.statusCode).toBe(status);
    const error = res.json();
    expect(error).toMatchObject({ success: false, code, callId: expect.stringMatching(/^call_/), ...extra });
    if (!('body' in extra)) expect(error.body).toBeUndefined();
    expect(endpoint.requests).toHaveLength(1);
  });

  it('maps a refused connection to 502 TOOL_UNREACHABLE', async () => {
    const port = await closedPort();
    const tool = await publishTool(t.app, dev.auth, (await createTool(t.app, dev.auth, { name: 'refused', endpoint: `https://tool.test:${port}/x` })).id);
    await install(t.app, org, { toolId: tool.id });
    const res = await run('refused', { weightKg: 1, country: 'PT' });
    expect(res.statusCode).toBe(502);
    expect(res.json()).toMatchObject({ code: 'TOOL_UNREACHABLE', callId: expect.stringMatching(/^call_/) });
  });

  it('stops at once when the tool is unpublished, and uses a newly published revision from the next call', async () => {
    const { tool, inst } = await installed({ name: 'evolving' });
    expect((await run('evolving', { weightKg: 1, country: 'PT' })).statusCode).toBe(200);
    await t.app.inject({ method: 'POST', url: `/api/dev/tools/${tool.id}/unpublish`, headers: dev.auth });
    const stopped = await run('evolving', { weightKg: 1, country: 'PT' });
    expect(stopped.statusCode).toBe(404);
    expect(stopped.json().code).toBe('TOOL_NOT_ENABLED');
    expect((await call('GET', `/api/org/agents/${agent.id}/tools`, org)).body).not.toContain('evolving');
    expect((await call('GET', `/api/org/installations/${inst.id}`, org)).json().data).toMatchObject({ enabled: false, toolName: null, name: null, authType: null });

    await updateTool(t.app, dev.auth, tool.id, { parameters: [{ name: 'sku', type: 'string', required: true }], endpoint: url('/v2') });
    await publishTool(t.app, dev.auth, tool.id);
    endpoint.reset();
    const res = await run('evolving', { sku: 'A-1' });
    expect(res.statusCode).toBe(200);
    expect(only().path).toBe('/v2');
    expect(JSON.parse(only().body.toString())).toMatchObject({ sku: 'A-1' });
  });

  it('stops at once when the tool is deleted', async () => {
    const { tool } = await installed({ name: 'doomed' });
    expect((await run('doomed', { weightKg: 1, country: 'PT' })).statusCode).toBe(200);
    await t.app.inject({ method: 'DELETE', url: `/api/dev/tools/${tool.id}`, headers: dev.auth });
    const res = await run('doomed', { weightKg: 1, country: 'PT' });
    expect(res.statusCode).toBe(404);
    expect(res.json().code).toBe('TOOL_NOT_ENABLED');
  });

  it('answers TOOL_NOT_ENABLED for a name the agent does not have, and for an agent outside the installation', async () => {
    expect((await run('no_such_tool', {})).json().code).toBe('TOOL_NOT_ENABLED');
    const b = await createAgent(t.app, org, 'B');
    const c = await createAgent(t.app, org, 'C');
    const tool = await publishTool(t.app, dev.auth, (await createTool(t.app, dev.auth, { name: 'only_b', endpoint: url('/b') })).id);
    await install(t.app, org, { toolId: tool.id, agentIds: [b.id] });
    expect((await run('only_b', { weightKg: 1, country: 'PT' }, org, b.id)).statusCode).toBe(200);
    expect((await run('only_b', { weightKg: 1, country: 'PT' }, org, c.id)).json().code).toBe('TOOL_NOT_ENABLED');
  });

  it('lists the agent\'s tools in the openai, anthropic and mcp shapes', async () => {
    const fresh = await createOrgWithKey(t.database, t.clock);
    const a = await createAgent(t.app, fresh);
    const tool = await publishTool(t.app, dev.auth, (await createTool(t.app, dev.auth, {
      name: 'shapes', description: 'Shapes of things.', endpoint: url('/s'),
      parameters: [{ name: 'sizes', type: 'array', items: 'number', description: 'Sizes.', required: true }, { name: 'note', type: 'string' }],
    })).id);
    await install(t.app, fresh, { toolId: tool.id, alias: 'shaper' });
    const schema = { type: 'object', properties: { sizes: { type: 'array', description: 'Sizes.', items: { type: 'number' } }, note: { type: 'string' } }, required: ['sizes'], additionalProperties: false };
    const get = async (query: string) => {
      const res = await call('GET', `/api/org/agents/${a.id}/tools${query}`, fresh);
      expect(res.statusCode).toBe(200);
      return res.json().data;
    };
    expect(await get('')).toEqual({ format: 'openai', tools: [{ type: 'function', function: { name: 'shaper', description: 'Shapes of things.', parameters: schema } }] });
    expect(await get('?format=anthropic')).toEqual({ format: 'anthropic', tools: [{ name: 'shaper', description: 'Shapes of things.', input_schema: schema }] });
    expect(await get('?format=mcp')).toEqual({ format: 'mcp', tools: [{ name: 'shaper', description: 'Shapes of things.', inputSchema: schema }] });
    expect((await call('GET', `/api/org/agents/${a.id}/tools?format=gemini`, fresh)).statusCode).toBe(400);
  });

  it('lists the agent\'s tools in the OpenAI Responses shape, strict only when every parameter is required', async () => {
    const fresh = await createOrgWithKey(t.database, t.clock);
    const a = await createAgent(t.app, fresh);
    const publish = async (name: string, parameters: object[]) => {
      const tool = await publishTool(t.app, dev.auth, (await createTool(t.app, dev.auth, { name, description: 'Shapes of things.', endpoint: url('/s'), parameters })).id);
      await install(t.app, fresh, { toolId: tool.id });
      t.clock.advance(1000); // oldest installation first: a fixed order
    };
    await publish('loose_shapes', [{ name: 'sizes', type: 'array', items: 'number', description: 'Sizes.', required: true }, { name: 'note', type: 'string' }]);
    await publish('strict_shapes', [{ name: 'sizes', type: 'array', items: 'number', description: 'Sizes.', required: true }]);
    const res = await call('GET', `/api/org/agents/${a.id}/tools?format=openai-responses`, fresh);
    expect(res.statusCode).toBe(200);
    // Byte for byte what the Responses API's `tools` takes: the flat function tool, strict said either way.
    expect(res.body).toBe(
      '{"success":true,"data":{"format":"openai-responses","tools":[' +
        '{"type":"function","name":"loose_shapes","description":"Shapes of things.","parameters":{"type":"object","properties":' +
        '{"sizes":{"type":"array","description":"Sizes.","items":{"type":"number"}},"note":{"type":"string"}},"required":["sizes"],"additionalProperties":false},"strict":false},' +
        '{"type":"function","name":"strict_shapes","description":"Shapes of things.","parameters":{"type":"object","properties":' +
        '{"sizes":{"type":"array","description":"Sizes.","items":{"type":"number"}}},"required":["sizes"],"additionalProperties":false},"strict":true}]}}',
    );
    const unknown = await call('GET', `/api/org/agents/${a.id}/tools?format=openai-chat`, fresh);
    expect(unknown.statusCode).toBe(400);
    expect(unknown.json()).toMatchObject({ success: false, code: 'VALIDATION_ERROR' });
    expect(unknown.json().error).toContain('openai-responses');
  });

  it('keeps organizations apart: org B cannot list or call org A\'s agent tools, nor see its calls', async () => {
    await installed({ name: 'private_a' });
    expect((await run('private_a', { weightKg: 1, country: 'PT' }, other)).json().code).toBe('AGENT_NOT_FOUND');
    expect((await call('GET', `/api/org/agents/${agent.id}/tools`, other)).statusCode).toBe(404);
    expect((await call('GET', '/api/org/tool-calls?limit=100', org)).json().data.items.length).toBeGreaterThan(0);
    expect((await call('GET', '/api/org/tool-calls', other)).json().data.items).toEqual([]);
  });

  it('logs every call without payloads, with filters and paging', async () => {
    const fresh = await createOrgWithKey(t.database, t.clock);
    const a = await createAgent(t.app, fresh);
    const { tool } = await installed({ name: 'logged', authType: 'api_key' }, { apiKey: CREDENTIALS.apiKey }, fresh);
    endpoint.respond(json(200, { secretResult: 'result-payload-text' }));
    const ok = await run('logged', { weightKg: 1, country: 'argument-payload-text' }, fresh, a.id);
    expect(ok.statusCode).toBe(200);
    t.clock.advance(10);
    const bad = await run('logged', { weightKg: 'x' }, fresh, a.id);
    t.clock.advance(10);
    endpoint.respond(json(500, { boom: true }));
    const failed = await run('logged', { weightKg: 2, country: 'PT' }, fresh, a.id);
    expect(failed.statusCode).toBe(502);

    // Each call was answered only once its row was committed: all three are readable at once.
    const items: Array<Record<string, unknown>> = (await call('GET', '/api/org/tool-calls', fresh)).json().data.items;
    expect(items).toHaveLength(3);
    expect(items.map((i) => i.id)).toEqual([failed.json().callId, bad.json().callId, ok.json().data.callId]);
    expect(items[2]).toMatchObject({
      agentId: a.id, toolId: tool.id, revisionId: expect.stringMatching(/^rev_/), path: 'operator', outcome: 'OK', httpStatus: 200,
      requestBytes: expect.any(Number), responseBytes: expect.any(Number), durationMs: expect.any(Number),
    });
    expect(items[2]!.requestBytes).toBeGreaterThan(50);
    expect(items[1]).toMatchObject({ outcome: 'INVALID_ARGUMENTS', httpStatus: null, requestBytes: 0 });
    expect(items[0]).toMatchObject({ outcome: 'TOOL_HTTP_ERROR', httpStatus: 500 });

    const outcome = await call('GET', '/api/org/tool-calls?outcome=OK', fresh);
    expect(outcome.json().data.items.map((i: { id: string }) => i.id)).toEqual([ok.json().data.callId]);
    expect((await call('GET', `/api/org/tool-calls?toolId=${tool.id}&agentId=${a.id}`, fresh)).json().data.items).toHaveLength(3);
    expect((await call('GET', '/api/org/tool-calls?agentId=agt_nobody', fresh)).json().data.items).toHaveLength(0);
    expect((await call('GET', '/api/org/tool-calls?from=2999-01-01T00:00:00Z', fresh)).json().data.items).toHaveLength(0);
    expect((await call('GET', '/api/org/tool-calls?to=2999-01-01T00:00:00Z', fresh)).json().data.items).toHaveLength(3);
    const page = (await call('GET', '/api/org/tool-calls?limit=2', fresh)).json().data;
    expect(page.items).toHaveLength(2);
    const next = (await call('GET', `/api/org/tool-calls?limit=2&cursor=${page.nextCursor}`, fresh)).json().data;
    expect(next.items.map((i: { id: string }) => i.id)).toEqual([ok.json().data.callId]);

    const rows = await t.database.db.selectFrom('tool_calls').selectAll().where('org_id', '=', fresh.orgId).execute();
    const text = JSON.stringify(rows);
    for (const payload of ['argument-payload-text', 'result-payload-text', 'boom', CREDENTIALS.apiKey]) expect(text).not.toContain(payload);
  });

  it('never writes a credential or a basic/bearer header value to a log line', () => {
    const all = logs.join('');
    expect(all).toContain('tool-calls');
    const basic = Buffer.from(`${CREDENTIALS.username}:${CREDENTIALS.password}`).toString('base64');
    for (const value of [...Object.values(CREDENTIALS), basic]) expect(all).not.toContain(value);
  });
});

describe('tool calls with private endpoints blocked', () => {
  it('refuses a name that resolved to a public address at publish time and to loopback at call time, without connecting', async () => {
    const endpoint = await startHttpsEndpoint();
    const table: Record<string, string[]> = { ...TEST_DNS, 'rebinding.test': ['93.184.215.14'] };
    const t = await createTestContext('sqlite', { env: { TOOL_CA_FILE: endpoint.caFile }, deps: { resolveHost: fixedResolver(table) } });
    try {
      const dev = await developerSession(t.database, t.clock, t.app);
      const org = await createOrgWithKey(t.database, t.clock);
      const agent = await createAgent(t.app, org);
      const tool = await publishTool(t.app, dev.auth, (await createTool(t.app, dev.auth, { name: 'rebinder', endpoint: `https://rebinding.test:${endpoint.port}/x` })).id);
      await install(t.app, org, { toolId: tool.id });
      table['rebinding.test'] = ['127.0.0.1'];
      const res = await orgCaller(t.app)('POST', `/api/org/agents/${agent.id}/tool-calls`, org, { name: 'rebinder', arguments: { weightKg: 1, country: 'PT' } });
      expect(res.statusCode).toBe(403);
      expect(res.json()).toMatchObject({ code: 'TOOL_BLOCKED', callId: expect.stringMatching(/^call_/) });
      expect(endpoint.connections).toBe(0);
    } finally {
      await t.close();
      await endpoint.close();
    }
  });
});
