import { Type, type Static } from '@sinclair/typebox';
import { streamTurn } from '../conversations/routes.js';
import type { App } from '../http/app-type.js';
import { errorResponses } from '../http/envelope.js';
import { RateLimitedResponse, type RateLimiter } from '../http/rate-limit.js';
import { named } from '../http/schema-name.js';
import { MultilineText } from '../http/wire-text.js';
import { SUBMISSIONS_PER_MINUTE } from '../forms/rules.js';
import { createVisitorEventMapper } from './events.js';
import type { LeadCapture } from './lead-service.js';
import { addressAndChat, STREAM_HEADERS } from './routes.js';
import { CHAT_MESSAGES_PER_ADDRESS } from './rules.js';
import { ChatEventStream, ChatIdParams } from './schema.js';
import { registerChatScope, type ChatAuth } from './session-auth.js';

/** A card's values: a form has at most 5 built-in and 50 custom fields, each at most 5,000 characters. */
const LEAD_BODY_LIMIT = 64 * 1024;

export const LeadDecisionBody = named('ChatLeadDecision', Type.Object({
  toolCallId: Type.String({ minLength: 1, maxLength: 200, description: 'The card\'s `toolCallId`, from its `lead-capture` event or the session\'s history.' }),
  action: Type.Union([Type.Literal('submit'), Type.Literal('decline')], { description: '`submit` sends the card through the form\'s submit rules; `decline` sends nothing.' }),
  values: Type.Optional(Type.Record(
    Type.String({ maxLength: 100 }),
    Type.Union([MultilineText({ maxLength: 5000 }), Type.Number(), Type.Boolean()]),
    { maxProperties: 60, description: 'submit: the card\'s values as the visitor left them, by field name (`email`, `custom.<key>`); without them, the values the card was shown with. Fields the form does not have are ignored.' },
  )),
  consent: Type.Optional(Type.Boolean({ description: 'submit: true when the visitor ticked the consent box. Without it the form refuses the lead.' })),
}, { additionalProperties: false }));
export type LeadDecisionBody = Static<typeof LeadDecisionBody>;

/**
 * POST /api/public/chats/{chat_id}/session/lead: the visitor's decision on a lead card, and the model's next
 * answer streamed (docs/chat-widget.md, "Lead capture"). The only route from a chat to the CRM.
 */
export function registerLeadRoutes(app: App, deps: { chatAuth: ChatAuth; lead: LeadCapture; limiter: RateLimiter }): void {
  const { chatAuth, lead, limiter } = deps;
  // A decision is a model turn, as a message is: the same per-address budget.
  const turnLimit = limiter.hook(CHAT_MESSAGES_PER_ADDRESS, addressAndChat);

  registerChatScope(app, (scope) => {
    scope.post('/:chat_id/session/lead', {
      onRequest: [chatAuth.requireChat, turnLimit, chatAuth.requireSession],
      bodyLimit: LEAD_BODY_LIMIT,
      schema: {
        tags: ['Chat widget'], operationId: 'decideChatLead', summary: 'Send or decline a lead card; the answer streams',
        description:
          'The visitor\'s decision on a lead card the agent offered (`lead-capture`): `submit` goes through the form\'s own submit rules (consent, email or phone, required fields, each value) ' +
          'and creates or updates the contact with the conversation as its note, stores the submission with the chat\'s UTM parameters and opens the form\'s opportunity (webhooks as for any submission); ' +
          '`decline` creates nothing. The outcome goes to the model as the capture tool\'s result (`{status: "submitted"}` or `{status: "declined"}`) and its answer streams with the events of POST …/session/messages. ' +
          'Needs `Authorization: Bearer chs_…` (401 UNAUTHORIZED: start a new chat); only from the chat\'s allowed origins (403 FORBIDDEN). Refusals come before the stream, as JSON, and leave the card pending: ' +
          '400 VALIDATION_ERROR when the form refuses the values or consent is missing, with `field` and `fields: [{field, message}]` named as the card names them (`consent` for the box); ' +
          '404 NOT_FOUND for a toolCallId that is not a lead card of this session; 409 CONFLICT for a card already submitted or declined, or while the previous answer is streaming; ' +
          `429 RATE_LIMIT_EXCEEDED with Retry-After: the form's ${SUBMISSIONS_PER_MINUTE} submissions per minute per client address (shared with its public submit), ${CHAT_MESSAGES_PER_ADDRESS.limit} turns per minute per client address and chat, or a daily token budget used up.`,
        params: ChatIdParams, body: LeadDecisionBody,
        response: { 200: { description: 'The answer as Server-Sent Events.', content: { 'text/event-stream': { schema: ChatEventStream } } }, ...errorResponses(400, 401, 403, 404, 409, 413, 415), 429: RateLimitedResponse },
      },
    }, async (request, reply) => {
      const { turn, captureEvent } = await lead.decide(chatAuth.chat(request), chatAuth.session(request), request.body, { ip: request.ip, userAgent: request.headers['user-agent'] ?? null });
      await streamTurn(request, reply, turn, STREAM_HEADERS, createVisitorEventMapper(captureEvent), () => '');
    });
  });
}
