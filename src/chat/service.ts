import type { ConversationsRepo } from '../conversations/repo.js';
import { BUDGET_HELD, TURN_IN_PROGRESS } from '../conversations/errors.js';
import type { ConversationMessage, Utm } from '../conversations/schema.js';
import type { ConversationsService } from '../conversations/service.js';
import type { ExpiryPurge } from '../db/expiry-purger.js';
import type { Transact } from '../db/transaction-runner.js';
import { AppError, isAppError } from '../http/errors.js';
import type { RateLimiter } from '../http/rate-limit.js';
import type { Clock } from '../lib/clock.js';
import { hashSecret } from '../lib/hashing.js';
import { newId, newSecret } from '../lib/ids.js';
import { BUDGET_HELD_FOR_VISITORS, BUDGET_USED_UP, chatLimit, KIND_FAILURE, secondsToMidnightUtc, SESSION_FULL, STILL_ANSWERING } from './errors.js';
import { visitorHistory } from './events.js';
import type { LeadCardMessage, LeadOffer } from './lead-tool.js';
import type { ChatRepo } from './repo.js';
import { CHAT_MESSAGES_PER_SESSION, MAX_VISITOR_MESSAGES, SESSION_IDLE_MS } from './rules.js';
import type { ChatSessionCreate, ChatSessionView, HandoffAnswer, PublicChatConfig } from './schema.js';
import { ALREADY_WITH_A_PERSON, HANDOFF_OFF, type Handoff } from '../conversations/handoff.js';
import { available } from '../conversations/handoff-rules.js';
import type { ChatSession, ChatSessionPrincipal, LiveChat } from './session-auth.js';

export interface ChatServiceDeps {
  repo: Pick<ChatRepo, 'countVisitorMessage'>;
  /** A session and its conversation are written together. */
  transact: Transact<{ conversations: ConversationsRepo; chat: ChatRepo }>;
  conversations: Pick<ConversationsService, 'createIn' | 'get' | 'startTurn' | 'widgetTokensUsedToday' | 'isHeld' | 'announce'>;
  /** Hand-off (conversations/handoff.ts): the visitor asks for a person. */
  handoff: Pick<Handoff, 'request'>;
  limiter: Pick<RateLimiter, 'check'>;
  /** Extends a session once its use is accepted (session-auth.ts). */
  extend: (session: ChatSessionPrincipal) => Promise<string>;
  clock: Clock;
  /** Lead capture (lead-service.ts): what a turn offers, and the history's lead cards. */
  lead: {
    offer: (chat: LiveChat) => Promise<LeadOffer>;
    cards: (chat: LiveChat) => Promise<(message: ConversationMessage) => LeadCardMessage | undefined>;
  };
  /** Errors the widget's background work could not report to anyone (the Inbox's announcement of a new chat). */
  log: { warn(object: object, message: string): void };
}

/**
 * The chat widget's public side (issue 22): what the widget draws, visitor sessions, and a visitor's message as
 * one turn of the conversations feature's loop (the same claim, budget, tools, transcript and token counts as
 * every conversation; this service adds the widget's own limits and words). The routes have already checked
 * the chat, the Origin and the session (session-auth.ts).
 */
export function createChatService(deps: ChatServiceDeps) {
  const { transact, conversations, limiter, clock } = deps;

  function config(chat: LiveChat): PublicChatConfig {
    return {
      chatId: chat.chatId, welcomeMessage: chat.chat.welcomeMessage, branding: chat.branding, leadCapture: chat.chat.leadFormId !== null,
      handoff: { enabled: chat.handoff.enabled, available: available(chat.handoff, clock.now()) },
    };
  }

  /** A new visitor session and its conversation (source `widget`, the host page's URL and UTM parameters), in one transaction. */
  async function createSession(chat: LiveChat, body: ChatSessionCreate): Promise<{ token: string; expiresAt: string }> {
    const origin = { pageUrl: pageUrlOf(body.pageUrl), utm: utmOf(body.utm) };
    const token = newSecret('chs');
    const now = clock.now();
    const expiresAt = new Date(now.getTime() + SESSION_IDLE_MS).toISOString();
    const conversationId = await transact(async (repos) => {
      const conversation = await conversations.createIn(repos, chat.orgId, chat.agentId, 'widget', origin);
      await repos.chat.insertSession({
        id: newId('cses'), token_hash: hashSecret(token), org_id: chat.orgId, agent_id: chat.agentId, conversation_id: conversation.id,
        visitor_messages: 0, created_at: now.toISOString(), last_seen_at: now.toISOString(), expires_at: expiresAt,
      });
      return conversation.id;
    });
    // The Inbox hears of the new chat; a failure to tell it fails nothing (the list has it).
    await conversations.announce(chat.orgId, conversationId).catch((error: unknown) => deps.log.warn({ err: error }, 'a new chat could not be announced to the Inbox'));
    return { token, expiresAt };
  }

  /** What the visitor saw so far, lead cards included; the read extends the session. */
  async function history(chat: LiveChat, session: ChatSession): Promise<ChatSessionView> {
    const transcript = await conversations.get(session.orgId, session.conversationId);
    const cardOf = await deps.lead.cards(chat);
    const expiresAt = await deps.extend(session);
    return { expiresAt, status: transcript.status, messages: visitorHistory(transcript.messages, cardOf) };
  }

  /**
   * The visitor asks for a person ("Talk to a person"): the conversation waits for one, or, outside the office
   * hours, the agent says when they open and offers the lead card. Refusals in the visitor's words.
   */
  async function requestHandoff(chat: LiveChat, session: ChatSession): Promise<HandoffAnswer> {
    const answer = await deps.handoff.request(session.orgId, session.conversationId).catch((error: unknown) => {
      throw inVisitorWords(error, true);
    });
    await deps.extend(session);
    const card = answer.leadCard ? (await deps.lead.offer(chat)).captureEvent({ id: answer.leadCard.toolCallId, name: answer.leadCard.name, arguments: {} }) : undefined;
    return { status: answer.status, message: answer.message, ...(card ? { leadCapture: card } : {}) };
  }

  /**
   * Checks a visitor's message against the widget's limits and claims its turn; the route then streams it
   * (`run`). Every refusal comes before anything is written: the session's message count, the agent's widget
   * budget, the per-session rate, then the conversations feature's own (the organization's budget, one turn at
   * a time), in the widget's words.
   */
  async function startMessage(chat: LiveChat, session: ChatSession, content: string) {
    if (content.trim() === '') throw new AppError('VALIDATION_ERROR', 'Type a message first.', { field: 'content' });
    if (session.visitorMessages >= MAX_VISITOR_MESSAGES) throw chatLimit(SESSION_FULL, 1);
    const budget = chat.chat.dailyTokenBudget;
    // A budget used up is refused here, before the rate limit counts the message; the turn's claim checks it
    // again with what turns under way reserve, atomically (conversations/budgets.ts). While a person is asked for
    // or holds the chat, the model is not called: no budget applies.
    if (budget !== null && (await conversations.widgetTokensUsedToday(chat.agentId)) >= budget && !(await conversations.isHeld(session.orgId, session.conversationId))) {
      throw chatLimit(BUDGET_USED_UP, secondsToMidnightUtc(clock.now()));
    }
    const decision = await limiter.check(CHAT_MESSAGES_PER_SESSION, session.sessionId);
    if (!decision.allowed) throw chatLimit(CHAT_MESSAGES_PER_SESSION.message, decision.resetSeconds);

    // Lead capture: capture_lead among the turn's tools while the chat has a lead form, and its card's event.
    const offer = await deps.lead.offer(chat);
    const turn = await conversations.startTurn(session.orgId, session.conversationId, content, { pendingTools: offer.pendingTools, widgetBudget: budget }).catch((error: unknown) => {
      throw inVisitorWords(error);
    });
    try {
      // Two tabs racing for the session's last message: one gets it.
      if (!(await deps.repo.countVisitorMessage(session.sessionId, MAX_VISITOR_MESSAGES))) throw chatLimit(SESSION_FULL, 1);
      await deps.extend(session);
    } catch (error) {
      await turn.release();
      throw error;
    }
    return { turn, captureEvent: offer.captureEvent };
  }

  return { config, createSession, history, startMessage, requestHandoff };
}

export type ChatService = ReturnType<typeof createChatService>;

/**
 * A refusal of the conversations feature, reworded for a visitor: its messages speak to operators (API paths,
 * how to raise a budget). The status, code and Retry-After stay.
 */
export function inVisitorWords(error: unknown, handoff = false): unknown {
  if (!isAppError(error)) return error;
  // Hand-off's refusals are written for visitors already (conversations/handoff.ts), but for a full conversation.
  if (handoff && error.code === 'CONFLICT' && (error.message === HANDOFF_OFF || error.message === ALREADY_WITH_A_PERSON)) return error;
  if (error.code === 'RATE_LIMIT_EXCEEDED') return new AppError('RATE_LIMIT_EXCEEDED', error.message.startsWith(BUDGET_HELD) ? BUDGET_HELD_FOR_VISITORS : BUDGET_USED_UP, { headers: error.headers });
  if (error.code === 'CONFLICT') {
    if (error.message === TURN_IN_PROGRESS) return new AppError('CONFLICT', STILL_ANSWERING);
    // The conversation is as long as one may be (every message counted, tool calls too).
    return chatLimit(SESSION_FULL, 1);
  }
  // The agent vanished or lost its model between the chat's check and the turn: as if the chat were off.
  if (error.status === 404) return new AppError('NOT_FOUND', 'This chat is not available.');
  return new AppError(error.code, KIND_FAILURE, { headers: error.headers });
}

/** The host page's URL, if it is one (http or https); anything else is a 400 naming the field. */
function pageUrlOf(value: string | undefined): string | null {
  if (value === undefined || value.trim() === '') return null;
  let url: URL;
  try {
    url = new URL(value.trim());
  } catch {
    throw new AppError('VALIDATION_ERROR', 'pageUrl must be the page\'s full http:// or https:// URL.', { field: 'pageUrl' });
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') throw new AppError('VALIDATION_ERROR', 'pageUrl must be the page\'s full http:// or https:// URL.', { field: 'pageUrl' });
  // Credentials in a URL are never kept.
  url.username = '';
  url.password = '';
  return url.href;
}

/** The UTM parameters given, trimmed; none: null. */
function utmOf(value: Utm | undefined): Utm | null {
  if (value === undefined) return null;
  const utm: Utm = {};
  for (const key of ['source', 'medium', 'campaign', 'term', 'content'] as const) {
    const text = value[key]?.trim();
    if (text) utm[key] = text;
  }
  return Object.keys(utm).length === 0 ? null : utm;
}

/** Sessions past their idle expiry, for the expiry purger (db/expiry-purger.ts). */
export function expiredChatSessions(repo: Pick<ChatRepo, 'deleteExpiredSessions'>): ExpiryPurge {
  return { name: 'chat_sessions', purgeBatch: (now, limit) => repo.deleteExpiredSessions(now.toISOString(), limit) };
}
