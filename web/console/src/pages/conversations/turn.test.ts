import { describe, expect, it } from 'vitest';
import type { ConversationMessage } from '../../api/types';
import type { TurnEvent } from './api';
import { applyEvent, live, spoken, stopped } from './turn';

const saved = (fields: Partial<ConversationMessage>): ConversationMessage => ({
  id: `msg_${fields.role}`, role: 'user', content: null, status: 'complete', error: null, toolCall: null, usage: null, author: null, createdAt: '2026-11-26T10:00:00.000Z', ...fields,
});

/** The messages after a turn's events, starting from one earlier message and the turn's optimistic user message. */
function run(events: TurnEvent[]): ConversationMessage[] {
  let messages = [saved({ id: 'msg_old', content: 'Earlier' }), live('user', { content: 'Hi' })];
  for (const event of events) messages = applyEvent(messages, event, 1);
  return messages;
}

const call = { id: 'call_1', name: 'quote', arguments: { kg: 2 } };

describe('the Playground’s live messages', () => {
  it('replaces the optimistic message with the saved one, grows the answer piece by piece, and a new text after tool calls is a new answer', () => {
    const messages = run([
      { type: 'start', conversationId: 'conv_1', message: saved({ id: 'msg_user', content: 'Hi' }) },
      { type: 'text-delta', delta: 'Let me ' },
      { type: 'text-delta', delta: 'check.' },
      { type: 'tool-call-start', ...call },
      { type: 'tool-call-end', id: 'call_1', name: 'quote', result: { price: 12 }, outcome: 'OK', durationMs: 84, callId: 'call_log1' },
      { type: 'text-delta', delta: '12 EUR.' },
    ]);
    expect(messages.map((m) => [m.role, m.content, m.status])).toEqual([
      ['user', 'Earlier', 'complete'],
      ['user', 'Hi', 'complete'],
      ['assistant', 'Let me check.', 'complete'],
      ['tool', null, 'complete'],
      ['assistant', '12 EUR.', 'streaming'],
    ]);
    expect(messages[1]!.id).toBe('msg_user');
    expect(messages[3]!.toolCall).toEqual({ ...call, result: { price: 12 }, outcome: 'OK', durationMs: 84, callId: 'call_log1' });
  });

  it('shows a tool call as running until its end, and Stop marks what was unfinished as stopped', () => {
    const running = run([{ type: 'tool-call-start', ...call }]);
    expect(running.at(-1)).toMatchObject({ role: 'tool', status: 'running', toolCall: { name: 'quote', outcome: '' } });
    expect(stopped(running).at(-1)!.status).toBe('cancelled');
    const writing = run([{ type: 'text-delta', delta: 'Half' }]);
    expect(stopped(writing).at(-1)).toMatchObject({ content: 'Half', status: 'cancelled' });
  });

  it('puts a provider error on the answer being written, or as an answer of its own', () => {
    const error = { type: 'error', code: 'MODEL_PROVIDER_ERROR', message: 'Bad key' } as const;
    expect(run([{ type: 'text-delta', delta: 'Par' }, error]).at(-1)).toMatchObject({ content: 'Par', status: 'error', error: { code: 'MODEL_PROVIDER_ERROR', message: 'Bad key' } });
    const alone = run([error]);
    expect(alone).toHaveLength(3);
    expect(alone.at(-1)).toMatchObject({ role: 'assistant', status: 'error' });
    expect(spoken(alone)).toBe('No answer: The model provider could not answer. Check the provider’s key and base URL, and the model’s id.');
  });

  it('finish puts the saved messages in place of the turn’s live ones, leaving earlier turns be', () => {
    const final = [saved({ id: 'msg_u', content: 'Hi' }), saved({ id: 'msg_a', role: 'assistant', content: 'Hello!' })];
    const messages = run([{ type: 'text-delta', delta: 'Hel' }, { type: 'finish', status: 'complete', conversationId: 'conv_1', messages: final, usage: { inputTokens: 1, outputTokens: 1 } }]);
    expect(messages.map((m) => m.id)).toEqual(['msg_old', 'msg_u', 'msg_a']);
    expect(spoken(messages)).toBe('The agent answered: Hello!');
  });
});
