import type { App } from '../http/app-type.js';
import { Envelope, errorResponses, ok } from '../http/envelope.js';
import type { OrgAuth } from '../orgs/auth.js';
import { ORG_BODY_LIMIT, operatorRoute, registerOperatorScope } from '../orgs/operator-scope.js';
import { sseEvent, type EventStreams } from './event-streams.js';
import type { Handoff } from './handoff.js';
import type { LiveEvents } from './live.js';
import { AssignBody, Conversation, ConversationIdParams, InboxEventStream } from './schema.js';

const WHO = 'An org API key or a session.';

/** Inbox streams open at once per organization, per node: a team's tabs and integrations, not a crowd. */
export const INBOX_STREAMS_PER_ORG = 50;
/** An Inbox stream ends after this long (its client reconnects, and its credentials are checked again). */
export const INBOX_STREAM_MAX_AGE_MS = 30 * 60_000;

/**
 * The Inbox's API (issue 35, docs/operator-api.md "Inbox"): a member takes a conversation over, releases it to
 * the agent or closes it, and the organization's live events. Replies are POST …/messages with `role: "operator"`
 * (routes.ts). Another organization's conversation is 404, as a missing one.
 */
export function registerHandoffRoutes(app: App, deps: { orgAuth: OrgAuth; handoff: Pick<Handoff, 'assign' | 'release' | 'close'>; live: LiveEvents; streams: EventStreams }): void {
  const { orgAuth, handoff, live, streams } = deps;

  registerOperatorScope(app, orgAuth, (r, orgOf) => {
    r.post('/api/org/conversations/:id/assign', {
      bodyLimit: ORG_BODY_LIMIT,
      preValidation: (request, _reply, done) => {
        request.body ??= {};
        done();
      },
      schema: {
        ...operatorRoute, operationId: 'assignConversation', summary: 'Take a conversation over',
        description: `Status \`human\`, held by \`userId\` (required with an API key); the model is not called until released. ${WHO} 404 (also a user not of your organization); 409 when closed.`,
        params: ConversationIdParams, body: AssignBody,
        response: { 200: Envelope(Conversation), ...errorResponses(400, 401, 404, 409, 413, 415) },
      },
    }, async (request) => ok(await handoff.assign(orgOf(request), request.params.id, orgAuth.principal(request).actor, request.body.userId)));

    r.post('/api/org/conversations/:id/release', {
      schema: {
        ...operatorRoute, operationId: 'releaseConversation', summary: 'Give a conversation back to the agent',
        description: `Status \`bot\`, unassigned. ${WHO} 404; 409 unless \`waiting\` or \`human\`.`,
        params: ConversationIdParams, response: { 200: Envelope(Conversation), ...errorResponses(401, 404, 409) },
      },
    }, async (request) => ok(await handoff.release(orgOf(request), request.params.id, orgAuth.principal(request).actor)));

    r.post('/api/org/conversations/:id/close', {
      schema: {
        ...operatorRoute, operationId: 'closeConversation', summary: 'Close a conversation',
        description: `Status \`closed\` (again: unchanged). The agent still answers if the visitor writes again. ${WHO} 404.`,
        params: ConversationIdParams, response: { 200: Envelope(Conversation), ...errorResponses(401, 404) },
      },
    }, async (request) => ok(await handoff.close(orgOf(request), request.params.id, orgAuth.principal(request).actor)));

    r.get('/api/org/conversations/events', {
      schema: {
        ...operatorRoute, operationId: 'conversationEvents', summary: 'The Inbox\'s live events',
        description: `Your organization's conversation events (EventSource with the session cookie works). Ends after 30 minutes. ${WHO} 429 past ${INBOX_STREAMS_PER_ORG} streams.`,
        response: { 200: { description: 'The event stream.', content: { 'text/event-stream': { schema: InboxEventStream } } }, ...errorResponses(401, 429) },
      },
    }, async (request, reply) => {
      const orgId = orgOf(request);
      const releaseSlot = streams.reserve([[`inbox:${orgId}`, INBOX_STREAMS_PER_ORG]]);
      let unsubscribe = () => {};
      const stream = streams.start(reply, () => {
        unsubscribe();
        releaseSlot();
      }, { maxAgeMs: INBOX_STREAM_MAX_AGE_MS });
      unsubscribe = live.subscribeOrg(orgId, {
        change(change) {
          let text = change.conversation ? sseEvent('conversation', change.conversation) : '';
          for (const message of change.messages) text += sseEvent('message', { conversationId: change.conversationId, message });
          stream.write(text);
        },
        lost: () => stream.end(),
      });
      if (stream.ended) unsubscribe();
      // EventSource reconnects after this long when the stream ends.
      stream.write('retry: 3000\n\n');
    });
  });
}
