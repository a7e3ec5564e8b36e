import { Type, type Static } from '@sinclair/typebox';
import { ListQuery, Page } from '../http/envelope.js';
import { IdParam } from '../http/path-ids.js';
import { named } from '../http/schema-name.js';
import { MultilineText } from '../http/wire-text.js';
import { idPattern } from '../lib/ids.js';
import { conversationNotFound } from './errors.js';

/** Wire schemas of agent conversations (`/api/org/conversations`, `/api/org/agents/{id}/conversations`). */

/** About 2,000 tokens: a long question, not a document (the body limit and the model's context stay far away). */
export const MAX_CONTENT_CHARS = 8000;
/** Every message together (events aside: closing one always goes in); a conversation past it is ended, start another. */
export const MAX_MESSAGES = 200;

export const ConversationIdParams = Type.Object({ id: IdParam('conv', conversationNotFound, 'The conversation id (`conv_…`).') });

/** What a conversation's `status` may be (handoff-rules.ts); `open` in a list filter: any but closed. */
export const STATUS_FILTERS = ['bot', 'waiting', 'human', 'closed', 'open'] as const;

export const ConversationListQuery = Type.Object(
  {
    ...ListQuery,
    agentId: Type.Optional(Type.String({ pattern: idPattern('agt'), description: 'Only this agent\'s conversations.' })),
    status: Type.Optional(Type.Unsafe<(typeof STATUS_FILTERS)[number]>({ type: 'string', enum: [...STATUS_FILTERS], description: 'Only this status; `open`: any but `closed`.' })),
    assignee: Type.Optional(Type.String({ pattern: `^(me|none|${idPattern('usr').slice(1, -1)})$`, description: '`me` (a session only: 400 with an API key), `none`, or a member\'s `usr_…`.' })),
  },
  { additionalProperties: false },
);
export type ConversationListQuery = Static<typeof ConversationListQuery>;

const Usage = named('TokenUsage', Type.Object({
  inputTokens: Type.Integer({ description: 'Tokens the provider counted in the prompts.' }),
  outputTokens: Type.Integer({ description: 'Tokens the provider counted in the answers.' }),
}));

export const ConversationCreated = named('ConversationCreated', Type.Object({
  id: Type.String({ description: '`conv_…`' }),
  agentId: Type.String(),
  createdAt: Type.String({ format: 'date-time' }),
}));
export type ConversationCreated = Static<typeof ConversationCreated>;

/** The UTM parameters of the page a widget conversation started on (each at most 500 characters, as forms keep them). */
export const MAX_UTM_CHARS = 500;
export const Utm = named('ConversationUtm', Type.Object({
  source: Type.Optional(Type.String({ maxLength: MAX_UTM_CHARS })),
  medium: Type.Optional(Type.String({ maxLength: MAX_UTM_CHARS })),
  campaign: Type.Optional(Type.String({ maxLength: MAX_UTM_CHARS })),
  term: Type.Optional(Type.String({ maxLength: MAX_UTM_CHARS })),
  content: Type.Optional(Type.String({ maxLength: MAX_UTM_CHARS })),
}, { additionalProperties: false, description: 'utm_source, utm_medium, utm_campaign, utm_term and utm_content of the host page, without the `utm_`.' }));
export type Utm = Static<typeof Utm>;

/** Where a conversation started: the widget's carry the host page. */
export interface ConversationOrigin {
  pageUrl: string | null;
  utm: Utm | null;
}

/** A member of the organization, as a conversation names them. */
export const Author = named('ConversationPerson', Type.Object({ id: Type.String({ description: '`usr_…`' }), name: Type.String() }));

export const Conversation = named('Conversation', Type.Object({
  id: Type.String({ description: '`conv_…`' }),
  agentId: Type.String(),
  source: Type.String({ description: '`api` (started with an org API key), `console` (by a signed-in operator) or `widget` (a visitor, through the chat widget: docs/chat-widget.md).' }),
  pageUrl: Type.Union([Type.String(), Type.Null()], { description: 'Widget conversations: the URL of the page the visitor started on; null otherwise or when the widget did not send it.' }),
  utm: Type.Union([Utm, Type.Null()], { description: 'Widget conversations: the host page\'s UTM parameters; null otherwise or when it had none.' }),
  status: Type.String({ description: '`bot` (the agent answers), `waiting` (a person was asked for), `human` (a person holds it: the model is not called) or `closed`.' }),
  assignee: Type.Union([Author, Type.Null()], { description: 'The member holding it.' }),
  handoffRequestedAt: Type.Union([Type.String({ format: 'date-time' }), Type.Null()], { description: 'The last request for a person.' }),
  messageCount: Type.Integer(),
  usage: Usage,
  createdAt: Type.String({ format: 'date-time' }),
  updatedAt: Type.String({ format: 'date-time' }),
}));
export type Conversation = Static<typeof Conversation>;
export const ConversationPage = Page(Conversation);

const ToolCall = named('ConversationToolCall', Type.Object({
  id: Type.String({ description: 'The model\'s id for the call (e.g. `call_abc…` from OpenAI, `toolu_…` from Anthropic).' }),
  name: Type.String({ description: 'The tool\'s name as the agent knows it (alias or tool name).' }),
  arguments: Type.Unknown({ description: 'The arguments the model gave.' }),
  result: Type.Unknown({ description: 'Exactly what was handed back to the model: the endpoint\'s JSON, or `{error: {code, message}}`.' }),
  outcome: Type.String({ description: '`OK`, or the error code (`TOOL_TIMEOUT`, `INVALID_ARGUMENTS`, …).' }),
  durationMs: Type.Integer(),
  callId: Type.Union([Type.String(), Type.Null()], { description: 'The call log\'s `call_…` (GET /api/org/tool-calls); null when nothing was logged (a tool name the agent does not have).' }),
}));

export const ConversationMessage = named('ConversationMessage', Type.Object({
  id: Type.String({ description: '`msg_…`' }),
  role: Type.String({ description: '`user`, `assistant`, `tool`, `operator` (a member wrote it) or `event` (a status change, e.g. "Anna took over").' }),
  content: Type.Union([Type.String(), Type.Null()], { description: 'The text (user, assistant); null for a tool message.' }),
  status: Type.String({ description: '`complete`, `cancelled` (the client went away: the partial answer) or `error` (see `error`).' }),
  error: Type.Union([Type.Object({ code: Type.String(), message: Type.String() }), Type.Null()], { description: 'Why an assistant message failed: the provider\'s message, never its key.' }),
  toolCall: Type.Union([ToolCall, Type.Null()], { description: 'A tool message\'s call.' }),
  usage: Type.Union([Usage, Type.Null()], { description: 'An assistant message\'s tokens (one model request).' }),
  author: Type.Union([Author, Type.Null()], { description: 'operator and event messages: the member who wrote or caused it; null for an API key\'s (shown to visitors as "Team") and the rest.' }),
  createdAt: Type.String({ format: 'date-time' }),
}));
export type ConversationMessage = Static<typeof ConversationMessage>;

export const Transcript = named('ConversationTranscript', Type.Object({
  ...Conversation.properties,
  messages: Type.Array(ConversationMessage, { description: 'Every message, in order.' }),
}));
export type Transcript = Static<typeof Transcript>;

export const MessageBody = named('ConversationMessageBody', Type.Object(
  {
    content: MultilineText({ minLength: 1, maxLength: MAX_CONTENT_CHARS, description: `The message, 1–${MAX_CONTENT_CHARS} characters.` }),
    role: Type.Optional(Type.Union([Type.Literal('user'), Type.Literal('operator')], { description: '`user` (default): a turn of the agent. `operator`: a member\'s reply, while the conversation is `human`.' })),
  },
  { additionalProperties: false },
));
export type MessageBody = Static<typeof MessageBody>;

export const TurnResult = named('ConversationTurn', Type.Object({
  conversationId: Type.String(),
  messages: Type.Array(ConversationMessage, { description: 'The turn\'s new messages in order: the user\'s, then each assistant answer and tool call.' }),
  usage: Usage,
}));
export type TurnResult = Static<typeof TurnResult>;

/** One message as `useChat` sends it (a UIMessage); only the last one's text parts are read. */
const ChatMessage = named('ChatUIMessage', Type.Object({
  id: Type.Optional(Type.String()),
  role: Type.Union([Type.Literal('system'), Type.Literal('user'), Type.Literal('assistant')]),
  parts: Type.Array(Type.Object({ type: Type.String(), text: Type.Optional(MultilineText()) }, { additionalProperties: true })),
}, { additionalProperties: true }));

/** What the AI SDK's DefaultChatTransport posts: `{id, messages, trigger, messageId}`, with whatever its `body` option adds. */
export const ChatBody = named('ConversationChatBody', Type.Object({
  id: Type.Optional(Type.String({ description: 'useChat\'s chat id (not read: the conversation is the path\'s).' })),
  messages: Type.Array(ChatMessage, { minItems: 1, examples: [[{ id: 'm1', role: 'user', parts: [{ type: 'text', text: 'What does a 2 kg parcel to Finland cost?' }] }]], description: 'The chat\'s messages; the last must be the user\'s, with text parts only (1–8000 characters in all). Switchboard keeps the history: the earlier ones are not read, a client may send only the last.' }),
  trigger: Type.Optional(Type.Union([Type.Literal('submit-message'), Type.Literal('regenerate-message')], { description: '`regenerate-message` is refused (400): every answer stays in the conversation.' })),
  messageId: Type.Optional(Type.String()),
}, { additionalProperties: true }));
export type ChatBody = Static<typeof ChatBody>;

export const UIMessageStream = named('UIMessageStream', Type.String({
  description: 'The AI SDK 6 UI message stream (header `x-vercel-ai-ui-message-stream: v1`): Server-Sent Events, each `data:` one UIMessageChunk as JSON (start, start-step, text-start, text-delta, text-end, tool-input-available, tool-output-available, tool-input-error, finish-step, message-metadata, error, finish), then `data: [DONE]`. docs/conversations.md lists when each is sent.',
}));

export const AssignBody = named('ConversationAssignBody', Type.Object(
  { userId: Type.Optional(Type.String({ maxLength: 100, description: 'A member (`usr_…`); default: the session\'s person.' })) },
  { additionalProperties: false },
));
export type AssignBody = Static<typeof AssignBody>;

export const InboxEventStream = named('InboxEventStream', Type.String({
  description: 'Server-Sent Events: `conversation` (the Conversation, on each status or assignee change and each new widget chat), `message` (`{conversationId, message}`: user, assistant, operator, event), `: keep-alive` every 25 s.',
}));
