import { request } from 'node:http';
import type { AddressInfo } from 'node:net';
import { sql } from 'kysely';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createTestContext, testDialects, type TestContext } from '../../test/support/context.js';
import { developerSession } from '../../test/support/factories.js';
import { delayed, json, startHttpsEndpoint, type HttpsEndpoint } from '../../test/support/https-endpoint.js';
import { createAgent, install, toolEndpointOptions } from '../../test/support/invocation-factories.js';
import { createOrgWithKey, orgCaller, type OrgWithKey } from '../../test/support/org-factories.js';
import { createTool, publishTool } from '../../test/support/tools-factories.js';

/**
 * A tool call is answered only once its call-log row is committed, on every path a call is made:
 * the Operator API, MCP tools/call (the direct path and the SDK's), and the developer's test call.
 * So a caller holding an answer can read its row at once, and a row the database refuses turns the
 * answer into 503 SERVICE_UNAVAILABLE with the callId. The calls reach a real HTTPS endpoint on
 * 127.0.0.1 (test CA); nothing connects anywhere else.
 */
const MCP_HEADERS = { accept: 'application/json, text/event-stream', 'content-type': 'application/json', 'mcp-protocol-version': '2025-11-25' };

describe.each(testDialects())('calls answered only once logged, on %s', (dialect) => {
  let t: TestContext;
  let endpoint: HttpsEndpoint;
  let org: OrgWithKey;
  let agent: { id: string };
  let agentKey: string;
  let devAuth: Record<string, string>;
  let draftId: string;
  let name: string;
  let call: ReturnType<typeof orgCaller>;

  beforeAll(async () => {
    endpoint = await startHttpsEndpoint();
    t = await createTestContext(dialect, toolEndpointOptions(endpoint));
    call = orgCaller(t.app);
    const dev = await developerSession(t.database, t.clock, t.app);
    devAuth = dev.auth;
    org = await createOrgWithKey(t.database, t.clock);
    agent = await createAgent(t.app, org);
    const endpointUrl = `https://tool.test:${endpoint.port}/quote`;
    const tool = await publishTool(t.app, dev.auth, (await createTool(t.app, dev.auth, { endpoint: endpointUrl })).id);
    name = (await install(t.app, org, { toolId: tool.id })).name;
    draftId = (await createTool(t.app, dev.auth, { endpoint: endpointUrl })).id;
    const key = await call('POST', `/api/org/agents/${agent.id}/keys`, org, { name: 'logged calls' });
    agentKey = (key.json() as { data: { key: string } }).data.key;
  });
  afterEach(async () => {
    await acceptRows();
    endpoint.respond(json(200, { ok: true }));
    endpoint.reset();
  });
  afterAll(async () => {
    await t.close();
    await endpoint.close();
  });

  const args = { weightKg: 2.5, country: 'PT' };
  const rowOf = (callId: string) => t.database.db.selectFrom('tool_calls').select(['id', 'path', 'outcome']).where('id', '=', callId).executeTakeFirst();
  const rowCount = async () => Number((await t.database.db.selectFrom('tool_calls').select((eb) => eb.fn.countAll().as('n')).executeTakeFirstOrThrow()).n);
  /** The callId the endpoint received in `_svc_context` (an MCP result does not carry it). */
  const sentCallId = (index = 0) => (JSON.parse(endpoint.requests[index]!.body.toString('utf8')) as { _svc_context: { callId: string } })._svc_context.callId;

  const operatorCall = (body: unknown = { name, arguments: args }) => call('POST', `/api/org/agents/${agent.id}/tool-calls`, org, body);
  /** A plain tools/call (the direct path), or with a progress token in `_meta`, which only the SDK's path takes. */
  const mcpCall = (viaSdk: boolean) => t.app.inject({
    method: 'POST', url: '/mcp', headers: { ...MCP_HEADERS, authorization: `Bearer ${agentKey}` },
    payload: { jsonrpc: '2.0', id: 7, method: 'tools/call', params: { name, arguments: args, ...(viaSdk ? { _meta: { progressToken: 'p1' } } : {}) } },
  });
  const testCall = () => t.app.inject({ method: 'POST', url: `/api/dev/tools/${draftId}/test`, headers: devAuth, payload: { arguments: args } });

  /** Makes the database refuse every call-log row (a trigger), as a full disk or a failing database would. */
  async function refuseRows(): Promise<void> {
    if (dialect === 'sqlite') {
      await sql`create trigger refuse_call_rows before insert on tool_calls begin select raise(abort, 'call log refused by the test'); end`.execute(t.database.db);
    } else {
      await sql`create or replace function refuse_call_rows() returns trigger language plpgsql as $$ begin raise exception 'call log refused by the test'; end $$`.execute(t.database.db);
      await sql`create trigger refuse_call_rows before insert on tool_calls for each statement execute function refuse_call_rows()`.execute(t.database.db);
    }
  }
  async function acceptRows(): Promise<void> {
    await sql.raw(dialect === 'sqlite' ? 'drop trigger if exists refuse_call_rows' : 'drop trigger if exists refuse_call_rows on tool_calls').execute(t.database.db);
  }

  it('has the row of every answered call readable at once, on every path (no flush, no waiting)', async () => {
    const ok = await operatorCall();
    expect(ok.statusCode).toBe(200);
    expect(await rowOf(ok.json().data.callId)).toEqual({ id: ok.json().data.callId, path: 'operator', outcome: 'OK' });

    const refused = await operatorCall({ name, arguments: { weightKg: 'heavy' } });
    expect(refused.statusCode).toBe(400);
    expect(await rowOf(refused.json().callId)).toMatchObject({ path: 'operator', outcome: 'INVALID_ARGUMENTS' });

    for (const [index, viaSdk] of [[1, false], [2, true]] as const) {
      const res = await mcpCall(viaSdk);
      expect(res.statusCode).toBe(200);
      expect(res.json()).toMatchObject({ id: 7, result: { structuredContent: { ok: true } } });
      expect(await rowOf(sentCallId(index))).toMatchObject({ path: 'mcp', outcome: 'OK' });
    }

    const tested = await testCall();
    expect(tested.statusCode).toBe(200);
    expect(await rowOf(tested.json().data.callId)).toMatchObject({ path: 'test', outcome: 'OK' });
  });

  it('answers 503 SERVICE_UNAVAILABLE with Retry-After and the callId when the row cannot be written, on every path, and logs the calls again once it can', async () => {
    const before = await rowCount();
    await refuseRows();

    const res = await operatorCall();
    expect(endpoint.requests).toHaveLength(1);
    expect(res.statusCode).toBe(503);
    expect(res.headers['retry-after']).toBe('5');
    expect(res.json()).toEqual({
      success: false, code: 'SERVICE_UNAVAILABLE', callId: sentCallId(0), requestId: expect.any(String),
      error: 'The tool\'s endpoint was called, but the call could not be recorded in the call log, so its outcome is withheld. Calling again calls the endpoint again. Try again in a few seconds.',
    });
    expect(JSON.stringify(res.json())).not.toContain('refused by the test');

    // Nothing was sent for invalid arguments, and the answer says so.
    const invalid = await operatorCall({ name, arguments: { weightKg: 'heavy' } });
    expect(invalid.statusCode).toBe(503);
    expect(invalid.json()).toMatchObject({ code: 'SERVICE_UNAVAILABLE', callId: expect.stringMatching(/^call_/), error: expect.stringContaining('Nothing was sent to the tool.') });
    expect(endpoint.requests).toHaveLength(1);

    // MCP, either path: a JSON-RPC internal error in the same words, with the callId, never the database's message.
    for (const [index, viaSdk] of [[1, false], [2, true]] as const) {
      const answer = await mcpCall(viaSdk);
      expect(answer.statusCode).toBe(200);
      expect(answer.json()).toEqual({
        jsonrpc: '2.0', id: 7,
        error: { code: -32603, message: res.json().error, data: { code: 'SERVICE_UNAVAILABLE', callId: sentCallId(index) } },
      });
    }

    const tested = await testCall();
    expect(tested.statusCode).toBe(503);
    expect(tested.headers['retry-after']).toBe('5');
    expect(tested.json()).toMatchObject({ code: 'SERVICE_UNAVAILABLE', callId: sentCallId(3), error: res.json().error });

    expect(endpoint.requests).toHaveLength(4);
    expect(await rowCount()).toBe(before);

    // The database takes rows again: so do the calls, without a restart.
    await acceptRows();
    const again = await operatorCall();
    expect(again.statusCode).toBe(200);
    expect(await rowOf(again.json().data.callId)).toMatchObject({ outcome: 'OK' });
  });

  it('writes the rows of calls still in flight at shutdown before the app finishes closing', async () => {
    const ctx = await createTestContext(dialect, toolEndpointOptions(endpoint));
    try {
      const owner = await createOrgWithKey(ctx.database, ctx.clock);
      const bot = await createAgent(ctx.app, owner);
      const dev = await developerSession(ctx.database, ctx.clock, ctx.app);
      const tool = await publishTool(ctx.app, dev.auth, (await createTool(ctx.app, dev.auth, { endpoint: `https://tool.test:${endpoint.port}/slow` })).id);
      const toolName = (await install(ctx.app, owner, { toolId: tool.id })).name;
      await ctx.app.listen({ host: '127.0.0.1', port: 0 });
      const base = `http://127.0.0.1:${(ctx.app.server.address() as AddressInfo).port}`;

      endpoint.respond(delayed(300, json(200, { late: true })));
      // One request on a connection of its own (no keep-alive to hold the closing server open).
      const inFlight = new Promise<{ status: number; body: string }>((resolve, reject) => {
        const req = request(`${base}/api/org/agents/${bot.id}/tool-calls`, { method: 'POST', agent: false, headers: { ...owner.auth, 'content-type': 'application/json' } }, (res) => {
          let body = '';
          res.setEncoding('utf8').on('data', (chunk: string) => { body += chunk; }).on('end', () => resolve({ status: res.statusCode ?? 0, body }));
        });
        req.on('error', reject).end(JSON.stringify({ name: toolName, arguments: args }));
      });
      await expect.poll(() => endpoint.requests.length, { timeout: 5000 }).toBe(1);
      // SIGTERM's path (server.ts): the app closes, then the database.
      const closed = ctx.app.close();
      const answer = await inFlight;
      expect(answer.status).toBe(200);
      const callId = (JSON.parse(answer.body) as { data: { callId: string } }).data.callId;
      await closed;
      const row = await ctx.database.db.selectFrom('tool_calls').select(['id', 'outcome']).where('id', '=', callId).executeTakeFirst();
      expect(row).toEqual({ id: callId, outcome: 'OK' });
    } finally {
      await ctx.close();
    }
  });
});
