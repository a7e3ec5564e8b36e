/**
 * The public chat API as the widget sees it ("The chat contract", issue 22; docs/chat-widget.md).
 * Declared here so the browser bundle pulls in no server code.
 */
import type { Branding } from '../form/types.js';

export type { Branding };

/** `GET /api/public/chats/{chat_id}`: what the widget draws. */
export interface ChatConfig {
  chatId: string;
  welcomeMessage: string;
  branding: Branding;
  leadCapture: boolean;
  /** Hand-off (issue 35): `enabled` draws "Talk to a person"; `available` is false outside office hours. Absent on older servers. */
  handoff?: { enabled: boolean; available?: boolean };
}

/** Who holds the conversation: the agent, nobody yet (a person was asked for), a person, or nobody any more. */
export type ChatStatus = 'bot' | 'waiting' | 'human' | 'closed';

/** `POST …/sessions` → 201. */
export interface ChatSession {
  token: string;
  expiresAt: string;
}

/** One field of the lead card: the lead form's enabled fields. */
export interface LeadField {
  name: string;
  label: string;
  /** The form's field types (text, email, phone, textarea, number, url, date, checkbox, select…); unknown ones are text. */
  type: string;
  required: boolean;
  options?: string[];
}

export type LeadValue = string | number | boolean;

/** A lead card, as the stream's `lead-capture` event and the session's history give it. */
export interface LeadCard {
  toolCallId: string;
  fields: LeadField[];
  values: Record<string, LeadValue>;
  consentText: string;
  /** Given by the stream; the history leaves it out (then a consent text means a box to tick). */
  consentRequired?: boolean;
  status?: 'pending' | 'submitted' | 'declined';
}

export type HistoryMessage =
  | { role: 'user' | 'assistant' | 'event'; id?: string; content: string }
  | { role: 'operator'; id?: string; content: string; author?: { name: string } | null }
  | ({ role: 'lead'; id?: string } & LeadCard);

/** `GET …/session`. */
export interface SessionHistory {
  expiresAt: string;
  /** Absent on servers before hand-off: `bot`. */
  status?: ChatStatus;
  messages: HistoryMessage[];
}

/** `POST …/session/handoff` → 200: the status now (`bot` when nobody is available) and what the visitor is told. */
export interface HandoffAnswer {
  status: ChatStatus;
  message: string;
}

/**
 * The events of the answer stream (`event: <type>`, `data: <json>`) and of the live stream
 * (`GET …/session/events`, whose blocks carry `id: <msg_…>`: the parser hands it on as `lastEventId`).
 */
export type ChatEvent = { lastEventId?: string } & (
  | { type: 'start'; messageId?: string }
  | { type: 'text-delta'; delta: string }
  | { type: 'tool-call'; name?: string }
  | ({ type: 'lead-capture' } & LeadCard)
  | { type: 'error'; code?: string; message?: string }
  | { type: 'finish'; status?: string }
  | { type: 'message'; id?: string; role: string; content: string; author?: { name: string } | null }
  | { type: 'status'; status: ChatStatus; assigneeName?: string | null }
);

/** `POST …/session/lead`. */
export interface LeadDecision {
  toolCallId: string;
  action: 'submit' | 'decline';
  values?: Record<string, LeadValue>;
  consent?: boolean;
}
