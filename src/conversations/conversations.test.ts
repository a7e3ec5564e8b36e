import { request as httpRequest } from 'node:http';
import { Writable } from 'node:stream';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { createServingTestContext, createTestContext, testDialects, type TestContext } from '../../test/support/context.js';
import { developerSession } from '../../test/support/factories.js';
import { json, startHttpsEndpoint, type HttpsEndpoint } from '../../test/support/https-endpoint.js';
import { createAgent, install, toolEndpointOptions } from '../../test/support/invocation-factories.js';
import { createOrgWithKey, orgCaller, type OrgWithKey } from '../../test/support/org-factories.js';
import { startScriptedModel, type ScriptedModel } from '../../test/support/scripted-model.js';
import { createTool, publishTool } from '../../test/support/tools-factories.js';

/**
 * Agent conversations through the Operator API, against a scripted model server on 127.0.0.1 that
 * speaks the real OpenAI Chat Completions and Anthropic Messages formats, driven by the real AI SDK,
 * and a real HTTPS tool endpoint: model → tool call → endpoint → model → answer.
 */
const KEY = 'sk-proj-conversation-key-5c2e91';
const ENDPOINT_ANSWER = '{"price":12.5,"currency":"EUR","carrier":"Posti","eta":{"days":2}}';

type Event = { type: string; [field: string]: any };
/** The Server-Sent Events of a streamed answer, parsed, checking each event's name is its data's type. */
function events(body: string): Event[] {
  return body.split('\n\n').filter((block) => block.trim() !== '').map((block) => {
    const name = /^event: (.+)$/m.exec(block)?.[1];
    const data = JSON.parse(/^data: (.+)$/m.exec(block)![1]!) as Event;
    expect(data.type).toBe(name);
    return data;
  });
}

describe.each(testDialects())('conversations on %s', (dialect) => {
  let t: TestContext;
  let endpoint: HttpsEndpoint;
  let model: ScriptedModel;
  let dev: Awaited<ReturnType<typeof developerSession>>;
  let org: OrgWithKey;
  let other: OrgWithKey;
  let call: ReturnType<typeof orgCaller>;
  let toolName: string;
  const logs: string[] = [];

  beforeAll(async () => {
    endpoint = await startHttpsEndpoint(json(200, JSON.parse(ENDPOINT_ANSWER)));
    model = await startScriptedModel();
    const options = toolEndpointOptions(endpoint, { MODEL_ALLOW_PRIVATE_ENDPOINTS: '1', LOG_LEVEL: 'trace' });
    t = await createTestContext(dialect, {
      ...options,
      deps: { ...options.deps, logStream: new Writable({ write(chunk, _encoding, done) { logs.push(String(chunk)); done(); } }) },
    });
    call = orgCaller(t.app);
    dev = await developerSession(t.database, t.clock, t.app);
    [org, other] = await Promise.all([createOrgWithKey(t.database, t.clock), createOrgWithKey(t.database, t.clock)]);
    const tool = await publishTool(t.app, dev.auth, (await createTool(t.app, dev.auth, { endpoint: `https://tool.test:${endpoint.port}/quote` })).id);
    toolName = (await install(t.app, org, { toolId: tool.id })).name;
  });
  afterEach(() => {
    endpoint.respond(json(200, JSON.parse(ENDPOINT_ANSWER)));
    endpoint.reset();
    model.requests.length = 0;
  });
  afterAll(async () => {
    await t.close();
    await endpoint.close();
    await model.close();
  });

  async function agentWithModel(who: OrgWithKey = org, options: { kind?: string; maxToolRounds?: number } = {}) {
    const agent = await createAgent(t.app, who);
    const provider = await call('POST', '/api/org/model-providers', who, { name: 'Scripted', kind: options.kind ?? 'openai', baseUrl: model.baseUrl, apiKey: KEY });
    expect(provider.statusCode, provider.body).toBe(201);
    const set = await call('PATCH', `/api/org/agents/${agent.id}`, who, {
      model: { providerId: provider.json().data.id, model: 'gpt-scripted', instructions: 'You quote shipping prices for Acme.', ...(options.maxToolRounds ? { maxToolRounds: options.maxToolRounds } : {}) },
    });
    expect(set.statusCode, set.body).toBe(200);
    return agent;
  }
  async function conversation(who: OrgWithKey = org, agent?: { id: string }) {
    const res = await call('POST', `/api/org/agents/${(agent ?? (await agentWithModel(who))).id}/conversations`, who);
    expect(res.statusCode, res.body).toBe(201);
    return res.json().data as { id: string; agentId: string; createdAt: string };
  }
  const send = (id: string, content: string, who: OrgWithKey = org, stream = false) =>
    t.app.inject({ method: 'POST', url: `/api/org/conversations/${id}/messages`, headers: { ...who.auth, ...(stream ? { accept: 'text/event-stream' } : {}) }, payload: { content } });
  const twoCalls = [
    { id: 'call_fi', name: '', arguments: '{"weightKg":2,"country":"FI"}' },
    { id: 'call_se', name: '', arguments: '{"weightKg":2,"country":"SE"}' },
  ];
  const named = (calls: typeof twoCalls) => calls.map((c) => ({ ...c, name: toolName }));
  const messageRows = (id: string) => t.database.db.selectFrom('conversation_messages').selectAll().where('conversation_id', '=', id).orderBy('seq').execute();

  it('runs the loop: two tool calls in one answer, each through the invoker, the endpoint\'s JSON to the model byte for byte, then the answer', async () => {
    const conv = await conversation();
    expect(conv).toEqual({ id: expect.stringMatching(/^conv_[0-9A-Za-z]{20}$/), agentId: expect.any(String), createdAt: expect.any(String) });
    model.script({ toolCalls: named(twoCalls), usage: { input: 40, output: 12 } }, { text: 'Finland and Sweden: 12.50 EUR each.', usage: { input: 90, output: 9 } });

    const res = await send(conv.id, 'What does a 2 kg parcel to Finland and Sweden cost?');
    expect(res.statusCode, res.body).toBe(200);
    const turn = res.json().data;
    expect(turn.messages.map((m: Event) => m.role)).toEqual(['user', 'assistant', 'tool', 'tool', 'assistant']);
    expect(turn.messages[4]).toMatchObject({ content: 'Finland and Sweden: 12.50 EUR each.', status: 'complete', usage: { inputTokens: 90, outputTokens: 9 } });
    expect(turn.usage).toEqual({ inputTokens: 130, outputTokens: 21 });
    const tools = turn.messages.filter((m: Event) => m.role === 'tool').map((m: Event) => m.toolCall);
    expect(tools.map((c: Event) => c.id).sort()).toEqual(['call_fi', 'call_se']);
    for (const toolCall of tools) {
      expect(toolCall).toMatchObject({ name: toolName, result: JSON.parse(ENDPOINT_ANSWER), outcome: 'OK', callId: expect.stringMatching(/^call_/) });
      expect(toolCall.durationMs).toBeGreaterThanOrEqual(0);
    }

    // The endpoint got both calls, each with the agent and org in _svc_context.
    expect(endpoint.requests).toHaveLength(2);
    const sent = endpoint.requests.map((r) => JSON.parse(r.body.toString('utf8')));
    expect(sent.map((b) => b.country).sort()).toEqual(['FI', 'SE']);
    for (const body of sent) expect(body._svc_context).toMatchObject({ agentId: conv.agentId, orgId: org.orgId, callId: expect.stringMatching(/^call_/) });

    // What the model got: the instructions, the exported tool definition, then the results unchanged.
    expect(model.requests).toHaveLength(2);
    const [first, second] = model.requests.map((r) => r.json);
    expect(model.requests[0]!.path).toBe('/v1/chat/completions');
    expect(model.requests[0]!.headers.authorization).toBe(`Bearer ${KEY}`);
    expect(first.messages[0]).toEqual({ role: 'system', content: 'You quote shipping prices for Acme.' });
    const exported = (await call('GET', `/api/org/agents/${conv.agentId}/tools?format=openai`, org)).json().data.tools;
    expect(first.tools.map((tool: Event) => ({ type: tool.type, function: { name: tool.function.name, description: tool.function.description, parameters: tool.function.parameters } }))).toEqual(exported);
    const results = second.messages.filter((m: Event) => m.role === 'tool');
    expect(results.map((m: Event) => m.tool_call_id).sort()).toEqual(['call_fi', 'call_se']);
    for (const result of results) expect(result.content).toBe(ENDPOINT_ANSWER);

    // The call log has both, on the conversation path; the transcript says the same as the turn.
    const logged = (await call('GET', `/api/org/tool-calls?agentId=${conv.agentId}`, org)).json().data.items;
    expect(logged.map((c: Event) => c.id).sort()).toEqual(tools.map((c: Event) => c.callId).sort());
    expect(logged.every((c: Event) => c.path === 'conversation' && c.outcome === 'OK')).toBe(true);
    const transcript = (await call('GET', `/api/org/conversations/${conv.id}`, org)).json().data;
    expect(transcript).toMatchObject({ id: conv.id, agentId: conv.agentId, source: 'api', messageCount: 5, usage: { inputTokens: 130, outputTokens: 21 } });
    expect(transcript.messages).toEqual(turn.messages);

    // The next turn sends the whole history back, tool calls and results included.
    model.script({ text: 'You are welcome.' });
    expect((await send(conv.id, 'Thanks!')).statusCode).toBe(200);
    const history = model.requests[2]!.json.messages;
    expect(history.map((m: Event) => m.role)).toEqual(['system', 'user', 'assistant', 'tool', 'tool', 'assistant', 'user']);
    expect(history[2].tool_calls.map((c: Event) => c.function.arguments).sort()).toEqual(twoCalls.map((c) => c.arguments).sort());
    expect(history.filter((m: Event) => m.role === 'tool').map((m: Event) => m.content)).toEqual([ENDPOINT_ANSWER, ENDPOINT_ANSWER]);
  });

  it('streams the turn as Server-Sent Events (the provider streamed too) and saves the same messages', async () => {
    const conv = await conversation();
    model.script({ toolCalls: named(twoCalls.slice(0, 1)) }, { text: 'A 2 kg parcel to Finland costs 12.50 EUR.' });
    const res = await send(conv.id, 'Price to Finland?', org, true);
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('text/event-stream; charset=utf-8');
    // The stream writes its own head, and keeps what the hooks set: the request id a support ticket quotes.
    expect(res.headers['x-request-id']).toMatch(/^req_[0-9A-Za-z]{20}$/);
    expect(model.requests.every((r) => r.json.stream === true)).toBe(true);
    const list = events(res.body);
    const types = list.map((e) => e.type);
    expect(types[0]).toBe('start');
    expect(types.at(-1)).toBe('finish');
    expect(types.indexOf('tool-call-start')).toBeLessThan(types.indexOf('tool-call-end'));
    expect(types.indexOf('tool-call-end')).toBeLessThan(types.indexOf('text-delta'));
    expect(list[0]).toMatchObject({ conversationId: conv.id, message: { role: 'user', content: 'Price to Finland?' } });
    expect(list.find((e) => e.type === 'tool-call-start')).toEqual({ type: 'tool-call-start', id: 'call_fi', name: toolName, arguments: { weightKg: 2, country: 'FI' } });
    expect(list.find((e) => e.type === 'tool-call-end')).toMatchObject({ id: 'call_fi', name: toolName, outcome: 'OK', result: JSON.parse(ENDPOINT_ANSWER), callId: expect.stringMatching(/^call_/) });
    expect(list.filter((e) => e.type === 'text-delta').length).toBeGreaterThan(1);
    expect(list.filter((e) => e.type === 'text-delta').map((e) => e.delta).join('')).toBe('A 2 kg parcel to Finland costs 12.50 EUR.');
    const finish = list.at(-1)!;
    expect(finish).toMatchObject({ status: 'complete', usage: { inputTokens: 20, outputTokens: 10 } });
    expect(finish.messages.map((m: Event) => m.role)).toEqual(['user', 'assistant', 'tool', 'assistant']);
    expect((await call('GET', `/api/org/conversations/${conv.id}`, org)).json().data.messages).toEqual(finish.messages);
    expect(model.requests[1]!.json.messages.find((m: Event) => m.role === 'tool').content).toBe(ENDPOINT_ANSWER);
  });

  it('speaks Anthropic Messages: a tool call and the answer, the key in x-api-key', async () => {
    const agent = await agentWithModel(org, { kind: 'anthropic' });
    const conv = await conversation(org, agent);
    model.script({ toolCalls: named(twoCalls.slice(1)) }, { text: 'Sweden: 12.50 EUR.' });
    const res = await send(conv.id, 'Price to Sweden?');
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().data.messages.map((m: Event) => m.role)).toEqual(['user', 'assistant', 'tool', 'assistant']);
    expect(model.requests.map((r) => r.path)).toEqual(['/v1/messages', '/v1/messages']);
    expect(model.requests[0]!.headers['x-api-key']).toBe(KEY);
    expect(model.requests[0]!.json.system).toEqual([{ type: 'text', text: 'You quote shipping prices for Acme.' }]);
    expect(model.requests[0]!.json.tools[0]).toMatchObject({ name: toolName, input_schema: { type: 'object' } });
    const toolResult = model.requests[1]!.json.messages.at(-1).content[0];
    expect(toolResult).toMatchObject({ type: 'tool_result', tool_use_id: 'call_se' });
    expect(typeof toolResult.content === 'string' ? toolResult.content : toolResult.content[0].text).toBe(ENDPOINT_ANSWER);
  });

  it('hands a failed tool call back to the model as {error: {code, message}} and the turn goes on', async () => {
    const conv = await conversation();
    endpoint.respond(json(500, { oops: true }));
    model.script({ toolCalls: named(twoCalls.slice(0, 1)) }, { text: 'The price service is down; try again later.' });
    const res = await send(conv.id, 'Price to Finland?');
    expect(res.statusCode, res.body).toBe(200);
    const toolCall = res.json().data.messages[2].toolCall;
    expect(toolCall).toMatchObject({ outcome: 'TOOL_HTTP_ERROR', callId: expect.stringMatching(/^call_/), result: { error: { code: 'TOOL_HTTP_ERROR', message: expect.stringContaining('500') } } });
    const handed = JSON.parse(model.requests[1]!.json.messages.find((m: Event) => m.role === 'tool').content);
    expect(handed).toEqual(toolCall.result);
    expect(res.json().data.messages[3]).toMatchObject({ role: 'assistant', content: 'The price service is down; try again later.' });
  });

  it('stops calling tools after maxToolRounds: the next request offers none and the model answers', async () => {
    const agent = await agentWithModel(org, { maxToolRounds: 1 });
    const conv = await conversation(org, agent);
    model.script({ toolCalls: named(twoCalls.slice(0, 1)) }, { text: 'From what I found: 12.50 EUR.' });
    const res = await send(conv.id, 'Price?');
    expect(res.statusCode, res.body).toBe(200);
    expect(model.requests).toHaveLength(2);
    expect(model.requests[0]!.json.tool_choice).not.toBe('none');
    expect(model.requests[1]!.json.tool_choice).toBe('none');
    expect(res.json().data.messages.at(-1)).toMatchObject({ role: 'assistant', content: 'From what I found: 12.50 EUR.' });
  });

  it.each([
    [401, {}, 502, 'MODEL_PROVIDER_ERROR', 'The model provider answered 401 Unauthorized: Incorrect API key provided'],
    [429, { 'retry-after': '7' }, 503, 'MODEL_PROVIDER_RATE_LIMITED', 'The model provider answered 429 Too Many Requests: Rate limit reached'],
    [500, {}, 502, 'MODEL_PROVIDER_ERROR', 'The model provider answered 500 Internal Server Error: The server had an error'],
  ])('a provider %i (headers %j) is a clear %i, saved in the transcript, never with the key', async (status, headers, expected, code, message) => {
    const conv = await conversation();
    const said = status === 401 ? `Incorrect API key provided: ${KEY}.` : status === 429 ? 'Rate limit reached for gpt-scripted.' : 'The server had an error while processing your request.';
    model.script({ status, error: said, headers });
    for (const stream of [false, true]) {
      model.script({ status, error: said, headers });
      const res = await send(conv.id, 'Hello?', org, stream);
      expect(res.body).not.toContain(KEY);
      if (!stream) {
        expect(res.statusCode).toBe(expected);
        expect(res.json()).toMatchObject({ code });
        expect(res.json().error).toContain(message);
        if (status === 429) expect(res.headers['retry-after']).toBe('7');
      } else {
        const list = events(res.body);
        expect(list.find((e) => e.type === 'error')).toMatchObject({ code, message: expect.stringContaining(message) });
        expect(list.at(-1)).toMatchObject({ type: 'finish', status: 'error' });
      }
    }
    const transcript = (await call('GET', `/api/org/conversations/${conv.id}`, org)).json().data;
    expect(transcript.messages.map((m: Event) => [m.role, m.status])).toEqual([['user', 'complete'], ['assistant', 'error'], ['user', 'complete'], ['assistant', 'error']]);
    expect(transcript.messages[1].error).toMatchObject({ code, message: expect.stringContaining(message) });
    expect(JSON.stringify(transcript)).not.toContain(KEY);
    expect(JSON.stringify(await messageRows(conv.id))).not.toContain(KEY);
  });

  it('refuses a conversation with an agent without a model (409), and another organization\'s agent (404), writing nothing', async () => {
    const bare = await createAgent(t.app, org, 'No model');
    const res = await call('POST', `/api/org/agents/${bare.id}/conversations`, org);
    expect(res.statusCode).toBe(409);
    expect(res.json()).toMatchObject({ code: 'CONFLICT', error: expect.stringContaining('"No model" has no model') });
    const theirs = await agentWithModel(other);
    const refused = await call('POST', `/api/org/agents/${theirs.id}/conversations`, org);
    expect(refused.statusCode).toBe(404);
    expect(refused.json().code).toBe('AGENT_NOT_FOUND');
    const rows = await t.database.db.selectFrom('conversations').select('id').where('agent_id', 'in', [bare.id, theirs.id]).execute();
    expect(rows).toEqual([]);
  });

  it('answers 404 for another organization\'s conversation on every route, and writes nothing', async () => {
    const theirs = await conversation(other);
    for (const res of [await call('GET', `/api/org/conversations/${theirs.id}`, org), await send(theirs.id, 'Hi', org), await send(theirs.id, 'Hi', org, true), await call('GET', '/api/org/conversations/conv_aaaaaaaaaaaaaaaaaaaa', org)]) {
      expect(res.statusCode).toBe(404);
      expect(res.json()).toMatchObject({ code: 'NOT_FOUND', error: 'No conversation has that id.' });
    }
    expect(await messageRows(theirs.id)).toEqual([]);
    expect(model.requests).toEqual([]);
    const listed = (await call('GET', '/api/org/conversations?limit=100', org)).json().data.items;
    expect(listed.some((c: Event) => c.id === theirs.id)).toBe(false);
  });

  it('lists newest first, paged, filtered by agent', async () => {
    const fresh = await createOrgWithKey(t.database, t.clock);
    const agent = await agentWithModel(fresh);
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) {
      t.clock.advance(1000);
      ids.push((await conversation(fresh, agent)).id);
    }
    t.clock.advance(1000);
    const elsewhere = await conversation(fresh);
    const page1 = (await call('GET', `/api/org/conversations?limit=2&agentId=${agent.id}`, fresh)).json().data;
    expect(page1.items.map((c: Event) => c.id)).toEqual([ids[2], ids[1]]);
    expect(page1.items[0]).toMatchObject({ agentId: agent.id, source: 'api', messageCount: 0, usage: { inputTokens: 0, outputTokens: 0 } });
    const page2 = (await call('GET', `/api/org/conversations?limit=2&agentId=${agent.id}&cursor=${page1.nextCursor}`, fresh)).json().data;
    expect(page2).toMatchObject({ items: [{ id: ids[0] }], nextCursor: null });
    expect((await call('GET', '/api/org/conversations', fresh)).json().data.items[0].id).toBe(elsewhere.id);
  });

  it('refuses content over 8,000 characters (400), a full conversation (409) and an agent whose model was cleared (409), writing nothing', async () => {
    const agent = await agentWithModel();
    const conv = await conversation(org, agent);
    const long = await send(conv.id, 'x'.repeat(8001));
    expect(long.statusCode).toBe(400);
    expect(long.json()).toMatchObject({ code: 'VALIDATION_ERROR' });
    expect(JSON.stringify(long.json())).toContain('content');
    await t.database.db.updateTable('conversations').set({ message_count: 200 }).where('id', '=', conv.id).execute();
    const full = await send(conv.id, 'One more?');
    expect(full.statusCode).toBe(409);
    expect(full.json()).toMatchObject({ code: 'CONFLICT', error: expect.stringContaining('200 messages') });
    await t.database.db.updateTable('conversations').set({ message_count: 0 }).where('id', '=', conv.id).execute();
    await call('PATCH', `/api/org/agents/${agent.id}`, org, { model: null });
    const noModel = await send(conv.id, 'Hello?');
    expect(noModel.statusCode).toBe(409);
    expect(noModel.json().error).toContain('has no model');
    expect(await messageRows(conv.id)).toEqual([]);
    expect(model.requests).toEqual([]);
  });

  it('answers one message at a time per conversation: another while a turn runs is 409, and a claim a dead node left expires', async () => {
    const conv = await conversation();
    const now = t.clock.now().toISOString();
    await t.database.db.updateTable('conversations').set({ turn_started_at: now }).where('id', '=', conv.id).execute();
    const busy = await send(conv.id, 'Hello?');
    expect(busy.statusCode).toBe(409);
    expect(busy.json()).toMatchObject({ code: 'CONFLICT', error: expect.stringContaining('still answering the previous message') });
    expect(await messageRows(conv.id)).toEqual([]);
    expect(model.requests).toEqual([]);
    // Past the longest turn the limits allow (33 model requests and 32 tool calls), the claim is stale.
    t.clock.advance(33 * 120_000 + 32 * 2_000 + 1000);
    model.script({ text: 'Here again.' });
    const res = await send(conv.id, 'Hello?');
    expect(res.statusCode, res.body).toBe(200);
    const row = await t.database.db.selectFrom('conversations').select(['turn_started_at', 'message_count']).where('id', '=', conv.id).executeTakeFirstOrThrow();
    expect(row).toEqual({ turn_started_at: null, message_count: 2 });
  });

  it('refuses requests without credentials', async () => {
    const conv = await conversation();
    for (const res of [await call('GET', '/api/org/conversations', null), await call('GET', `/api/org/conversations/${conv.id}`, null), await call('POST', `/api/org/conversations/${conv.id}/messages`, null, { content: 'Hi' }), await call('POST', `/api/org/agents/${conv.agentId}/conversations`, null)]) {
      expect(res.statusCode).toBe(401);
      expect(res.json().code).toBe('UNAUTHORIZED');
    }
  });

  it('writes no provider key to any log line', () => {
    expect(logs.some((line) => line.includes('/api/org/conversations'))).toBe(true);
    expect(logs.filter((line) => line.includes(KEY))).toEqual([]);
  });
});

describe.each(testDialects())('conversations over a real connection on %s', (dialect) => {
  let t: TestContext & { url: string };
  let model: ScriptedModel;
  let org: OrgWithKey;
  let call: ReturnType<typeof orgCaller>;
  let conversationId: string;

  beforeAll(async () => {
    model = await startScriptedModel();
    t = await createServingTestContext(dialect, { env: { MODEL_ALLOW_PRIVATE_ENDPOINTS: '1', MODEL_TIMEOUT_MS: '3000' } });
    call = orgCaller(t.app);
    org = await createOrgWithKey(t.database, t.clock);
    const agent = await createAgent(t.app, org);
    const provider = await call('POST', '/api/org/model-providers', org, { name: 'Scripted', kind: 'openai', baseUrl: model.baseUrl, apiKey: KEY });
    await call('PATCH', `/api/org/agents/${agent.id}`, org, { model: { providerId: provider.json().data.id, model: 'gpt-scripted', instructions: '' } });
    conversationId = (await call('POST', `/api/org/agents/${agent.id}/conversations`, org)).json().data.id;
  });
  afterAll(async () => {
    await t.close();
    await model.close();
  });

  const transcript = async () => (await call('GET', `/api/org/conversations/${conversationId}`, org)).json().data;

  it('cancels the model stream when the client goes away, and saves the partial answer as cancelled', async () => {
    model.script({ text: 'The partial answer', hold: true });
    // A plain HTTP client that hangs up (destroys its socket) once the held text has arrived.
    const body = JSON.stringify({ content: 'Tell me everything.' });
    const status = await new Promise<number>((resolve, reject) => {
      const request = httpRequest(`${t.url}/api/org/conversations/${conversationId}/messages`, {
        method: 'POST', headers: { ...org.auth, accept: 'text/event-stream', 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) },
      }, (response) => {
        let seen = '';
        // The held text comes in pieces of four characters; the last is "er".
        response.on('data', (chunk: Buffer) => {
          seen += chunk.toString('utf8');
          if (seen.includes('"delta":"er"')) {
            request.destroy();
            resolve(response.statusCode ?? 0);
          }
        });
      });
      request.on('error', (error) => { if (!request.destroyed) reject(error); });
      request.end(body);
    });
    expect(status).toBe(200);
    await vi.waitFor(async () => expect((await transcript()).messageCount).toBe(2), { timeout: 2500, interval: 50 });
    const saved = await transcript();
    expect(saved.messages.map((m: Event) => [m.role, m.status, m.content])).toEqual([['user', 'complete', 'Tell me everything.'], ['assistant', 'cancelled', 'The partial answer']]);
    await vi.waitFor(() => expect(model.abandoned).toBe(1), { timeout: 2500, interval: 50 });
  });

  it('ends a provider request that takes longer than MODEL_TIMEOUT_MS with 504 MODEL_PROVIDER_TIMEOUT, saved', async () => {
    model.script({ hang: true });
    const res = await call('POST', `/api/org/conversations/${conversationId}/messages`, org, { content: 'Still there?' });
    expect(res.statusCode).toBe(504);
    expect(res.json()).toMatchObject({ code: 'MODEL_PROVIDER_TIMEOUT', error: 'The model provider did not answer within 3 s.' });
    expect((await transcript()).messages.at(-1)).toMatchObject({ role: 'assistant', status: 'error', error: { code: 'MODEL_PROVIDER_TIMEOUT' } });
  });
});
