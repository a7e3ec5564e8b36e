import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createTestContext, testDialects, type TestContext } from '../../test/support/context.js';
import { conversationWithTool, MODEL_KEY, publishedTool, sendMessage, sseEvents } from '../../test/support/conversation-factories.js';
import { delayed, json, startHttpsEndpoint, type HttpsEndpoint } from '../../test/support/https-endpoint.js';
import { toolEndpointOptions } from '../../test/support/invocation-factories.js';
import { createOrgWithKey, orgCaller, type OrgWithKey } from '../../test/support/org-factories.js';
import { startScriptedModel, type ScriptedModel } from '../../test/support/scripted-model.js';

/**
 * The wire cases conversations.test.ts leaves out, through the real AI SDK against the scripted server:
 * Anthropic Messages streamed (message_start, content_block_* with text and tool_use input_json_delta,
 * message_delta, message_stop) in a full loop with a tool call; a tool that times out mid-conversation;
 * a provider 429 in a stream, its Retry-After passed on in the stream's error event.
 */
const ENDPOINT_ANSWER = '{"price":12.5,"currency":"EUR","eta":{"days":2}}';

describe.each(testDialects())('conversations over the providers\' streams on %s', (dialect) => {
  let t: TestContext;
  let endpoint: HttpsEndpoint;
  let model: ScriptedModel;
  let org: OrgWithKey;
  let toolId: string;
  let call: ReturnType<typeof orgCaller>;

  beforeAll(async () => {
    endpoint = await startHttpsEndpoint(json(200, JSON.parse(ENDPOINT_ANSWER)));
    model = await startScriptedModel();
    // The shortest tool call timeout config allows, so the timed-out call costs one second.
    t = await createTestContext(dialect, toolEndpointOptions(endpoint, { MODEL_ALLOW_PRIVATE_ENDPOINTS: '1', TOOL_CALL_TIMEOUT_MS: '1000' }));
    call = orgCaller(t.app);
    org = await createOrgWithKey(t.database, t.clock);
    toolId = (await publishedTool(t, endpoint)).id;
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

  it('streams a full loop through Anthropic Messages events: the tool call from input_json_delta, the endpoint\'s JSON to the model byte for byte, the answer in deltas', async () => {
    const conv = await conversationWithTool(t, model, org, toolId, { kind: 'anthropic' });
    model.script(
      { text: 'Let me check.', toolCalls: [{ id: 'toolu_fi', name: conv.toolName, arguments: '{"weightKg":2,"country":"FI"}' }], usage: { input: 40, output: 12 } },
      { text: 'A 2 kg parcel to Finland costs 12.50 EUR.', usage: { input: 90, output: 9 } },
    );
    const res = await sendMessage(t, conv.id, 'Price to Finland?', org, true);
    expect(res.statusCode).toBe(200);
    expect(model.requests.map((r) => [r.path, r.json.stream])).toEqual([['/v1/messages', true], ['/v1/messages', true]]);
    expect(model.requests[0]!.headers['x-api-key']).toBe(MODEL_KEY);

    const list = sseEvents(res.body);
    const types = list.map((e) => e.type);
    expect(types[0]).toBe('start');
    expect(types.at(-1)).toBe('finish');
    expect(list.find((e) => e.type === 'tool-call-start')).toEqual({ type: 'tool-call-start', id: 'toolu_fi', name: conv.toolName, arguments: { weightKg: 2, country: 'FI' } });
    expect(list.find((e) => e.type === 'tool-call-end')).toMatchObject({ id: 'toolu_fi', outcome: 'OK', result: JSON.parse(ENDPOINT_ANSWER), callId: expect.stringMatching(/^call_/) });
    const deltas = list.filter((e) => e.type === 'text-delta').map((e) => e.delta as string);
    expect(deltas.length).toBeGreaterThan(2);
    expect(deltas.join('')).toBe('Let me check.A 2 kg parcel to Finland costs 12.50 EUR.');
    const finish = list.at(-1)!;
    expect(finish).toMatchObject({ status: 'complete', usage: { inputTokens: 130, outputTokens: 21 } });
    expect(finish.messages.map((m: { role: string }) => m.role)).toEqual(['user', 'assistant', 'tool', 'assistant']);
    expect(finish.messages[1]).toMatchObject({ content: 'Let me check.', usage: { inputTokens: 40, outputTokens: 12 } });
    expect(finish.messages[3]).toMatchObject({ content: 'A 2 kg parcel to Finland costs 12.50 EUR.', usage: { inputTokens: 90, outputTokens: 9 } });

    // The endpoint got the call with the agent and org; the model got its JSON unchanged, for its tool_use id.
    expect(endpoint.requests).toHaveLength(1);
    expect(JSON.parse(endpoint.requests[0]!.body.toString('utf8'))).toMatchObject({ weightKg: 2, country: 'FI', _svc_context: { agentId: conv.agentId, orgId: org.orgId } });
    const toolResult = model.requests[1]!.json.messages.at(-1).content[0];
    expect(toolResult).toMatchObject({ type: 'tool_result', tool_use_id: 'toolu_fi' });
    expect(typeof toolResult.content === 'string' ? toolResult.content : toolResult.content[0].text).toBe(ENDPOINT_ANSWER);
    expect((await call('GET', `/api/org/conversations/${conv.id}`, org)).json().data.messages).toEqual(finish.messages);
  });

  it('hands a tool that times out mid-conversation back to the model as TOOL_TIMEOUT; the model answers and the turn completes', async () => {
    const conv = await conversationWithTool(t, model, org, toolId);
    // The endpoint holds the call past TOOL_CALL_TIMEOUT_MS (1 s).
    endpoint.respond(delayed(5000, json(200, JSON.parse(ENDPOINT_ANSWER))));
    model.script(
      { toolCalls: [{ id: 'call_slow', name: conv.toolName, arguments: '{"weightKg":2,"country":"FI"}' }] },
      { text: 'The price service is not answering; please try again in a minute.' },
    );
    const res = await sendMessage(t, conv.id, 'Price to Finland?', org);
    expect(res.statusCode, res.body).toBe(200);
    const messages = res.json().data.messages;
    expect(messages.map((m: { role: string; status: string }) => [m.role, m.status])).toEqual([['user', 'complete'], ['assistant', 'complete'], ['tool', 'complete'], ['assistant', 'complete']]);
    const toolCall = messages[2].toolCall;
    expect(toolCall).toMatchObject({
      outcome: 'TOOL_TIMEOUT',
      callId: expect.stringMatching(/^call_/),
      result: { error: { code: 'TOOL_TIMEOUT', message: 'The tool\'s endpoint did not answer within 1 s. The call was cancelled; it may or may not have taken effect.' } },
    });
    expect(toolCall.durationMs).toBeGreaterThanOrEqual(900);
    // What the model was handed is exactly the saved result, and it answered from it.
    expect(JSON.parse(model.requests[1]!.json.messages.find((m: { role: string }) => m.role === 'tool').content)).toEqual(toolCall.result);
    expect(messages[3].content).toBe('The price service is not answering; please try again in a minute.');
    const logged = (await call('GET', `/api/org/tool-calls?conversationId=${conv.id}`, org)).json().data.items;
    expect(logged).toMatchObject([{ id: toolCall.callId, outcome: 'TOOL_TIMEOUT', path: 'conversation', conversationId: conv.id }]);
  });

  it.each(['openai', 'anthropic'])('passes a provider 429 and its Retry-After on in the stream (%s), saved as an error, never with the key', async (kind) => {
    const conv = await conversationWithTool(t, model, org, toolId, { kind });
    model.script({ status: 429, error: `Rate limit reached for key ${MODEL_KEY}.`, headers: { 'retry-after': '17' } });
    const res = await sendMessage(t, conv.id, 'Hello?', org, true);
    expect(res.statusCode).toBe(200);
    expect(res.body).not.toContain(MODEL_KEY);
    const list = sseEvents(res.body);
    expect(list.find((e) => e.type === 'error')).toEqual({
      type: 'error', code: 'MODEL_PROVIDER_RATE_LIMITED', retryAfter: '17',
      message: expect.stringMatching(/^The model provider answered 429 Too Many Requests: .*Rate limit reached for key \[redacted\]\./),
    });
    expect(list.at(-1)).toMatchObject({ type: 'finish', status: 'error' });
    const transcript = (await call('GET', `/api/org/conversations/${conv.id}`, org)).json().data;
    expect(transcript.messages.at(-1)).toMatchObject({ role: 'assistant', status: 'error', error: { code: 'MODEL_PROVIDER_RATE_LIMITED' } });
    expect(JSON.stringify(transcript)).not.toContain(MODEL_KEY);
  });
});
