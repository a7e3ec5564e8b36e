import type { FastifyReply } from 'fastify';
import type { EventStreams } from '../conversations/event-streams.js';
import type { LiveEvents } from '../conversations/live.js';
import { PENDING } from '../conversations/loop.js';
import type { ConversationsService } from '../conversations/service.js';
import { isWellFormedId } from '../lib/ids.js';
import { visitorStream, type VisitorRow } from './events.js';
import { CAPTURE_LEAD, type LeadOffer } from './lead-tool.js';
import type { ChatSession, LiveChat } from './session-auth.js';

/**
 * A visitor's event stream (GET …/session/events; issue 35): what is added to this session's conversation, and
 * nothing else — answers, a person's replies, status changes, a lead card offered when nobody is available (the
 * visitor's own messages are not sent back; tool calls and notes never). It listens to this conversation on the
 * live bus; each change there only says "read again": the stream reads the rows after the last one it sent from
 * the database, so a resume (Last-Event-ID) and the live part are the same read, in the conversation's order, and
 * nothing reaches the visitor that the history would not show. Reads are one at a time per stream.
 */

/** Streams per visitor session, per node: a few tabs. */
export const STREAMS_PER_SESSION = 3;
/** Streams per client address and chat, per node: an office behind one address. */
export const STREAMS_PER_ADDRESS = 20;
/** A stream ends after an hour; the widget reconnects with Last-Event-ID (the session is checked again). */
export const VISITOR_STREAM_MAX_AGE_MS = 60 * 60_000;

type VisibleRow = Awaited<ReturnType<ConversationsService['visibleMessages']['from']>>[number];

function parsed(text: string | null): unknown {
  if (text === null) return null;
  try {
    return JSON.parse(text);
  } catch {
    return null;
  }
}

function visitorRow(row: VisibleRow): VisitorRow {
  return {
    id: row.id, role: row.role, content: row.content, status: row.status, createdAt: row.created_at, authorName: row.author_name,
    event: row.event_data === null ? null : (parsed(row.event_data) as VisitorRow['event']),
    call: row.role === 'tool' ? { id: row.tool_call_id ?? '', name: row.tool_name ?? '', outcome: row.tool_outcome ?? '', arguments: parsed(row.tool_arguments) } : null,
  };
}

export function createVisitorStreams(deps: {
  conversations: Pick<ConversationsService, 'visibleMessages' | 'get'>;
  live: Pick<LiveEvents, 'subscribeConversation'>;
  streams: EventStreams;
  lead: { offer: (chat: LiveChat) => Promise<LeadOffer> };
  extend: (session: ChatSession) => Promise<string>;
  log: { warn(object: object, message: string): void };
}) {
  const { conversations, live, streams } = deps;

  /**
   * Opens the stream on `reply`. `lastEventId`: the id of the last message the client has (a `msg_…` of this
   * conversation); every later one is sent first. Without it (or with an id that is not one of this
   * conversation's messages), only what comes from now on. Refusals (429 past the limits) before the stream.
   */
  async function open(reply: FastifyReply, chat: LiveChat, session: ChatSession, client: { ip: string; lastEventId: string | undefined }): Promise<void> {
    const id = session.conversationId;
    const release = streams.reserve([[`chat-session:${session.sessionId}`, STREAMS_PER_SESSION], [`chat-address:${client.ip}|${chat.chatId}`, STREAMS_PER_ADDRESS]]);
    let next: number;
    let resumed: boolean;
    let cardOf: (row: VisitorRow) => ReturnType<LeadOffer['captureEvent']>;
    try {
      const resumeAt = client.lastEventId !== undefined && isWellFormedId('msg', client.lastEventId) ? await conversations.visibleMessages.seqOf(id, client.lastEventId) : undefined;
      resumed = resumeAt !== undefined;
      next = resumeAt ?? (await conversations.get(session.orgId, id)).messageCount;
      const offer = await deps.lead.offer(chat);
      // Only cards still waiting for the visitor are offered on the stream.
      cardOf = (row) => (row.call && row.call.outcome === PENDING ? offer.captureEvent(row.call) : undefined);
      await deps.extend(session);
    } catch (error) {
      release();
      throw error;
    }

    let unsubscribe = () => {};
    const stream = streams.start(reply, () => {
      unsubscribe();
      release();
    }, { maxAgeMs: VISITOR_STREAM_MAX_AGE_MS });

    let reading = false;
    let again = false;
    async function read(): Promise<void> {
      if (reading) {
        again = true;
        return;
      }
      reading = true;
      try {
        do {
          again = false;
          const rows = await conversations.visibleMessages.from(id, next, CAPTURE_LEAD);
          if (rows.length === 0) continue;
          stream.write(visitorStream(rows.map(visitorRow), cardOf, resumed));
          resumed = false;
          next = rows.at(-1)!.seq + 1;
        } while (again && !stream.ended);
      } catch (error) {
        // The database is away: the stream ends, and the widget resumes with Last-Event-ID once it is back.
        deps.log.warn({ err: error, conversationId: id }, 'a visitor\'s event stream could not read its conversation; ending it');
        stream.end();
      } finally {
        reading = false;
      }
    }

    // Listening first, then reading: a change committed in between is read by one of the two.
    unsubscribe = live.subscribeConversation(id, { change: () => void read(), lost: () => stream.end() });
    if (stream.ended) unsubscribe();
    void read();
  }

  return { open };
}

export type VisitorStreams = ReturnType<typeof createVisitorStreams>;
