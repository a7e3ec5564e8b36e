import type { App } from '../http/app-type.js';
import { Envelope, errorResponses, ok } from '../http/envelope.js';
import { RateLimitedResponse, type RateLimiter } from '../http/rate-limit.js';
import { addressAndChat } from './routes.js';
import { CHAT_CONFIG_READS, CHAT_MESSAGES_PER_ADDRESS } from './rules.js';
import { ChatIdParams, HandoffAnswer, VisitorEventStream } from './schema.js';
import type { ChatService } from './service.js';
import { registerChatScope, type ChatAuth } from './session-auth.js';
import { STREAMS_PER_ADDRESS, STREAMS_PER_SESSION, type VisitorStreams } from './visitor-stream.js';

const TAGS = ['Chat widget'];
const WHO = 'Bearer `chs_…` (401), allowed origins (403).';

/**
 * The visitor's side of hand-off (issue 35; docs/chat-widget.md "Talking to a person"): asking for a person, and
 * the session's event stream (a person's replies and status changes, live and after a reconnect).
 */
export function registerChatHandoffRoutes(app: App, deps: { chatAuth: ChatAuth; chat: Pick<ChatService, 'requestHandoff'>; visitorStreams: VisitorStreams; limiter: RateLimiter }): void {
  const { chatAuth, chat, visitorStreams, limiter } = deps;
  // A request for a person is a message's worth of work; reconnecting a stream is a read.
  const requestLimit = limiter.hook(CHAT_MESSAGES_PER_ADDRESS, addressAndChat);
  const readLimit = limiter.hook(CHAT_CONFIG_READS, addressAndChat);

  registerChatScope(app, (scope) => {
    scope.post('/:chat_id/session/handoff', {
      onRequest: [chatAuth.requireChat, requestLimit, chatAuth.requireSession],
      schema: {
        tags: TAGS, operationId: 'requestChatHandoff', summary: 'Ask for a person',
        description: `In office hours the chat waits for a person (\`waiting\`); outside them the agent answers at once (\`bot\`, the lead card if any). ${WHO} 409: hand-off off, or already waiting or with a person.`,
        params: ChatIdParams,
        response: { 200: Envelope(HandoffAnswer), ...errorResponses(401, 403, 404, 409, 415), 429: RateLimitedResponse },
      },
    }, async (request) => ok(await chat.requestHandoff(chatAuth.chat(request), chatAuth.session(request))));

    scope.get('/:chat_id/session/events', {
      onRequest: [chatAuth.requireChat, readLimit, chatAuth.requireSession],
      schema: {
        tags: TAGS, operationId: 'chatSessionEvents', summary: 'The session\'s live events',
        description: `This conversation's events only; \`Last-Event-ID\` (a \`msg_…\`) replays the later ones first. Ends after an hour. ${WHO} 429 past ${STREAMS_PER_SESSION} streams per session, ${STREAMS_PER_ADDRESS} per address.`,
        params: ChatIdParams,
        response: { 200: { description: 'The event stream.', content: { 'text/event-stream': { schema: VisitorEventStream } } }, ...errorResponses(401, 403, 404), 429: RateLimitedResponse },
      },
    }, async (request, reply) => {
      const header = request.headers['last-event-id'];
      const lastEventId = typeof header === 'string' && header.trim() !== '' ? header.trim() : undefined;
      await visitorStreams.open(reply, chatAuth.chat(request), chatAuth.session(request), { ip: request.ip, lastEventId });
    });
  });
}
