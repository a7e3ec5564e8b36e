import { createHash } from 'node:crypto';
import { CONSENT } from '../../web/form/controls.js';
import { PENDING } from '../conversations/loop.js';
import type { ConversationMessage } from '../conversations/schema.js';
import { DECLINED, type ConversationsService, type Decide, type Resolution } from '../conversations/service.js';
import type { FormCache } from '../forms/form-cache.js';
import type { LiveForm } from '../forms/public-form.js';
import { SUBMISSIONS, submitLimitKey } from '../forms/public-routes.js';
import type { FormsRepo } from '../forms/repo.js';
import type { SubmitService } from '../forms/submit-service.js';
import { AppError, isAppError } from '../http/errors.js';
import { rateLimitExceeded, type RateLimiter } from '../http/rate-limit.js';
import type { Clock } from '../lib/clock.js';
import { BUDGET_USED_UP, chatLimit, secondsToMidnightUtc } from './errors.js';
import { transcriptNote } from './lead-note.js';
import { inVisitorWords } from './service.js';
import type { ChatSessionPrincipal, LiveChat } from './session-auth.js';
import { CAPTURE_LEAD, captureLeadTool, leadCard, leadSubmission, leadValues, type LeadCardMessage, type LeadOffer } from './lead-tool.js';

/**
 * Lead capture in the chat widget. The model may only *propose* a lead: `capture_lead` has no `execute`
 * (conversations/loop.ts), so its call ends the turn with a pending card and nothing else. The one path from a
 * card to the CRM is `decide` below, which runs only on the visitor's own POST …/session/lead with
 * `action: "submit"`: the form's own submit path then checks consent, identity, required fields and values, and
 * counts the form's rate limit, and the outcome becomes the call's result for the model's next answer.
 */

/** The chat a turn is for: its organization and the agent's chat settings (`chat.leadFormId`). */
type ChatOf = Pick<LiveChat, 'orgId' | 'agentId'> & { chat: Pick<LiveChat['chat'], 'leadFormId' | 'dailyTokenBudget'> };

/** The visitor's decision on a card: POST …/session/lead. */
export interface LeadDecision {
  toolCallId: string;
  action: 'submit' | 'decline';
  /** The card's values as the visitor left them; without them, the model's. */
  values?: Record<string, unknown> | undefined;
  consent?: boolean | undefined;
}

export const SUBMITTED = { result: { status: 'submitted' }, outcome: 'SUBMITTED' } as const;
const STATUS: Record<string, LeadCardMessage['status']> = { [PENDING]: 'pending', [SUBMITTED.outcome]: 'submitted', [DECLINED.outcome]: 'declined' };

export const CONSENT_MESSAGE = 'Please tick the box to agree to the consent text, then send your details.';

/** The submit rules' refusals (forms/submission-check.ts): a card's values to correct, said as a 400 VALIDATION_ERROR. */
const FIELD_RULES = new Set(['CONSENT_REQUIRED', 'IDENTITY_REQUIRED', 'FIELD_REQUIRED', 'INVALID_FIELD']);

export function createLeadCapture(deps: {
  forms: Pick<FormsRepo, 'findForm'>;
  cache: FormCache<LiveForm>;
  submit: Pick<SubmitService, 'submit'>;
  limiter: Pick<RateLimiter, 'check'>;
  conversations: Pick<ConversationsService, 'resumeTurn' | 'widgetTokensUsedToday'>;
  /** Extends a session once its use is accepted (session-auth.ts). */
  extend: (session: ChatSessionPrincipal) => Promise<string>;
  clock: Clock;
}) {
  const { forms, cache, submit, limiter, conversations, clock } = deps;

  /** The agent's lead form while it is active; null when there is none (no card is offered then). */
  async function form(orgId: string, leadFormId: string | null): Promise<LiveForm | null> {
    if (leadFormId === null) return null;
    const row = await forms.findForm(orgId, leadFormId);
    return row ? cache.get(row.slug) : null;
  }

  /**
   * What a widget turn of the chat adds: `capture_lead` among its tools while the chat has an active lead form,
   * and the `lead-capture` event (the card to draw) of each pending call of it the turn ends with.
   */
  function offerOf(lead: LiveForm | null): LeadOffer {
    return {
      pendingTools: lead ? [captureLeadTool(lead)] : [],
      captureEvent: (call) => (lead && call.name === CAPTURE_LEAD
        ? { toolCallId: call.id, ...leadCard(lead), values: leadValues(lead, call.arguments) }
        : undefined),
    };
  }
  const offer = async (chat: ChatOf) => offerOf(await form(chat.orgId, chat.chat.leadFormId));

  /** The pending tool that offers the chat's lead card (hand-off's timeout and closed hours), or null when it has none. */
  const cardTool = async (chat: Pick<ChatOf, 'orgId' | 'chat'>): Promise<string | null> => ((await form(chat.orgId, chat.chat.leadFormId)) ? CAPTURE_LEAD : null);

  /** The history's lead cards: the card a tool message of the transcript is, if it is one (calls the SDK refused are none). */
  async function cards(chat: ChatOf): Promise<(message: ConversationMessage) => LeadCardMessage | undefined> {
    const lead = await form(chat.orgId, chat.chat.leadFormId);
    // A form turned off since: the card keeps its status, with nothing left to fill in.
    const shown = lead ? leadCard(lead) : { fields: [], consentText: '' };
    return (message) => {
      const call = message.toolCall;
      const status = call?.name === CAPTURE_LEAD ? STATUS[call.outcome] : undefined;
      if (!call || !status) return undefined;
      return { role: 'lead', toolCallId: call.id, status, fields: shown.fields, consentText: shown.consentText, values: lead ? leadValues(lead, call.arguments) : {} };
    };
  }

  function refusal(lead: LiveForm, error: unknown): unknown {
    if (!isAppError(error) || !FIELD_RULES.has(error.code)) return error;
    // The card's names: the consent box is `consent`; "email or phone" marks both.
    const names = error.code === 'IDENTITY_REQUIRED'
      ? leadCard(lead).fields.map((field) => field.name).filter((name) => name === 'email' || name === 'phone')
      : [error.field === 'consentVersion' ? CONSENT : error.field ?? CONSENT];
    // The form API's words ask a client for its consentVersion; a visitor at a card has a box to tick.
    const message = error.code === 'CONSENT_REQUIRED' ? CONSENT_MESSAGE : error.message;
    const fields = names.map((field) => ({ field, message }));
    return new AppError('VALIDATION_ERROR', message, {
      ...(names.length === 1 ? { field: names[0] } : {}),
      details: fields.map(({ field, message }) => ({ path: field, message })),
      extra: { fields },
    });
  }

  /**
   * The visitor's decision on a card: checked against the chat's pending card, then (submit) the form's own
   * submit path, and the model's next answer as a turn to run. Refusals are thrown before anything is streamed
   * or sent to the model: the card then stays pending.
   */
  async function decide(chat: ChatOf, session: ChatSessionPrincipal, decision: LeadDecision, client: { ip: string; userAgent: string | null }) {
    const lead = await form(chat.orgId, chat.chat.leadFormId);
    let decided = false;
    const answer: Decide = async (conversation): Promise<Resolution> => {
      decided = true;
      const { messages } = conversation;
      const message = messages.find((m) => m.toolCall?.id === decision.toolCallId && m.toolCall.name === CAPTURE_LEAD);
      if (!message) throw new AppError('NOT_FOUND', 'This chat has no lead card with that toolCallId. Use the toolCallId of the card shown in this chat.');
      const outcome = message.toolCall!.outcome;
      if (outcome !== PENDING) {
        throw new AppError('CONFLICT', STATUS[outcome] ? `This lead card was already ${STATUS[outcome]}.` : 'This lead card cannot be sent.');
      }
      if (decision.action === 'decline') return { toolCallId: decision.toolCallId, ...DECLINED };
      if (!lead) throw new AppError('CONFLICT', 'This chat no longer takes contact details. Decline the card instead.');

      // The form's own limit per address, shared with its other submit paths (public API, hosted page).
      const limited = await limiter.check(SUBMISSIONS, submitLimitKey(client.ip, lead.slug));
      if (!limited.allowed) throw rateLimitExceeded(SUBMISSIONS, limited);
      const values = leadValues(lead, decision.values ?? message.toolCall!.arguments);
      // The chat's UTM parameters are the submission's, under the form API's names (utm_source…).
      const utm: Record<string, string> = {};
      for (const [key, value] of Object.entries(conversation.utm ?? {})) if (typeof value === 'string' && value !== '') utm[`utm_${key}`] = value;
      const body = leadSubmission(lead, values, decision.consent === true, utm);
      const note = transcriptNote(messages, { pageUrl: conversation.pageUrl, message: typeof body.message === 'string' ? body.message : undefined });
      try {
        await submit.submit(lead.slug, body, {
          ip: client.ip,
          userAgent: client.userAgent,
          // One card is one submission: a retry after a failure past the submit (the turn not saved) replays it.
          idempotencyKey: `chat-lead-${createHash('sha256').update(`${conversation.id}\n${decision.toolCallId}`).digest('base64url')}`,
          note,
          // The notification email (the lead form's notify) says where the visitor was, and that the chat brought them.
          pageUrl: conversation.pageUrl,
          via: 'chat',
          // The submission names its conversation: erasing the person finds their chats by it (privacy/).
          conversationId: conversation.id,
        });
      } catch (error) {
        throw refusal(lead, error);
      }
      return { toolCallId: decision.toolCallId, ...SUBMITTED };
    };
    // The model answers the decision: the agent's widget budget applies as to a message (chat/service.ts).
    const budget = chat.chat.dailyTokenBudget;
    if (budget !== null && (await conversations.widgetTokensUsedToday(chat.agentId)) >= budget) {
      throw chatLimit(BUDGET_USED_UP, secondsToMidnightUtc(clock.now()));
    }
    const next = offerOf(lead);
    const turn = await conversations.resumeTurn(session.orgId, session.conversationId, answer, { pendingTools: next.pendingTools }).catch((error: unknown) => {
      // The conversation's own refusals (budget, a turn under way) in the widget's words; the card's as they are.
      throw decided ? error : inVisitorWords(error);
    });
    try {
      await deps.extend(session);
    } catch (error) {
      await turn.release();
      throw error;
    }
    return { turn, captureEvent: next.captureEvent };
  }

  return { offer, cards, decide, cardTool };
}

export type LeadCapture = ReturnType<typeof createLeadCapture>;
