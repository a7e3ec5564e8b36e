import { Type, type Static } from '@sinclair/typebox';
import { Utm } from '../conversations/schema.js';
import { named } from '../http/schema-name.js';
import { MultilineText } from '../http/wire-text.js';
import { Branding } from '../orgs/schema.js';
import { MAX_CONTENT_CHARS, MAX_PAGE_URL_CHARS } from './rules.js';

/** Wire schemas of the public chat widget API (`/api/public/chats/{chat_id}…`; docs/chat-widget.md). */

export const ChatIdParams = Type.Object({
  chat_id: Type.String({ maxLength: 100, description: 'The chat\'s public id (`chat_…`), from the embed snippet.', examples: ['chat_3kTMd92nqLx0aPz8Vb1c'] }),
});

export const PublicChatConfig = named('PublicChatConfig', Type.Object({
  chatId: Type.String({ description: '`chat_…`' }),
  welcomeMessage: Type.String({ description: 'The widget\'s first message; empty for none.' }),
  branding: Branding,
  leadCapture: Type.Boolean({ description: 'Whether the agent may ask the visitor for contact details (a lead form is set): the widget then shows lead cards.' }),
  handoff: Type.Object({
    enabled: Type.Boolean({ description: 'Whether the visitor can ask for a person ("Talk to a person").' }),
    available: Type.Boolean({ description: 'Whether it is within the agent\'s office hours now (a request then waits for a person; outside them the agent answers at once).' }),
  }),
}));
export type PublicChatConfig = Static<typeof PublicChatConfig>;

export const ChatSessionCreate = named('ChatSessionCreate', Type.Object({
  pageUrl: Type.Optional(Type.String({ maxLength: MAX_PAGE_URL_CHARS, description: `The host page's URL (http or https, at most ${MAX_PAGE_URL_CHARS} characters), kept with the conversation.`, examples: ['https://shop.example.com/pricing?utm_source=newsletter'] })),
  utm: Type.Optional(Utm),
}, { additionalProperties: false }));
export type ChatSessionCreate = Static<typeof ChatSessionCreate>;

export const ChatSessionCreated = named('ChatSessionCreated', Type.Object({
  token: Type.String({ description: 'The visitor\'s session token (`chs_…`): send it as `Authorization: Bearer chs_…`. Shown only here; only its hash is stored. The widget keeps it in localStorage under `svc-chat:{chat_id}`.' }),
  expiresAt: Type.String({ format: 'date-time', description: '7 days after the last use; each use extends it.' }),
}));

/**
 * One message as the visitor sees it. `user` and `assistant`: `id`, `content` and `createdAt`. `lead`: a lead
 * card (`toolCallId`, `status`, `fields`, `values`, `consentText`), filled by lead capture. One object with
 * optional fields rather than a union: the serializer writes it without trying each branch.
 */
export const ChatMessage = named('ChatVisitorMessage', Type.Object({
  role: Type.String({ description: '`user`, `assistant`, `operator` (a person of the team), `event` (a status change, e.g. "Anna took over") or `lead`.' }),
  id: Type.Optional(Type.String({ description: 'user, assistant, operator, event: `msg_…` (an answer\'s is its stream\'s `start` messageId); the event stream\'s ids.' })),
  content: Type.Optional(Type.String({ description: 'user, assistant, operator, event: the text.' })),
  author: Type.Optional(Type.Object({ name: Type.String() }, { description: 'operator: who wrote it.' })),
  createdAt: Type.Optional(Type.String({ format: 'date-time' })),
  toolCallId: Type.Optional(Type.String({ description: 'lead: the card\'s id.' })),
  status: Type.Optional(Type.String({ description: 'lead: `pending`, `submitted` or `declined`.' })),
  fields: Type.Optional(Type.Array(Type.Object({
    name: Type.String(),
    label: Type.String(),
    type: Type.String(),
    required: Type.Boolean(),
    options: Type.Optional(Type.Array(Type.String())),
  }), { description: 'lead: the fields the card asks for.' })),
  values: Type.Optional(Type.Record(Type.String(), Type.Unknown(), { description: 'lead: the values filled in.' })),
  consentText: Type.Optional(Type.String({ description: 'lead: the form\'s consent text.' })),
}));
export type ChatMessage = Static<typeof ChatMessage>;

export const ChatSessionView = named('ChatSessionView', Type.Object({
  expiresAt: Type.String({ format: 'date-time', description: 'Extended by this read: 7 days from now.' }),
  status: Type.String({ description: '`bot`, `waiting` (a person was asked for), `human` (a person is in the chat) or `closed`.' }),
  messages: Type.Array(ChatMessage, { description: 'What the visitor saw, in order: their messages, the answers and lead cards; never tool calls or errors\' internals.' }),
}));
export type ChatSessionView = Static<typeof ChatSessionView>;

export const ChatMessageBody = named('ChatMessageBody', Type.Object(
  { content: MultilineText({ minLength: 1, maxLength: MAX_CONTENT_CHARS, description: `The visitor's message, 1–${MAX_CONTENT_CHARS} characters.`, examples: ['Do you ship to Finland?'] }) },
  { additionalProperties: false },
));
export type ChatMessageBody = Static<typeof ChatMessageBody>;

export const ChatEventStream = named('ChatEventStream', Type.String({
  description:
    'Server-Sent Events (`event: <type>`, `data: <JSON>`): `start {messageId}`, `text-delta {delta}`, `tool-call {name}`, `lead-capture {toolCallId, fields, values, consentText, consentRequired}`, ' +
    '`error {code, message}` (kind words for the visitor), `finish {status}`. docs/chat-widget.md.',
}));

export const HandoffAnswer = named('ChatHandoffAnswer', Type.Object({
  status: Type.String({ description: '`waiting`: a person was asked for; `bot`: nobody is available now (outside office hours).' }),
  message: Type.String({ description: 'What to tell the visitor.' }),
  leadCapture: Type.Optional(Type.Unsafe<object>({ type: 'object', additionalProperties: true, description: 'Nobody available and a lead form set: the card offered, as the `lead-capture` event\'s data.' })),
}));
export type HandoffAnswer = Static<typeof HandoffAnswer>;

export const VisitorEventStream = named('ChatSessionEventStream', Type.String({
  description:
    'Server-Sent Events, each with `id: msg_…`: `message {id, role, content, author, createdAt}` (assistant, operator, event), `status {status, assigneeName}`, `lead-capture`; `: keep-alive` every 25 s.',
}));
