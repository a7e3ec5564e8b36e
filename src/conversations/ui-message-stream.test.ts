import { AbstractChat, DefaultChatTransport, readUIMessageStream, uiMessageChunkSchema, type ChatState, type ChatStatus, type UIMessageChunk } from 'ai';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { createServingTestContext, testDialects, type TestContext } from '../../test/support/context.js';
import { developerSession } from '../../test/support/factories.js';
import { json, startHttpsEndpoint, type HttpsEndpoint } from '../../test/support/https-endpoint.js';
import { createAgent, install, toolEndpointOptions } from '../../test/support/invocation-factories.js';
import { createOrgWithKey, orgCaller, type OrgWithKey } from '../../test/support/org-factories.js';
import { startScriptedModel, type ScriptedModel } from '../../test/support/scripted-model.js';
import { createTool, publishTool } from '../../test/support/tools-factories.js';
import type { SwitchboardUIMessage } from './ui-message-stream.js';

/**
 * POST /api/org/conversations/{id}/chat driven by the AI SDK's own client side: DefaultChatTransport
 * (which parses every chunk with the SDK's chunk schema and throws on one it does not know),
 * readUIMessageStream, and the chat class useChat wraps (AbstractChat), against the app listening on
 * 127.0.0.1, a scripted model server and a real HTTPS tool endpoint.
 */
const KEY = 'sk-proj-uistream-key-7d41a0';
const ENDPOINT_ANSWER = { price: 12.5, currency: 'EUR', carrier: 'Posti', eta: { days: 2 } };

type Any = { [field: string]: any };

/** The chat useChat keeps (@ai-sdk/react's Chat is this with React state). */
class TestChat extends AbstractChat<SwitchboardUIMessage> {
  constructor(transport: DefaultChatTransport<SwitchboardUIMessage>) {
    const state: ChatState<SwitchboardUIMessage> = {
      status: 'ready' as ChatStatus,
      error: undefined,
      messages: [],
      pushMessage: (message) => { state.messages = [...state.messages, message]; },
      popMessage: () => { state.messages = state.messages.slice(0, -1); },
      replaceMessage: (index, message) => { state.messages = state.messages.map((m, i) => (i === index ? message : m)); },
      snapshot: (thing) => structuredClone(thing),
    };
    super({ transport, state });
  }
}

describe.each(testDialects())('the UI message stream (useChat) on %s', (dialect) => {
  let t: TestContext & { url: string };
  let endpoint: HttpsEndpoint;
  let model: ScriptedModel;
  let org: OrgWithKey;
  let other: OrgWithKey;
  let call: ReturnType<typeof orgCaller>;
  let toolName: string;
  let agentId: string;

  beforeAll(async () => {
    endpoint = await startHttpsEndpoint(json(200, ENDPOINT_ANSWER));
    model = await startScriptedModel();
    t = await createServingTestContext(dialect, toolEndpointOptions(endpoint, { MODEL_ALLOW_PRIVATE_ENDPOINTS: '1', MODEL_TIMEOUT_MS: '5000' }));
    call = orgCaller(t.app);
    const dev = await developerSession(t.database, t.clock, t.app);
    [org, other] = await Promise.all([createOrgWithKey(t.database, t.clock), createOrgWithKey(t.database, t.clock)]);
    const tool = await publishTool(t.app, dev.auth, (await createTool(t.app, dev.auth, { endpoint: `https://tool.test:${endpoint.port}/quote` })).id);
    toolName = (await install(t.app, org, { toolId: tool.id })).name;
    agentId = (await createAgent(t.app, org)).id;
    const provider = await call('POST', '/api/org/model-providers', org, { name: 'Scripted', kind: 'openai', baseUrl: model.baseUrl, apiKey: KEY });
    const set = await call('PATCH', `/api/org/agents/${agentId}`, org, { model: { providerId: provider.json().data.id, model: 'gpt-scripted', instructions: 'You quote shipping prices.' } });
    expect(set.statusCode, set.body).toBe(200);
  });
  afterEach(() => {
    endpoint.respond(json(200, ENDPOINT_ANSWER));
    endpoint.reset();
    model.requests.length = 0;
  });
  afterAll(async () => {
    await t.close();
    await endpoint.close();
    await model.close();
  });

  async function conversation(who: OrgWithKey = org, agent = agentId): Promise<string> {
    const res = await call('POST', `/api/org/agents/${agent}/conversations`, who);
    expect(res.statusCode, res.body).toBe(201);
    return res.json().data.id;
  }
  const transcript = async (id: string) => (await call('GET', `/api/org/conversations/${id}`, org)).json().data;
  const chatUrl = (id: string) => `${t.url}/api/org/conversations/${id}/chat`;
  const userMessage = (text: string) => ({ id: 'u1', role: 'user' as const, parts: [{ type: 'text' as const, text }] });

  /** The transport as a front end sets it up (the org key as a header), recording the response's headers and raw body. */
  function transport(id: string, options: { lastOnly?: boolean } = {}) {
    const seen: { headers?: Headers; raw: Promise<string>; bodies: Any[] } = { raw: Promise.resolve(''), bodies: [] };
    const chat = new DefaultChatTransport<SwitchboardUIMessage>({
      api: chatUrl(id),
      headers: org.auth,
      // What docs/conversations.md suggests for long chats: Switchboard keeps the history.
      ...(options.lastOnly ? { prepareSendMessagesRequest: ({ messages }) => ({ body: { messages: messages.slice(-1) } }) } : {}),
      fetch: async (input, init) => {
        seen.bodies.push(JSON.parse(String(init?.body)));
        const response = await fetch(input, init);
        if (!response.body) return response;
        const [mine, theirs] = response.body.tee();
        seen.headers = response.headers;
        seen.raw = new Response(mine).text().catch(() => '');
        return new Response(theirs, { status: response.status, headers: response.headers });
      },
    });
    return { chat, seen };
  }

  /** One turn through the transport: every chunk, and the UI message readUIMessageStream builds from them. */
  async function turn(id: string, text: string) {
    const { chat, seen } = transport(id);
    const stream = await chat.sendMessages({ chatId: 'chat-1', messages: [userMessage(text)], trigger: 'submit-message', messageId: undefined, abortSignal: undefined });
    const [forChunks, forMessage] = stream.tee();
    const chunks: UIMessageChunk[] = [];
    const collected = (async () => { for await (const chunk of forChunks as unknown as AsyncIterable<UIMessageChunk>) chunks.push(chunk); })();
    let message: SwitchboardUIMessage | undefined;
    for await (const snapshot of readUIMessageStream<SwitchboardUIMessage>({ stream: forMessage, terminateOnError: false })) message = snapshot;
    await collected;
    return { chunks, message: message!, headers: seen.headers!, raw: await seen.raw };
  }

  /** Every `data:` of the raw body but the last, checked against the SDK's own chunk schema. */
  async function validated(raw: string): Promise<Any[]> {
    const data = raw.split('\n\n').filter((block) => block !== '').map((block) => block.replace(/^data: /, ''));
    expect(data.at(-1)).toBe('[DONE]');
    const chunks = data.slice(0, -1).map((text) => JSON.parse(text) as Any);
    const schema = uiMessageChunkSchema();
    for (const chunk of chunks) expect((await schema.validate!(chunk)).success, JSON.stringify(chunk)).toBe(true);
    return chunks;
  }

  it('answers a turn with a tool call as one assistant UI message: a step per model request, the tool\'s JSON unchanged, Switchboard\'s ids in the metadata', async () => {
    const id = await conversation();
    model.script(
      { toolCalls: [{ id: 'call_fi', name: toolName, arguments: '{"weightKg":2,"country":"FI"}' }], usage: { input: 40, output: 12 } },
      { text: 'A 2 kg parcel to Finland costs 12.50 EUR.', usage: { input: 90, output: 9 } },
    );
    const { chunks, message, headers, raw } = await turn(id, 'What does a 2 kg parcel to Finland cost?');

    expect(headers.get('x-vercel-ai-ui-message-stream')).toBe('v1');
    expect(headers.get('content-type')).toBe('text/event-stream');
    expect(headers.get('x-request-id')).toMatch(/^req_[0-9A-Za-z]{20}$/);
    expect(model.requests.every((r) => r.json.stream === true)).toBe(true);
    const types = chunks.map((c) => c.type);
    const deltas = types.filter((type) => type === 'text-delta').length;
    expect(deltas).toBeGreaterThan(1);
    expect(types).toEqual([
      'start',
      'start-step', 'tool-input-available', 'tool-output-available', 'finish-step',
      'start-step', 'text-start', ...Array(deltas).fill('text-delta'), 'text-end', 'finish-step',
      'finish',
    ]);
    expect(await validated(raw)).toEqual(chunks);

    const saved = await transcript(id);
    const [user, first, tool, last] = saved.messages;
    expect(saved.messages.map((m: Any) => m.role)).toEqual(['user', 'assistant', 'tool', 'assistant']);
    expect(message.id).toBe(first.id);
    expect(message.role).toBe('assistant');
    expect(message.parts).toEqual([
      { type: 'step-start' },
      {
        type: 'dynamic-tool', toolName, toolCallId: 'call_fi', state: 'output-available',
        input: { weightKg: 2, country: 'FI' }, output: ENDPOINT_ANSWER,
        toolMetadata: { outcome: 'OK', callId: tool.toolCall.callId, durationMs: tool.toolCall.durationMs },
      },
      { type: 'step-start' },
      { type: 'text', text: 'A 2 kg parcel to Finland costs 12.50 EUR.', state: 'done' },
    ]);
    expect(tool.toolCall.callId).toMatch(/^call_/);
    expect(message.metadata).toEqual({
      conversationId: id, userMessageId: user.id, status: 'complete',
      messageIds: [user.id, first.id, tool.id, last.id], usage: { inputTokens: 130, outputTokens: 21 },
    });
    expect(chunks.at(-1)).toMatchObject({ type: 'finish', finishReason: 'stop' });
    // The endpoint's JSON reached the model unchanged, and the user's text is the turn's content.
    expect(JSON.parse(model.requests[1]!.json.messages.find((m: Any) => m.role === 'tool').content)).toEqual(ENDPOINT_ANSWER);
    expect(user.content).toBe('What does a 2 kg parcel to Finland cost?');
  });

  it('hands a failed call\'s {error} to the model and streams it as the tool\'s output, the outcome in toolMetadata', async () => {
    const id = await conversation();
    endpoint.respond(json(500, { oops: true }));
    model.script({ toolCalls: [{ id: 'call_se', name: toolName, arguments: '{"weightKg":2,"country":"SE"}' }] }, { text: 'The price service is down.' });
    const { message } = await turn(id, 'Price to Sweden?');
    const part = message.parts.find((p) => p.type === 'dynamic-tool') as Any;
    const saved = (await transcript(id)).messages[2].toolCall;
    expect(part).toMatchObject({ state: 'output-available', output: saved.result, toolMetadata: { outcome: 'TOOL_HTTP_ERROR', callId: saved.callId } });
    expect(part.output).toEqual({ error: { code: 'TOOL_HTTP_ERROR', message: expect.stringContaining('500') } });
    expect(JSON.parse(model.requests[1]!.json.messages.find((m: Any) => m.role === 'tool').content)).toEqual(part.output);
    expect(message.parts.at(-1)).toEqual({ type: 'text', text: 'The price service is down.', state: 'done' });
  });

  it('says a call the SDK refused before it ran (a tool the agent does not have) as tool-input-error, and the turn goes on', async () => {
    const id = await conversation();
    model.script({ toolCalls: [{ id: 'call_x', name: 'no_such_tool', arguments: '{"a":1}' }] }, { text: 'I cannot do that.' });
    const { chunks, message, raw } = await turn(id, 'Do something odd.');
    await validated(raw);
    expect(chunks.map((c) => c.type)).toContain('tool-input-error');
    const saved = (await transcript(id)).messages[2].toolCall;
    expect(saved).toMatchObject({ id: 'call_x', name: 'no_such_tool', outcome: 'TOOL_NOT_ENABLED', callId: null });
    expect(message.parts.find((p) => p.type === 'dynamic-tool')).toEqual({
      type: 'dynamic-tool', toolName: 'no_such_tool', toolCallId: 'call_x', state: 'output-error', input: { a: 1 },
      errorText: saved.result.error.message, toolMetadata: { outcome: 'TOOL_NOT_ENABLED', callId: null, durationMs: 0 },
    });
    expect(endpoint.requests).toHaveLength(0);
    expect(message.parts.at(-1)).toEqual({ type: 'text', text: 'I cannot do that.', state: 'done' });
  });

  it('works with the chat useChat keeps: a provider failure is an error with the provider\'s message (never the key), the ids still in the metadata', async () => {
    const id = await conversation();
    model.script({ status: 401, error: `Incorrect API key provided: ${KEY}.` });
    const chat = new TestChat(transport(id).chat);
    await chat.sendMessage({ text: 'Hello?' });
    expect(chat.status).toBe('error');
    expect(chat.error?.message).toBe('The model provider answered 401 Unauthorized: Incorrect API key provided: [redacted]. Check the provider\'s API key (PATCH /api/org/model-providers/{id}).');
    const saved = await transcript(id);
    expect(saved.messages.map((m: Any) => [m.role, m.status])).toEqual([['user', 'complete'], ['assistant', 'error']]);
    const answer = chat.messages.at(-1)!;
    expect(answer).toMatchObject({ id: saved.messages[1].id, role: 'assistant' });
    expect(answer.metadata).toEqual({
      conversationId: id, userMessageId: saved.messages[0].id, status: 'error', messageIds: saved.messages.map((m: Any) => m.id),
      usage: { inputTokens: 0, outputTokens: 0 }, error: { code: 'MODEL_PROVIDER_ERROR', message: chat.error?.message },
    });
    expect(JSON.stringify(chat.messages)).not.toContain(KEY);

    // Read to the end (readUIMessageStream): the error, then the finish saying so.
    model.script({ status: 500, error: 'The server had an error.' });
    const { chunks, raw } = await turn(id, 'Again?');
    expect(raw).not.toContain(KEY);
    expect(chunks.map((c) => c.type)).toEqual(['start', 'message-metadata', 'error', 'finish']);
    expect(chunks[2]).toEqual({ type: 'error', errorText: 'The model provider answered 500 Internal Server Error: The server had an error.' });
    expect(chunks[3]).toMatchObject({ type: 'finish', finishReason: 'error', messageMetadata: { status: 'error', error: { code: 'MODEL_PROVIDER_ERROR' } } });
    await validated(raw);
  });

  it.each([false, true])('takes useChat\'s second message, the whole history posted or (lastOnly %s) only the new message: Switchboard sends the model its own transcript', async (lastOnly) => {
    const id = await conversation();
    const { chat: sender, seen } = transport(id, { lastOnly });
    const chat = new TestChat(sender);
    model.script({ text: 'Hello! How can I help?' });
    await chat.sendMessage({ text: 'Hi' });
    model.script({ text: '12.50 EUR.' });
    await chat.sendMessage({ text: 'A 2 kg parcel to Finland?' });
    expect(chat.status).toBe('ready');
    expect(seen.bodies.map((body) => body.messages.length)).toEqual(lastOnly ? [1, 1] : [1, 3]);
    expect(chat.messages.map((m) => [m.role, m.parts.filter((p) => p.type === 'text').map((p) => ('text' in p ? p.text : ''))])).toEqual([
      ['user', ['Hi']], ['assistant', ['Hello! How can I help?']], ['user', ['A 2 kg parcel to Finland?']], ['assistant', ['12.50 EUR.']],
    ]);
    const saved = await transcript(id);
    expect(saved.messages.map((m: Any) => [m.role, m.content])).toEqual([['user', 'Hi'], ['assistant', 'Hello! How can I help?'], ['user', 'A 2 kg parcel to Finland?'], ['assistant', '12.50 EUR.']]);
    expect(chat.messages.filter((m) => m.role === 'assistant').map((m) => m.id)).toEqual([saved.messages[1].id, saved.messages[3].id]);
    expect(model.requests[1]!.json.messages.map((m: Any) => [m.role, m.content])).toEqual([
      ['system', 'You quote shipping prices.'], ['user', 'Hi'], ['assistant', 'Hello! How can I help?'], ['user', 'A 2 kg parcel to Finland?'],
    ]);
  });

  it('cancels the turn when the chat is stopped, and saves what the assistant had written as cancelled', async () => {
    const id = await conversation();
    model.script({ text: 'The partial answer', hold: true });
    const chat = new TestChat(transport(id).chat);
    const sent = chat.sendMessage({ text: 'Tell me everything.' });
    await vi.waitFor(() => {
      const part = chat.messages.at(-1)?.parts.find((p) => p.type === 'text');
      expect(part && 'text' in part ? part.text : '').toBe('The partial answer');
    }, { timeout: 5000, interval: 20 });
    await chat.stop();
    await sent;
    expect(chat.status).toBe('ready');
    await vi.waitFor(async () => expect((await transcript(id)).messageCount).toBe(2), { timeout: 5000, interval: 50 });
    const saved = await transcript(id);
    expect(saved.messages.map((m: Any) => [m.role, m.status, m.content])).toEqual([['user', 'complete', 'Tell me everything.'], ['assistant', 'cancelled', 'The partial answer']]);
    expect(saved.messages[1].id).toBe(chat.messages.at(-1)!.id);
    await vi.waitFor(() => expect(model.abandoned).toBe(1), { timeout: 5000, interval: 50 });
  });

  it('refuses before any stream, as JSON, writing nothing: 400 for what it cannot answer, 401, 404, 409', async () => {
    const id = await conversation();
    const post = (body: unknown, headers: Record<string, string> = org.auth, to = id) =>
      t.app.inject({ method: 'POST', url: `/api/org/conversations/${to}/chat`, headers, payload: body as object });
    const refusals: [unknown, RegExp][] = [
      [{ messages: [userMessage('Hi'), { id: 'a1', role: 'assistant', parts: [{ type: 'text', text: 'Hello' }] }] }, /^The last message must be the user's \(role "user"\), not "assistant"\.$/],
      [{ messages: [{ id: 'u1', role: 'user', parts: [{ type: 'file', mediaType: 'image/png', url: 'data:image/png;base64,AA==' }, { type: 'text', text: 'This?' }] }] }, /^The user's message may hold text parts only, not "file"\.$/],
      [{ messages: [userMessage('x'.repeat(8001))] }, /^The user's message must have 1–8000 characters of text \(it has 8001\)\.$/],
      [{ messages: [userMessage('  ')] }, /1–8000 characters/],
      [{ messages: [userMessage('Hi')], trigger: 'regenerate-message' }, /^Regenerating an answer is not supported/],
      [{ messages: [] }, /messages/],
      [{ content: 'Hi' }, /messages/],
    ];
    for (const [body, message] of refusals) {
      const res = await post(body);
      expect(res.statusCode, res.body).toBe(400);
      expect(res.headers['content-type']).toContain('application/json');
      expect(res.json()).toMatchObject({ success: false, code: 'VALIDATION_ERROR' });
      expect(res.json().error).toMatch(message);
    }
    const anonymous = await post({ messages: [userMessage('Hi')] }, {});
    expect(anonymous.statusCode).toBe(401);
    expect(anonymous.json().code).toBe('UNAUTHORIZED');
    const theirAgent = (await createAgent(t.app, other)).id;
    const provider = await call('POST', '/api/org/model-providers', other, { name: 'Scripted', kind: 'openai', baseUrl: model.baseUrl, apiKey: KEY });
    await call('PATCH', `/api/org/agents/${theirAgent}`, other, { model: { providerId: provider.json().data.id, model: 'gpt-scripted', instructions: '' } });
    const theirs = await conversation(other, theirAgent);
    for (const to of [theirs, 'conv_aaaaaaaaaaaaaaaaaaaa']) {
      const missing = await post({ messages: [userMessage('Hi')] }, org.auth, to);
      expect(missing.statusCode).toBe(404);
      expect(missing.json()).toMatchObject({ code: 'NOT_FOUND', error: 'No conversation has that id.' });
    }
    await t.database.db.updateTable('conversations').set({ turn_started_at: t.clock.now().toISOString() }).where('id', '=', id).execute();
    const busy = await post({ messages: [userMessage('Hi')] });
    expect(busy.statusCode).toBe(409);
    expect(busy.json()).toMatchObject({ code: 'CONFLICT', error: expect.stringContaining('still answering the previous message') });
    // The transport says the refusal as useChat's error: the JSON answer's text.
    await expect(transport(id).chat.sendMessages({ chatId: 'c', messages: [userMessage('Hi')], trigger: 'submit-message', messageId: undefined, abortSignal: undefined }))
      .rejects.toThrow(/"code":"CONFLICT"/);
    await t.database.db.updateTable('conversations').set({ turn_started_at: null }).where('id', '=', id).execute();
    expect((await transcript(id)).messages).toEqual([]);
    expect(model.requests).toEqual([]);
  });

  it('keeps the default event stream of POST …/messages as documented: its six events, no step boundaries', async () => {
    const id = await conversation();
    model.script({ toolCalls: [{ id: 'call_fi', name: toolName, arguments: '{"weightKg":2,"country":"FI"}' }] }, { text: 'Done.' });
    const res = await fetch(`${t.url}/api/org/conversations/${id}/messages`, {
      method: 'POST', headers: { ...org.auth, accept: 'text/event-stream', 'content-type': 'application/json' }, body: JSON.stringify({ content: 'Price?' }),
    });
    const names = [...(await res.text()).matchAll(/^event: (.+)$/gm)].map((m) => m[1]);
    expect(new Set(names)).toEqual(new Set(['start', 'tool-call-start', 'tool-call-end', 'text-delta', 'finish']));
    expect(res.headers.get('x-vercel-ai-ui-message-stream')).toBeNull();
  });
});
