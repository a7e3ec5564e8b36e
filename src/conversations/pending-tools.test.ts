import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { testDialects } from '../../test/support/context.js';
import { MODEL_KEY } from '../../test/support/conversation-factories.js';
import { createAgent, toolHostResolver } from '../../test/support/invocation-factories.js';
import { createOrgWithKey, orgCaller, type OrgWithKey } from '../../test/support/org-factories.js';
import { startScriptedModel, type ScriptedModel } from '../../test/support/scripted-model.js';
import { createWebhookTestContext, type WebhookTestContext } from '../../test/support/webhook-context.js';
import { AppError } from '../http/errors.js';
import type { PendingTool } from './loop.js';
import type { TurnEvent } from './service.js';

/**
 * Tools the caller answers itself (loop.ts PendingTool; the chat widget's capture_lead): offered to the model
 * without `execute`, so the model's call ends the turn with the call saved as PENDING and no result; the
 * caller's answer (resumeTurn) goes to the model as the call's result and the model's next answer follows. On
 * both providers' wire formats, streamed and not, against the scripted model server on 127.0.0.1.
 */
const ASK: PendingTool = {
  name: 'ask_visitor',
  description: 'Ask the visitor to confirm a time.',
  parameters: { type: 'object', properties: { when: { type: 'string' } }, required: ['when'], additionalProperties: false },
};

describe.each(testDialects())('pending tools on %s', (dialect) => {
  let t: WebhookTestContext;
  let model: ScriptedModel;
  let org: OrgWithKey;
  const providers: Record<string, string> = {};

  beforeAll(async () => {
    model = await startScriptedModel();
    t = await createWebhookTestContext(dialect, { env: { MODEL_ALLOW_PRIVATE_ENDPOINTS: '1' }, resolveHost: toolHostResolver() });
    org = await createOrgWithKey(t.database, t.clock);
    for (const kind of ['openai', 'anthropic']) {
      const res = await orgCaller(t.app)('POST', '/api/org/model-providers', org, { name: `Scripted ${kind}`, kind, baseUrl: model.baseUrl, apiKey: MODEL_KEY });
      expect(res.statusCode, res.body).toBe(201);
      providers[kind] = res.json().data.id;
    }
  });
  afterEach(() => {
    model.requests.length = 0;
  });
  afterAll(async () => {
    await t.close();
    await model.close();
  });

  async function conversation(kind: string): Promise<string> {
    const call = orgCaller(t.app);
    const agent = await createAgent(t.app, org);
    const set = await call('PATCH', `/api/org/agents/${agent.id}`, org, { model: { providerId: providers[kind], model: 'scripted-model', instructions: 'You book visits.' } });
    expect(set.statusCode, set.body).toBe(200);
    const created = await call('POST', `/api/org/agents/${agent.id}/conversations`, org);
    expect(created.statusCode, created.body).toBe(201);
    return created.json().data.id;
  }
  const transcript = async (id: string) => (await t.services.conversations.get(org.orgId, id)).messages;
  async function run(turn: Awaited<ReturnType<typeof t.services.conversations.startTurn>>, stream: boolean) {
    const events: TurnEvent[] = [];
    const result = await turn.run({ stream, signal: new AbortController().signal, emit: (event) => events.push(event) });
    return { result, events };
  }
  /** The tool results the model got in request `index`, as [call id, JSON]. */
  function toolResults(index: number, kind: string): Array<[string, unknown]> {
    const messages = model.requests[index]!.json.messages as Array<{ role: string; tool_call_id?: string; content: any }>;
    if (kind === 'openai') return messages.filter((m) => m.role === 'tool').map((m) => [m.tool_call_id!, JSON.parse(m.content)]);
    return messages.flatMap((m) => (Array.isArray(m.content) ? m.content : []))
      .filter((part: { type: string }) => part.type === 'tool_result')
      .map((part: { tool_use_id: string; content: Array<{ text: string }> | string }) => [part.tool_use_id, JSON.parse(typeof part.content === 'string' ? part.content : part.content[0]!.text)]);
  }

  describe.each([['openai', false], ['openai', true], ['anthropic', false], ['anthropic', true]])('on %s, streamed: %s', (kind, stream) => {
    it('a call ends the turn pending, nothing run; the caller\'s answer goes to the model as its result', async () => {
      const id = await conversation(kind);
      model.script({ text: 'Let me check with you.', toolCalls: [{ id: 'call_when', name: 'ask_visitor', arguments: '{"when":"Tuesday 10:00"}' }] });
      const first = await run(await t.services.conversations.startTurn(org.orgId, id, 'Book me for Tuesday', { pendingTools: [ASK] }), stream);

      // One model request: the loop stopped at the call. The tool was offered with its schema.
      expect(model.requests).toHaveLength(1);
      const offered = kind === 'openai' ? model.requests[0]!.json.tools[0].function : model.requests[0]!.json.tools[0];
      expect(offered.name).toBe('ask_visitor');
      expect(first.result.status).toBe('complete');
      expect(first.events.filter((e) => e.type === 'tool-call-pending')).toEqual([{ type: 'tool-call-pending', id: 'call_when', name: 'ask_visitor', arguments: { when: 'Tuesday 10:00' } }]);
      expect(first.events.some((e) => e.type === 'tool-call-start')).toBe(false);
      expect(first.result.messages.map((m) => [m.role, m.toolCall?.outcome ?? null])).toEqual([['user', null], ['assistant', null], ['tool', 'PENDING']]);
      expect((await transcript(id)).at(-1)!.toolCall).toMatchObject({ id: 'call_when', name: 'ask_visitor', arguments: { when: 'Tuesday 10:00' }, result: null, outcome: 'PENDING', callId: null });

      // A decision that refuses saves nothing, leaves the call pending and frees the conversation.
      const refused = t.services.conversations.resumeTurn(org.orgId, id, async () => { throw new AppError('VALIDATION_ERROR', 'Not like this.'); }, { pendingTools: [ASK] });
      await expect(refused).rejects.toMatchObject({ code: 'VALIDATION_ERROR' });
      expect((await transcript(id)).at(-1)!.toolCall!.outcome).toBe('PENDING');

      // The answer: handed to the model as the call's result, saved with its outcome; the model answers.
      model.script({ text: 'Booked for Tuesday at 10.' });
      const seen: string[] = [];
      const resumed = await t.services.conversations.resumeTurn(org.orgId, id, async (conversation) => {
        seen.push(...conversation.messages.map((m) => m.role));
        return { toolCallId: 'call_when', result: { status: 'confirmed' }, outcome: 'CONFIRMED' };
      }, { pendingTools: [ASK] });
      const second = await run(resumed, stream);
      expect(seen).toEqual(['user', 'assistant', 'tool']);
      expect(toolResults(1, kind)).toEqual([['call_when', { status: 'confirmed' }]]);
      expect(second.result.messages.map((m) => [m.role, m.content, m.toolCall?.outcome ?? null])).toEqual([['tool', null, 'CONFIRMED'], ['assistant', 'Booked for Tuesday at 10.', null]]);
      expect(second.events[0]).toMatchObject({ type: 'start', message: { role: 'tool', toolCall: { id: 'call_when', result: { status: 'confirmed' } } } });
      const saved = await transcript(id);
      expect(saved.map((m) => m.role)).toEqual(['user', 'assistant', 'tool', 'assistant']);
      expect(saved[2]!.toolCall).toMatchObject({ result: { status: 'confirmed' }, outcome: 'CONFIRMED' });

      // Answered once: a second answer to the same call is refused, and nothing reaches the model.
      const again = t.services.conversations.resumeTurn(org.orgId, id, async () => ({ toolCallId: 'call_when', result: {}, outcome: 'CONFIRMED' }));
      await expect(again).rejects.toMatchObject({ code: 'CONFLICT', message: 'That call is not waiting for an answer.' });
      expect(model.requests).toHaveLength(2);
    });
  });

  it('a new message while a call is pending answers it {status: "declined"} first, then the message', async () => {
    const id = await conversation('openai');
    model.script({ toolCalls: [{ id: 'call_pending', name: 'ask_visitor', arguments: '{"when":"now"}' }] });
    await run(await t.services.conversations.startTurn(org.orgId, id, 'Book me', { pendingTools: [ASK] }), true);
    model.script({ text: 'We are open 9 to 5.' });
    const next = await run(await t.services.conversations.startTurn(org.orgId, id, 'When are you open?', { pendingTools: [ASK] }), true);
    const sent = model.requests[1]!.json.messages as Array<{ role: string; content: unknown; tool_call_id?: string }>;
    expect(sent.slice(1).map((m) => m.role)).toEqual(['user', 'assistant', 'tool', 'user']);
    expect(sent[3]).toMatchObject({ tool_call_id: 'call_pending', content: '{"status":"declined"}' });
    expect(next.result.messages.map((m) => [m.role, m.toolCall?.outcome ?? null])).toEqual([['tool', 'DECLINED'], ['user', null], ['assistant', null]]);
    expect((await transcript(id))[2]!.toolCall).toMatchObject({ result: { status: 'declined' }, outcome: 'DECLINED' });
  });
});
