import type { ConversationMessage } from '../../api/types';
import { providerProblem, type TurnEvent } from './api';

/**
 * The Playground's messages as a turn streams in: each event of docs/conversations.md applied to the list,
 * until `finish` puts the saved messages in place of the live ones.
 */

let liveIds = 0;
/** A message shown before the server has saved it (the `finish` event brings the saved ones). */
export function live(role: string, fields: Partial<ConversationMessage> = {}): ConversationMessage {
  liveIds += 1;
  return { id: `live-${liveIds}`, role, content: null, status: 'complete', error: null, toolCall: null, usage: null, author: null, createdAt: new Date().toISOString(), ...fields };
}

/** The last assistant answer being written, if any, ended with `status` (a tool call, an error or Stop ended it). */
export function endWriting(messages: ConversationMessage[], status: string, fields: Partial<ConversationMessage> = {}): ConversationMessage[] {
  return messages.map((m) => (m.status === 'streaming' ? { ...m, status, ...fields } : m));
}

/** After Stop: the answer being written and the tool calls still running are marked stopped (the server saves them so). */
export function stopped(messages: ConversationMessage[]): ConversationMessage[] {
  return endWriting(messages, 'cancelled').map((m) => (m.status === 'running' ? { ...m, status: 'cancelled' } : m));
}

/** The live messages after one event of the turn that began at `from` (the index of its user message). */
export function applyEvent(messages: ConversationMessage[], event: TurnEvent, from: number): ConversationMessage[] {
  switch (event.type) {
    case 'start':
      return [...messages.slice(0, from), event.message, ...messages.slice(from + 1)];
    case 'text-delta': {
      const last = messages[messages.length - 1];
      if (last?.role === 'assistant' && last.status === 'streaming') return [...messages.slice(0, -1), { ...last, content: `${last.content ?? ''}${event.delta}` }];
      return [...messages, live('assistant', { content: event.delta, status: 'streaming' })];
    }
    case 'tool-call-start':
      return [
        ...endWriting(messages, 'complete'),
        live('tool', { status: 'running', toolCall: { id: event.id, name: event.name, arguments: event.arguments, result: undefined, outcome: '', durationMs: 0, callId: null } }),
      ];
    case 'tool-call-end':
      return messages.map((m) =>
        m.role === 'tool' && m.status === 'running' && m.toolCall?.id === event.id
          ? { ...m, status: 'complete', toolCall: { ...m.toolCall, result: event.result, outcome: event.outcome, durationMs: event.durationMs, callId: event.callId } }
          : m,
      );
    case 'error': {
      const error = { code: event.code, message: event.message };
      return messages.some((m) => m.status === 'streaming') ? endWriting(messages, 'error', { error }) : [...messages, live('assistant', { status: 'error', error })];
    }
    case 'finish':
      return event.messages.length ? [...messages.slice(0, from), ...event.messages] : messages;
  }
}

/** What the live region says once a turn has ended: the answer itself, or why there is none. */
export function spoken(messages: ConversationMessage[]): string {
  const answer = [...messages].reverse().find((m) => m.role === 'assistant' && (m.content || m.status !== 'complete'));
  if (!answer) return 'The agent answered.';
  if (answer.status === 'error' && answer.error) return `No answer: ${providerProblem(answer.error.code)}`;
  return `The agent answered: ${answer.content ?? ''}`;
}
