import type { FastifyRequest } from 'fastify';
import { streamTurn } from '../conversations/routes.js';
import type { App } from '../http/app-type.js';
import { Envelope, errorResponses, ok } from '../http/envelope.js';
import { RateLimitedResponse, type RateLimiter } from '../http/rate-limit.js';
import { createVisitorEventMapper } from './events.js';
import { CHAT_CONFIG_READS, CHAT_MESSAGES_PER_ADDRESS, CHAT_MESSAGES_PER_SESSION, CHAT_SESSION_CREATES, MAX_CONTENT_CHARS, MAX_VISITOR_MESSAGES } from './rules.js';
import { ChatEventStream, ChatIdParams, ChatMessageBody, ChatSessionCreate, ChatSessionCreated, ChatSessionView, PublicChatConfig } from './schema.js';
import type { ChatService } from './service.js';
import { registerChatScope, type ChatAuth } from './session-auth.js';

/** A message of 2,000 characters is at most 8,000 bytes of UTF-8 (4 per character) and its JSON around it. */
const MESSAGE_BODY_LIMIT = 8 * 1024;
/** A session's page URL (2,048 characters) and five UTM values (500 each) fit in the Operator API's limit. */
const SESSION_BODY_LIMIT = 64 * 1024;

const TAGS = ['Chat widget'];
const WHO = 'Only from the chat\'s allowed origins (no or another `Origin`: 403 FORBIDDEN, nothing stored; CORS for those origins only); an unknown chat or one that is off: 404 NOT_FOUND.';
const SESSION = '`Authorization: Bearer chs_…` (missing, unknown, expired or another chat\'s: 401 UNAUTHORIZED).';

export const STREAM_HEADERS = { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache, no-store', 'x-accel-buffering': 'no' };

/** Per client address (request.ip honours TRUST_PROXY) and chat id; an over-long id cannot be a chat, so it is cut. */
export function addressAndChat(request: FastifyRequest): string {
  const chatId = (request.params as { chat_id?: string }).chat_id ?? '';
  return `${request.ip}|${chatId.slice(0, 30)}`;
}

/** `/api/public/chats/{chat_id}…`: the chat widget's public side (docs/chat-widget.md). */
export function registerChatRoutes(app: App, deps: { chatAuth: ChatAuth; chat: ChatService; limiter: RateLimiter }): void {
  const { chatAuth, chat, limiter } = deps;
  const readLimit = limiter.hook(CHAT_CONFIG_READS, addressAndChat);
  const sessionLimit = limiter.hook(CHAT_SESSION_CREATES, addressAndChat);
  const messageLimit = limiter.hook(CHAT_MESSAGES_PER_ADDRESS, addressAndChat);

  registerChatScope(app, (scope) => {
    // The preflight of every path under a chat, lead capture's included: CORS for the chat's allowed origins only.
    scope.options('/:chat_id', { schema: { hide: true } }, chatAuth.preflight);
    scope.options('/:chat_id/*', { schema: { hide: true } }, chatAuth.preflight);

    scope.get('/:chat_id', {
      onRequest: [chatAuth.requireChat, readLimit],
      schema: {
        tags: TAGS, operationId: 'getPublicChat', summary: 'What the chat widget draws',
        description: `The welcome message, the agent's branding and whether lead capture is on. ${WHO} ${CHAT_CONFIG_READS.limit} reads a minute per address and chat (429).`,
        params: ChatIdParams,
        response: { 200: Envelope(PublicChatConfig), ...errorResponses(403, 404), 429: RateLimitedResponse },
      },
    }, async (request) => ok(chat.config(chatAuth.chat(request))));

    scope.post('/:chat_id/sessions', {
      onRequest: [chatAuth.requireChat, sessionLimit],
      // No body is `{}`: nothing about the page.
      preValidation: (request, _reply, done) => {
        request.body ??= {};
        done();
      },
      bodyLimit: SESSION_BODY_LIMIT,
      schema: {
        tags: TAGS, operationId: 'createChatSession', summary: 'Start a visitor session',
        description:
          'A session (its token only here, stored hashed; it ends 7 days after its last use) and its conversation (source `widget`, the page URL and UTM). ' +
          `${WHO} 400 (pageUrl not http(s)); ${CHAT_SESSION_CREATES.limit} sessions per ${CHAT_SESSION_CREATES.windowMs / 60_000} minutes per address and chat (429).`,
        params: ChatIdParams, body: ChatSessionCreate,
        response: { 201: Envelope(ChatSessionCreated), ...errorResponses(400, 403, 404, 413, 415), 429: RateLimitedResponse },
      },
    }, async (request, reply) => reply.code(201).send(ok(await chat.createSession(chatAuth.chat(request), request.body))));

    scope.get('/:chat_id/session', {
      onRequest: [chatAuth.requireChat, readLimit, chatAuth.requireSession],
      schema: {
        tags: TAGS, operationId: 'getChatSession', summary: 'The visitor\'s conversation so far',
        description: `What the visitor saw: their messages, the answers and lead cards; never tool calls or errors' internals. Extends the session. ${WHO} ${SESSION}`,
        params: ChatIdParams,
        response: { 200: Envelope(ChatSessionView), ...errorResponses(401, 403, 404), 429: RateLimitedResponse },
      },
    }, async (request) => ok(await chat.history(chatAuth.chat(request), chatAuth.session(request))));

    scope.post('/:chat_id/session/messages', {
      onRequest: [chatAuth.requireChat, messageLimit, chatAuth.requireSession],
      bodyLimit: MESSAGE_BODY_LIMIT,
      schema: {
        tags: TAGS, operationId: 'sendChatMessage', summary: 'Send a visitor\'s message; the answer streams',
        description:
          'One turn of the agent\'s conversation, streamed as Server-Sent Events (`start`, `text-delta`, `tool-call`, `lead-capture`, `error`, `finish`: docs/chat-widget.md); tool arguments, results and provider errors never reach the visitor. ' +
          `${WHO} ${SESSION} Refusals come before the stream, as JSON: 400 (content 1–${MAX_CONTENT_CHARS} characters); 409 (the previous answer is streaming); 429 with Retry-After: ` +
          `${CHAT_MESSAGES_PER_ADDRESS.limit} a minute per address and chat, ${CHAT_MESSAGES_PER_SESSION.limit} per session, ${MAX_VISITOR_MESSAGES} in a session, the agent's widget or the organization's daily token budget.`,
        params: ChatIdParams, body: ChatMessageBody,
        response: { 200: { description: 'The answer as Server-Sent Events.', content: { 'text/event-stream': { schema: ChatEventStream } } }, ...errorResponses(400, 401, 403, 404, 409, 413, 415), 429: RateLimitedResponse },
      },
    }, async (request, reply) => {
      const { turn, captureEvent } = await chat.startMessage(chatAuth.chat(request), chatAuth.session(request), request.body.content);
      await streamTurn(request, reply, turn, STREAM_HEADERS, createVisitorEventMapper(captureEvent), () => '');
    });
  });
}
