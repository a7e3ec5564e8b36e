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
}

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

export type HistoryMessage = { role: 'user' | 'assistant'; content: string } | ({ role: 'lead' } & LeadCard);

/** `GET …/session`. */
export interface SessionHistory {
  expiresAt: string;
  messages: HistoryMessage[];
}

/** The answer stream's events (`event: <type>`, `data: <json>`). */
export type ChatEvent =
  | { type: 'start'; messageId?: string }
  | { type: 'text-delta'; delta: string }
  | { type: 'tool-call'; name?: string }
  | ({ type: 'lead-capture' } & LeadCard)
  | { type: 'error'; code?: string; message?: string }
  | { type: 'finish'; status?: string };

/** `POST …/session/lead`. */
export interface LeadDecision {
  toolCallId: string;
  action: 'submit' | 'decline';
  values?: Record<string, LeadValue>;
  consent?: boolean;
}
