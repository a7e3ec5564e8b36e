import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createTestContext, testDialects, type TestContext } from '../../test/support/context.js';
import { conversationWithTool, publishedTool, sendMessage, sseEvents } from '../../test/support/conversation-factories.js';
import { json, startHttpsEndpoint, type HttpsEndpoint } from '../../test/support/https-endpoint.js';
import { toolEndpointOptions } from '../../test/support/invocation-factories.js';
import { createOrgWithKey, orgCaller, type OrgWithKey } from '../../test/support/org-factories.js';
import { startScriptedModel, type ScriptedModel } from '../../test/support/scripted-model.js';
import { MAX_STEP_TOKENS, MAX_TOOL_ARGUMENTS_BYTES } from './model-output.js';

/**
 * Model output is input (issue 32): what a model answers — tool-call arguments, text, token counts — meets the
 * limits a request body meets before anything of ours or the SDK's reads it. A call whose arguments are over a
 * limit is refused before it runs and the model is told why (INVALID_ARGUMENTS, in our words); text that cannot
 * be stored is made storable; counts are bounded. No internal exception's message reaches the caller.
 */
describe.each(testDialects())('model output as input on %s', (dialect) => {
  let t: TestContext;
  let endpoint: HttpsEndpoint;
  let model: ScriptedModel;
  let org: OrgWithKey;
  let toolId: string;
  let call: ReturnType<typeof orgCaller>;

  beforeAll(async () => {
    endpoint = await startHttpsEndpoint(json(200, { price: 12.5 }));
    model = await startScriptedModel();
    t = await createTestContext(dialect, toolEndpointOptions(endpoint, { MODEL_ALLOW_PRIVATE_ENDPOINTS: '1' }));
    call = orgCaller(t.app);
    org = await createOrgWithKey(t.database, t.clock);
    toolId = (await publishedTool(t, endpoint)).id;
  });
  afterEach(() => {
    model.requests.length = 0;
    endpoint.reset();
  });
  afterAll(async () => {
    await t.close();
    await endpoint.close();
    await model.close();
  });

  const deep = (depth: number) => '{"a":'.repeat(depth) + '1' + '}'.repeat(depth);
  const large = () => JSON.stringify({ weightKg: 2, country: 'FI', note: 'x'.repeat(MAX_TOOL_ARGUMENTS_BYTES) });
  /** The tool results the model was sent back in its second request (Chat Completions or Messages). */
  const resultsSentBack = (kind: string): unknown[] => {
    const body = model.requests[1]!.json;
    if (kind === 'anthropic') return body.messages.flatMap((m: any) => (Array.isArray(m.content) ? m.content : [])).filter((p: any) => p.type === 'tool_result').map((p: any) => JSON.parse(typeof p.content === 'string' ? p.content : p.content.map((c: any) => c.text).join('')));
    return body.messages.filter((m: any) => m.role === 'tool').map((m: any) => JSON.parse(m.content));
  };

  const cases = [
    { kind: 'openai', stream: false, args: deep(5000), problem: 'more than 64 levels deep' },
    { kind: 'openai', stream: true, args: deep(5000), problem: 'more than 64 levels deep' },
    { kind: 'anthropic', stream: true, args: deep(5000), problem: 'more than 64 levels deep' },
    { kind: 'anthropic', stream: false, args: deep(3000), problem: 'more than 64 levels deep' },
    { kind: 'openai', stream: true, args: large(), problem: 'larger than 128 KB' },
    { kind: 'anthropic', stream: false, args: large(), problem: 'larger than 128 KB' },
  ];
  for (const { kind, stream, args, problem } of cases) {
    it(`refuses a call whose arguments are ${problem} before it runs, and tells the model (${kind}, ${stream ? 'streamed' : 'JSON'})`, async () => {
      const conv = await conversationWithTool(t, model, org, toolId, { kind });
      model.script({ toolCalls: [{ id: 'call_over', name: conv.toolName, arguments: args }], usage: { input: 30, output: 20 } }, { text: 'Sorry, I could not check that.', usage: { input: 40, output: 8 } });
      const res = await sendMessage(t, conv.id, 'Price to Finland?', org, stream);
      expect(res.statusCode, res.body.slice(0, 500)).toBe(200);
      expect(res.body).not.toMatch(/call stack|RangeError|Maximum/i);
      if (stream) expect(sseEvents(res.body).at(-1)).toMatchObject({ type: 'finish', status: 'complete' });

      // Never sent to the endpoint; the model got a result it can read, and answered.
      expect(endpoint.requests).toHaveLength(0);
      expect(model.requests).toHaveLength(2);
      expect(resultsSentBack(kind)).toEqual([{ error: { code: 'INVALID_ARGUMENTS', message: expect.stringContaining(problem) } }]);

      // The transcript keeps the call, refused, without the arguments.
      const transcript = (await call('GET', `/api/org/conversations/${conv.id}`, org)).json().data;
      const toolMessage = transcript.messages.find((m: any) => m.role === 'tool');
      expect(toolMessage.toolCall).toMatchObject({ id: 'call_over', outcome: 'INVALID_ARGUMENTS', arguments: null, result: { error: { code: 'INVALID_ARGUMENTS' } }, callId: null });
      expect(transcript.messages.at(-1)).toMatchObject({ role: 'assistant', content: 'Sorry, I could not check that.', status: 'complete' });
    });
  }

  it('keeps a call with arguments under the limits as it was', async () => {
    const conv = await conversationWithTool(t, model, org, toolId);
    model.script({ toolCalls: [{ id: 'call_ok', name: conv.toolName, arguments: JSON.stringify({ weightKg: 2, country: 'FI' }) }] }, { text: '12.50 EUR.' });
    expect((await sendMessage(t, conv.id, 'Price?', org)).statusCode).toBe(200);
    expect(endpoint.requests).toHaveLength(1);
    expect(resultsSentBack('openai')).toEqual([{ price: 12.5 }]);
  });

  for (const stream of [false, true]) {
    it(`stores text with control characters and lone surrogates as text that can be stored and shown (${stream ? 'streamed' : 'JSON'})`, async () => {
      const conv = await conversationWithTool(t, model, org, toolId);
      model.script({ text: 'Price:\u0000 12\u0007.50\tEUR\n\uD800 ok \uD83D\uDE00' });
      const res = await sendMessage(t, conv.id, 'Price?', org, stream);
      expect(res.statusCode, res.body.slice(0, 500)).toBe(200);
      const expected = 'Price: 12.50\tEUR\n\uFFFD ok \uD83D\uDE00';
      if (stream) {
        const deltas = sseEvents(res.body).filter((e) => e.type === 'text-delta').map((e) => e.delta).join('');
        expect(deltas).toBe(expected);
      }
      const transcript = (await call('GET', `/api/org/conversations/${conv.id}`, org)).json().data;
      expect(transcript.messages.at(-1)).toMatchObject({ role: 'assistant', content: expected, status: 'complete' });
    });
  }

  it('counts token usage a provider reports as negative or absurd within bounds', async () => {
    const conv = await conversationWithTool(t, model, org, toolId);
    model.script({ text: 'Hi.', usage: { input: -50, output: 9e15 } });
    const res = await sendMessage(t, conv.id, 'Hello', org);
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().data.usage).toEqual({ inputTokens: 0, outputTokens: MAX_STEP_TOKENS });
    const transcript = (await call('GET', `/api/org/conversations/${conv.id}`, org)).json().data;
    expect(transcript.usage).toEqual({ inputTokens: 0, outputTokens: MAX_STEP_TOKENS });
  });

  it('says a provider answer it cannot read in its own words, never an exception\'s', async () => {
    const conv = await conversationWithTool(t, model, org, toolId, { kind: 'anthropic' });
    // A Messages answer whose tool input is deeper than JSON.stringify can go: the SDK's provider fails reading
    // it (a RangeError inside doGenerate), before any check of ours sees it.
    const input = deep(20000);
    model.script({ body: `{"id":"msg_deep","type":"message","role":"assistant","model":"m","content":[{"type":"tool_use","id":"call_deep","name":"${conv.toolName}","input":${input}}],"stop_reason":"tool_use","stop_sequence":null,"usage":{"input_tokens":5,"output_tokens":5}}` });
    const res = await sendMessage(t, conv.id, 'Price?', org);
    expect(res.body).not.toMatch(/call stack|RangeError|Maximum/i);
    expect(res.statusCode, res.body.slice(0, 300)).toBe(502);
    expect(res.json()).toMatchObject({ code: 'MODEL_PROVIDER_ERROR', error: expect.stringMatching(/^The model provider's answer could not be read\./) });
  });
});
