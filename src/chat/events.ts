import type { TurnEvent } from '../conversations/service.js';
import type { ConversationMessage } from '../conversations/schema.js';
import { KIND_FAILURE } from './errors.js';
import { sseEvent } from '../conversations/event-streams.js';
import { TEAM } from '../conversations/handoff.js';
import type { LeadCaptureEvent, LeadOffer } from './lead-tool.js';
import type { ChatMessage } from './schema.js';

/**
 * What the visitor may see of a conversation: the stream's events and the history, mapped from the
 * conversations feature's turn events and rows. The model's text is shown; tool calls only as "a tool
 * started" (`tool-call {name}`), never their arguments or results; a failure only as a kind message, never
 * the provider's words (those stay in the operator's transcript).
 */

/** One visitor event: `event: <type>` and its data as JSON (docs/chat-widget.md); with `id:` on the session's event stream. */
export { sseEvent };

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

/** A message of the conversation as the visitor's views read it (history: a transcript message; stream: a visible row). */
export interface VisitorRow {
  id: string;
  role: string;
  content: string | null;
  status: string;
  createdAt: string;
  /** operator messages: who wrote it (`Team` for an API key's). */
  authorName: string | null;
  /** event messages: the status they moved the conversation to. */
  event: { status: string; assigneeName: string | null } | null;
  /** tool messages: the call. */
  call: { id: string; name: string; outcome: string; arguments: unknown } | null;
}

type Item<C> = (
  | { kind: 'user' | 'operator' | 'event'; id: string; row: VisitorRow }
  | { kind: 'assistant'; id: string; content: string; createdAt: string }
  | { kind: 'lead'; id: string; card: C }
) & { /** The first row the item covers. */ first: number };

/**
 * The conversation's rows → what the visitor sees, in order: their messages; a turn's answers as one message (its
 * texts with a blank line between, under the id its stream's `start` gave: the first answer's), split by a lead
 * card; a member's replies; status changes. Tool calls are never shown, only lead cards (`cardOf`). The history
 * and the event stream both read this, so they always agree.
 */
function visitorItems<C>(rows: readonly VisitorRow[], cardOf: (row: VisitorRow) => C | undefined): Array<Item<C>> {
  const items: Array<Item<C>> = [];
  let answer: Extract<Item<C>, { kind: 'assistant' }> | undefined;
  let answerId: string | undefined;
  let answerStart = 0;
  rows.forEach((row, index) => {
    if (row.role === 'user' || row.role === 'operator' || row.role === 'event') {
      items.push({ kind: row.role, id: row.id, row, first: index });
      answer = undefined;
      answerId = undefined;
    } else if (row.role === 'assistant') {
      // The turn's first answer carries the id its stream announced.
      if (answerId === undefined) {
        answerId = row.id;
        answerStart = index;
      }
      // A failed answer was shown as the kind message; the provider's words are the operator's.
      const content = row.status === 'error' ? KIND_FAILURE : (row.content ?? '');
      // An answer that only called tools has no text to show.
      if (content === '') return;
      if (answer) answer.content = `${answer.content}\n\n${content}`;
      else {
        answer = { kind: 'assistant', id: answerId, content, createdAt: row.createdAt, first: answerStart };
        items.push(answer);
      }
    } else if (row.role === 'tool') {
      const card = cardOf(row);
      if (card) {
        items.push({ kind: 'lead', id: row.id, card, first: index });
        answer = undefined;
        answerId = undefined;
      }
    }
  });
  return items;
}

/** A transcript message as the visitor's views read it. */
export function visitorRowOf(message: ConversationMessage): VisitorRow {
  return {
    id: message.id, role: message.role, content: message.content, status: message.status, createdAt: message.createdAt,
    // An API key's replies are signed "Team" (the operator's transcript names no one).
    authorName: message.author?.name ?? (message.role === 'operator' ? TEAM : null), event: null,
    call: message.toolCall ? { id: message.toolCall.id, name: message.toolCall.name, outcome: message.toolCall.outcome, arguments: message.toolCall.arguments } : null,
  };
}

/**
 * The conversation's messages (its transcript) → what the visitor saw, in order (visitorItems). `operator`: a
 * member's reply with `author: {name}`; `event`: a status change's text. `leadCardOf`: a `tool` message → its lead
 * card (chat/lead-service.ts `cards`), undefined for any other call (never shown).
 */
export function visitorHistory(rows: readonly ConversationMessage[], leadCardOf: (message: ConversationMessage) => ChatMessage | undefined = () => undefined): ChatMessage[] {
  const byId = new Map(rows.map((row) => [row.id, row]));
  const items = visitorItems(rows.map(visitorRowOf), (row) => leadCardOf(byId.get(row.id)!));
  return items.map((item): ChatMessage => {
    switch (item.kind) {
      case 'user':
        return { role: 'user', id: item.id, content: item.row.content ?? '', createdAt: item.row.createdAt };
      case 'operator':
        return { role: 'operator', id: item.id, content: item.row.content ?? '', author: { name: item.row.authorName ?? '' }, createdAt: item.row.createdAt };
      case 'event':
        return { role: 'event', id: item.id, content: item.row.content ?? '', createdAt: item.row.createdAt };
      case 'assistant':
        return { role: 'assistant', id: item.id, content: item.content, createdAt: item.createdAt };
      case 'lead':
        return item.card;
    }
  });
}

/**
 * Rows → the visitor's event stream (docs/chat-widget.md): `message` for an answer, a member's reply and a status
 * change's text; `status` after a status change; `lead-capture` for a pending lead card (`cardOf`). Each with
 * `id:` its message id (an answer's: its first message's), what Last-Event-ID resumes from. The visitor's own
 * messages are not sent back. `resumed`: the first row is the one the client saw last (Last-Event-ID), so what it
 * begins was sent already.
 */
export function visitorStream(rows: readonly VisitorRow[], cardOf: (row: VisitorRow) => LeadCaptureEvent | undefined, resumed = false): string {
  let text = '';
  for (const item of visitorItems(rows, cardOf)) {
    if (resumed && item.first === 0) continue;
    if (item.kind === 'assistant') {
      text += sseEvent('message', { id: item.id, role: 'assistant', content: item.content, author: null, createdAt: item.createdAt }, item.id);
    } else if (item.kind === 'operator') {
      text += sseEvent('message', { id: item.id, role: 'operator', content: item.row.content ?? '', author: { name: item.row.authorName ?? '' }, createdAt: item.row.createdAt }, item.id);
    } else if (item.kind === 'event') {
      text += sseEvent('message', { id: item.id, role: 'event', content: item.row.content ?? '', author: null, createdAt: item.row.createdAt }, item.id);
      text += sseEvent('status', { status: item.row.event?.status ?? 'bot', assigneeName: item.row.event?.assigneeName ?? null }, item.id);
    } else if (item.kind === 'lead') {
      text += sseEvent('lead-capture', item.card, item.id);
    }
  }
  return text;
}
