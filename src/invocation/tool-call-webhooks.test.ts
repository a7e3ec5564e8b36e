import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { testDialects } from '../../test/support/context.js';
import { developerSession } from '../../test/support/factories.js';
import { json, startHttpsEndpoint, type HttpsEndpoint, type Responder } from '../../test/support/https-endpoint.js';
import { createAgent, install, toolHostResolver } from '../../test/support/invocation-factories.js';
import { createOrgWithKey, orgCaller, type OrgWithKey } from '../../test/support/org-factories.js';
import { createTool, publishTool } from '../../test/support/tools-factories.js';
import { createWebhookTestContext, type WebhookTestContext } from '../../test/support/webhook-context.js';
import type { ToolCallsTable } from '../db/tables.js';
import { newTimeOrderedId } from '../lib/ids.js';

/**
 * `tool_call.failed` (docs/webhooks.md): every failed call of an org's agent emits it, written with its
 * call-log row in one transaction, carrying the call's metadata and never its arguments or credentials;
 * an OK call and a developer's test call emit nothing. One loopback HTTPS server is both the tool
 * (`/tool`, at tool.test) and the webhook receiver (`/hook`).
 */
describe.each(testDialects())('tool_call.failed on %s', (dialect) => {
  let t: WebhookTestContext;
  let server: HttpsEndpoint;
  let org: OrgWithKey;
  let call: ReturnType<typeof orgCaller>;
  let toolAnswer: Responder;
  const SECRET_ARGUMENT = 'the-parcel-goes-to-9-Elm-Street';
  const CREDENTIAL = 'k3y-never-in-an-event';

  beforeAll(async () => {
    server = await startHttpsEndpoint();
    server.respond((request, response) => (request.path.startsWith('/tool') ? toolAnswer(request, response) : json(200, { ok: true })(request, response)));
    t = await createWebhookTestContext(dialect, {
      env: { TOOL_ALLOW_PRIVATE_ENDPOINTS: '1', TOOL_CA_FILE: server.caFile, TOOL_CALL_TIMEOUT_MS: '2000' },
      resolveHost: toolHostResolver(),
    });
    call = orgCaller(t.app);
  });
  afterAll(async () => {
    await t.close();
    await server.close();
  });
  beforeEach(async () => {
    org = await createOrgWithKey(t.database, t.clock);
    toolAnswer = json(200, { ok: true });
    server.reset();
  });

  /** A published tool (api_key auth) installed for a new agent of the org. */
  async function agentWithTool() {
    const dev = await developerSession(t.database, t.clock, t.app);
    const tool = await publishTool(t.app, dev.auth, (await createTool(t.app, dev.auth, {
      endpoint: `https://tool.test:${server.port}/tool`,
      authType: 'api_key',
      parameters: [{ name: 'address', type: 'string', description: 'Where the parcel goes.', required: true }],
    })).id);
    const inst = await install(t.app, org, { toolId: tool.id, credentials: { apiKey: CREDENTIAL } });
    const agent = await createAgent(t.app, org);
    return { tool, inst, agent };
  }
  async function webhook(events: string[]) {
    const res = await call('POST', '/api/org/webhooks', org, { url: `https://tool.test:${server.port}/hook`, events });
    expect(res.statusCode, res.body).toBe(201);
  }
  const hookBodies = () => server.requests.filter((request) => request.path === '/hook').map((request) => request.body.toString('utf8'));
  async function delivered(): Promise<string[]> {
    await t.services.webhookWorker.runUntilIdle();
    return hookBodies();
  }
  const eventRows = async () => {
    await t.dispatch();
    return t.database.db.selectFrom('webhook_events').selectAll().where('org_id', '=', org.orgId).execute();
  };
  const callRow = (id: string) => t.database.db.selectFrom('tool_calls').selectAll().where('id', '=', id).executeTakeFirstOrThrow();

  it('a failed operator call is delivered with the call\'s metadata and never its arguments or credentials; an OK call emits nothing', async () => {
    await webhook(['tool_call.failed']);
    const { tool, agent } = await agentWithTool();
    const run = (args: unknown) => call('POST', `/api/org/agents/${agent.id}/tool-calls`, org, { name: tool.name, arguments: args });

    expect((await run({ address: SECRET_ARGUMENT })).statusCode).toBe(200);
    expect(await eventRows()).toEqual([]);

    toolAnswer = json(500, { error: 'down' });
    const failed = await run({ address: SECRET_ARGUMENT });
    expect(failed.statusCode).toBeGreaterThanOrEqual(400);
    const callId = failed.json().callId as string;
    const row = await callRow(callId);
    expect(row.outcome).not.toBe('OK');

    const [body, ...rest] = await delivered();
    expect(rest).toEqual([]);
    expect(JSON.parse(body!)).toEqual({
      id: expect.stringMatching(/^evt_/),
      type: 'tool_call.failed',
      createdAt: row.created_at,
      data: {
        callId,
        tool: { id: tool.id, name: tool.name },
        agentId: agent.id,
        conversationId: null,
        path: 'operator',
        outcome: row.outcome,
        httpStatus: 500,
        durationMs: row.duration_ms,
      },
    });
    expect(body).not.toContain(SECRET_ARGUMENT);
    expect(body).not.toContain(CREDENTIAL);
    expect(body).not.toContain('address');

    // Refused before sending (arguments that do not fit): a failure too, still without the arguments.
    server.reset();
    const invalid = await run({ address: 42, extra: SECRET_ARGUMENT });
    expect(invalid.statusCode).toBe(400);
    expect(invalid.json()).toMatchObject({ code: 'INVALID_ARGUMENTS' });
    const [second] = await delivered();
    expect(JSON.parse(second!).data).toMatchObject({ callId: invalid.json().callId, outcome: 'INVALID_ARGUMENTS', httpStatus: null });
    expect(second).not.toContain(SECRET_ARGUMENT);
  });

  it('MCP and conversation failures emit it, a developer\'s test call does not; a row that cannot be written takes its event with it', async () => {
    await webhook(['tool_call.failed']);
    const { tool, inst, agent } = await agentWithTool();
    const now = t.clock.now().toISOString();
    const row = (path: string, outcome: string, id = newTimeOrderedId('call', now)): ToolCallsTable => ({
      id, org_id: org.orgId, agent_id: agent.id, tool_id: tool.id, revision_id: tool.id, installation_id: inst.id, path, outcome,
      http_status: null, duration_ms: 12, request_bytes: 10, response_bytes: 0, created_at: now, conversation_id: null,
    });
    const mcp = row('mcp', 'TOOL_TIMEOUT');
    const conversation = row('conversation', 'TOOL_UNREACHABLE');
    // In one batch with an OK row and a test call: only the two failures of the org's agent emit.
    await Promise.all([
      t.services.callLog.write(mcp, tool.name),
      t.services.callLog.write(conversation, tool.name),
      t.services.callLog.write(row('mcp', 'OK'), tool.name),
      t.services.callLog.write(row('test', 'TOOL_HTTP_ERROR'), tool.name),
    ]);
    const events = await eventRows();
    expect(events.map((event) => JSON.parse(event.payload).callId).sort()).toEqual([mcp.id, conversation.id].sort());
    expect(events.map((event) => JSON.parse(event.payload).path).sort()).toEqual(['conversation', 'mcp']);

    // The same call id again: the row is refused (primary key), the caller told, and no event is left behind.
    await expect(t.services.callLog.write(row('mcp', 'TOOL_TIMEOUT', mcp.id), tool.name)).rejects.toThrow();
    expect(await eventRows()).toHaveLength(2);
    expect(await delivered()).toHaveLength(2);
  });

  it('an org without webhooks writes no event rows for failed calls', async () => {
    const { tool, agent } = await agentWithTool();
    toolAnswer = json(500, { error: 'down' });
    const failed = await call('POST', `/api/org/agents/${agent.id}/tool-calls`, org, { name: tool.name, arguments: { address: 'x' } });
    expect(failed.statusCode).toBeGreaterThanOrEqual(400);
    expect((await callRow(failed.json().callId)).outcome).not.toBe('OK');
    expect(await eventRows()).toEqual([]);
  });
});
