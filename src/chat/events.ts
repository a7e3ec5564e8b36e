import type { TurnEvent } from '../conversations/service.js';
import type { ConversationMessage } from '../conversations/schema.js';
import { KIND_FAILURE } from './errors.js';
import type { LeadOffer } from './lead-tool.js';
import type { ChatMessage } from './schema.js';

/**
 * What the visitor may see of a conversation: the stream's events and the history, mapped from the
 * conversations feature's turn events and rows. The model's text is shown; tool calls only as "a tool
 * started" (`tool-call {name}`), never their arguments or results; a failure only as a kind message, never
 * the provider's words (those stay in the operator's transcript).
 */

/** One visitor event: `event: <type>` and its data as JSON (docs/chat-widget.md). */
export function sseEvent(type: string, data: object): string {
  return `event: ${type}\ndata: ${JSON.stringify(data)}\n\n`;
}

/**
 * A turn's events → the visitor's events (each call answers the text to write, '' for what the visitor does not
 * see). One answer per turn: the texts of the turn's model requests (before and after its tool calls) arrive as
 * one message, a blank line between them, as the history shows them after a reload. Lead capture adds its
 * `lead-capture` event here (the capture tool's call becomes a card instead of `tool-call`).
 */
export function createVisitorEventMapper(captureEvent?: LeadOffer['captureEvent']): (event: TurnEvent) => string {
  let textSent = false;
  let newStep = false;
  return (event) => {
    switch (event.type) {
      case 'start':
        return sseEvent('start', { messageId: event.answerId });
      case 'step-start':
        newStep = true;
        return '';
      case 'text-delta': {
        if (event.delta === '') return '';
        const delta = textSent && newStep ? `\n\n${event.delta}` : event.delta;
        textSent = true;
        newStep = false;
        return sseEvent('text-delta', { delta });
      }
      case 'tool-call-start':
        return sseEvent('tool-call', { name: event.name });
      case 'tool-call-pending': {
        // The turn ended at the capture tool's call: the card to draw (chat/lead-service.ts).
        const card = captureEvent?.(event);
        return card ? sseEvent('lead-capture', card) : '';
      }
      case 'error':
        return sseEvent('error', { code: event.code, message: KIND_FAILURE, ...(event.retryAfter === undefined ? {} : { retryAfter: event.retryAfter }) });
      case 'finish':
        return sseEvent('finish', { status: event.status });
      default:
        // tool-call-end (the result), tool-call-refused, step-finish: internal.
        return '';
    }
  };
}

/**
 * The conversation's messages (its transcript) → what the visitor saw, in order. A turn's answers are one message (its texts with a
 * blank line between, under the id its stream's `start` gave), as they were streamed; a lead card splits it.
 * `leadCardOf`: a `tool` message → its lead card (chat/lead-service.ts `cards`), undefined for any other call (never shown).
 */
export function visitorHistory(rows: readonly ConversationMessage[], leadCardOf: (message: ConversationMessage) => ChatMessage | undefined = () => undefined): ChatMessage[] {
  const messages: ChatMessage[] = [];
  let answer: ChatMessage | undefined;
  let answerId: string | undefined;
  for (const row of rows) {
    if (row.role === 'user') {
      messages.push({ role: 'user', id: row.id, content: row.content ?? '', createdAt: row.createdAt });
      answer = undefined;
      answerId = undefined;
    } else if (row.role === 'assistant') {
      // The turn's first answer carries the id its stream announced.
      answerId ??= row.id;
      // A failed answer was shown as the kind message; the provider's words are the operator's.
      const content = row.status === 'error' ? KIND_FAILURE : (row.content ?? '');
      // An answer that only called tools has no text to show.
      if (content === '') continue;
      if (answer) answer.content = `${answer.content ?? ''}\n\n${content}`;
      else {
        answer = { role: 'assistant', id: answerId, content, createdAt: row.createdAt };
        messages.push(answer);
      }
    } else if (row.role === 'tool') {
      const card = leadCardOf(row);
      if (card) {
        messages.push(card);
        answer = undefined;
        answerId = undefined;
      }
    }
  }
  return messages;
}
