import type { FastifyReply, FastifyRequest } from 'fastify';
import type { App } from '../http/app-type.js';
import { Envelope, errorResponses, ok } from '../http/envelope.js';
import { databaseUnavailable } from '../http/database-unavailable.js';
import { logFailure } from '../http/error-handler.js';
import { AppError, isAppError } from '../http/errors.js';
import type { OrgAuth } from '../orgs/auth.js';
import { ORG_BODY_LIMIT, operatorRoute, registerOperatorScope } from '../orgs/operator-scope.js';
import { AgentIdParams } from '../orgs/schema.js';
import type { Handoff } from './handoff.js';
import { ChatBody, ConversationCreated, ConversationIdParams, ConversationListQuery, ConversationMessage, ConversationPage, MAX_CONTENT_CHARS, MAX_MESSAGES, MessageBody, Transcript, TurnResult, UIMessageStream } from './schema.js';
import type { ConversationsService, TurnEvent } from './service.js';
import { chatContent, createUIMessageMapper, SSE_DONE, sseChunk, uiMessageStreamHeaders } from './ui-message-stream.js';

const WHO = 'Needs an org API key or a session (an owner\'s or a member\'s).';

/**
 * Aborted when the client goes away before the answer is complete: the model stream and pending tool calls
 * stop. Watched on the socket (in a test with Node's fetch, the hijacked response's own 'close' fired, finished,
 * before the client hung up). `done` removes the listener from a kept-alive socket once the turn ends.
 */
function disconnectSignal(reply: FastifyReply): { signal: AbortSignal; done: () => void } {
  const controller = new AbortController();
  const socket = reply.raw.socket;
  const onClose = () => {
    if (!reply.raw.writableEnded) controller.abort();
  };
  socket?.once('close', onClose);
  return { signal: controller.signal, done: () => socket?.off('close', onClose) };
}

const wantsEvents = (request: FastifyRequest) => /\btext\/event-stream\b/i.test(request.headers.accept ?? '');

/** One Server-Sent Event: the event's type as its name, the whole event as JSON data. */
const sse = (event: TurnEvent) => `event: ${event.type}\ndata: ${JSON.stringify(event)}\n\n`;
/**
 * Step boundaries and refused calls are the UI message stream's; the default stream keeps its documented six
 * events. Pending calls (the chat widget's lead card) never happen on these routes: they offer no pending tools.
 */
const UI_STREAM_ONLY: ReadonlySet<TurnEvent['type']> = new Set(['step-start', 'step-finish', 'tool-call-refused', 'tool-call-pending']);
const inDefaultStream = (event: TurnEvent) => !UI_STREAM_ONLY.has(event.type);

const DEFAULT_STREAM_HEADERS = { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache, no-store', 'x-accel-buffering': 'no' };

export type Turn = Awaited<ReturnType<ConversationsService['startTurn']>>;

/** The headers hooks set on the reply (X-Request-Id; CORS, Vary and RateLimit-* on the chat widget's routes), for a stream that writes its own head. */
function replyHeaders(reply: FastifyReply): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(reply.getHeaders())) {
    if (value !== undefined) out[name] = Array.isArray(value) ? value.join(', ') : String(value);
  }
  return out;
}

/**
 * Runs a started turn as a stream on the raw response, each event written as `encode` says and `closing` last.
 * The head carries what the request's hooks set on the reply (its X-Request-Id among them), then `headers`.
 * Writes are corked until the next tick: the pieces the model sends in one read (several text deltas, a
 * call's end and the next step's start) leave in one socket write instead of one each. A turn that could not
 * be saved (the database went away) is said in the stream, since the status is already sent.
 */
export async function streamTurn(request: FastifyRequest, reply: FastifyReply, turn: Turn, headers: Record<string, string>, encode: (event: TurnEvent) => string, closing: () => string): Promise<void> {
  const { signal, done } = disconnectSignal(reply);
  reply.hijack();
  const raw = reply.raw;
  raw.writeHead(200, { ...replyHeaders(reply), ...headers });
  let corked = false;
  const uncork = () => {
    if (!corked) return;
    corked = false;
    raw.uncork();
  };
  const write = (text: string) => {
    if (text === '' || raw.writableEnded || raw.destroyed) return;
    if (!corked) {
      corked = true;
      raw.cork();
      process.nextTick(uncork);
    }
    raw.write(text);
  };
  const emit = (event: TurnEvent) => write(encode(event));
  try {
    const result = await turn.run({ stream: true, signal, emit });
    if (result.failure) logFailure(request.log, result.failure, result.failure, result.failure.status);
  } catch (error) {
    // The status is sent: the failure is the stream's `error` event, logged as the error handler logs it (an
    // outage one warning line, a bug of ours an error with its stack), with Retry-After as `retryAfter`.
    const failure = isAppError(error) ? error : databaseUnavailable(error) ?? new AppError('INTERNAL_ERROR', 'Something went wrong on our side while answering. Send your message again; if it keeps happening, contact support with the request id.');
    logFailure(request.log, failure, error, failure.status);
    const retryAfter = failure.headers['Retry-After'];
    emit({ type: 'error', code: failure.code, message: failure.message, ...(retryAfter === undefined ? {} : { retryAfter }) });
  } finally {
    done();
  }
  write(closing());
  // Uncorked before the end: on Node 24 an http response ended while corked dropped what was written in that tick.
  uncork();
  raw.end();
}

/**
 * useChat posts the chat's whole history each time (only the last message is read): the app's
 * largest body limit, room for two tool results at the 100 KB response cap (http-client.ts) and the
 * text around them; a longer chat sends only its last message (docs/conversations.md).
 */
const CHAT_BODY_LIMIT = 256 * 1024;

/** `/api/org/agents/{id}/conversations`, `/api/org/conversations`: talking to an agent, and the transcripts. docs/conversations.md. */
export function registerConversationRoutes(app: App, deps: { orgAuth: OrgAuth; conversations: ConversationsService; handoff: Pick<Handoff, 'reply'> }): void {
  const { orgAuth, conversations, handoff } = deps;

  registerOperatorScope(app, orgAuth, (r, orgOf) => {
    r.post('/api/org/agents/:id/conversations', {
      schema: {
        ...operatorRoute, operationId: 'createConversation', summary: 'Start a conversation with an agent',
        description: `A new, empty conversation with the agent and its model. ${WHO} 404 AGENT_NOT_FOUND; 409 CONFLICT when the agent has no model.`,
        params: AgentIdParams, response: { 201: Envelope(ConversationCreated), ...errorResponses(401, 404, 409) },
      },
    }, async (request, reply) => {
      const source = orgAuth.principal(request).actor.type === 'user' ? 'console' : 'api';
      return reply.code(201).send(ok(await conversations.create(orgOf(request), request.params.id, source)));
    });

    r.get('/api/org/conversations', {
      schema: {
        ...operatorRoute, operationId: 'listConversations', summary: 'List conversations',
        description: `Newest first, paged with \`limit\` and \`cursor\`; \`agentId\` keeps one agent's, \`status\` and \`assignee\` the Inbox's views. ${WHO}`,
        querystring: ConversationListQuery, response: { 200: Envelope(ConversationPage), ...errorResponses(400, 401) },
      },
    }, async (request) => {
      const { actor } = orgAuth.principal(request);
      return ok(await conversations.list(orgOf(request), request.query, actor.type === 'user' ? actor.id : undefined));
    });

    r.get('/api/org/conversations/:id', {
      schema: {
        ...operatorRoute, operationId: 'getConversation', summary: 'A conversation\'s transcript',
        description: `Every message in order: the user's, the assistant's (with its token usage and status) and each tool call (name, arguments, the result handed to the model, outcome, duration, call log id). ${WHO} 404 NOT_FOUND.`,
        params: ConversationIdParams, response: { 200: Envelope(Transcript), ...errorResponses(401, 404) },
      },
    }, async (request) => ok(await conversations.get(orgOf(request), request.params.id)));

    r.post('/api/org/conversations/:id/messages', {
      bodyLimit: ORG_BODY_LIMIT,
      schema: {
        ...operatorRoute, operationId: 'sendConversationMessage', summary: 'Send a message and get the agent\'s answer',
        description:
          `One turn: the model answers, calling the agent's tools as it decides (each through the same path as POST /api/org/agents/{id}/tool-calls, in the call log with path \`conversation\`), ` +
          `until it answers in text or reaches the agent's \`maxToolRounds\`. Without \`Accept: text/event-stream\`: the turn's new messages. With it: Server-Sent Events ` +
          '(`start`, `text-delta`, `tool-call-start`, `tool-call-end`, `error`, `finish`; docs/conversations.md). For the AI SDK\'s `useChat`, POST /api/org/conversations/{id}/chat answers the same turn in its UI message stream protocol. Every message is saved, failures and cancelled answers too. ' +
          'While a person is asked for or holds it (`waiting`, `human`) the message is stored and the model is not called (finish status `delivered`). `role: "operator"`: a member\'s reply, only while `human` (409 otherwise), 201 with the message. ' +
          `${WHO} 400 VALIDATION_ERROR (content 1–${MAX_CONTENT_CHARS} characters); 404 NOT_FOUND; 409 CONFLICT (the agent has no model, the conversation has ${MAX_MESSAGES} messages, or is still answering the previous one); ` +
          '429 RATE_LIMIT_EXCEEDED when the organization\'s daily token budget is used up (`Retry-After`: seconds until 00:00 UTC; nothing saved); ' +
          '502 MODEL_PROVIDER_ERROR (the provider refused the key, failed or was unreachable), 503 MODEL_PROVIDER_RATE_LIMITED (with the provider\'s `Retry-After`), 504 MODEL_PROVIDER_TIMEOUT (MODEL_TIMEOUT_MS): with the provider\'s message, never its key.',
        params: ConversationIdParams, body: MessageBody,
        response: { 200: Envelope(TurnResult), 201: Envelope(ConversationMessage), ...errorResponses(400, 401, 404, 409, 413, 415, 429, 502, 504) },
      },
    }, async (request, reply) => {
      if (request.body.role === 'operator') {
        return reply.code(201).send(ok(await handoff.reply(orgOf(request), request.params.id, orgAuth.principal(request).actor, request.body.content)));
      }
      const turn = await conversations.startTurn(orgOf(request), request.params.id, request.body.content);
      if (!wantsEvents(request)) {
        const { signal, done } = disconnectSignal(reply);
        const result = await turn.run({ stream: false, signal }).finally(done);
        if (result.failure) throw result.failure;
        return ok({ conversationId: result.conversationId, messages: result.messages, usage: result.usage });
      }
      await streamTurn(request, reply, turn, DEFAULT_STREAM_HEADERS, (event) => (inDefaultStream(event) ? sse(event) : ''), () => '');
    });

    r.post('/api/org/conversations/:id/chat', {
      bodyLimit: CHAT_BODY_LIMIT,
      schema: {
        ...operatorRoute, operationId: 'chatConversation', summary: 'Send a message, answered as an AI SDK UI message stream (useChat)',
        description:
          'The same turn as POST /api/org/conversations/{id}/messages, for the AI SDK\'s `useChat`: the body is what its DefaultChatTransport posts (`{id, messages, trigger, messageId}`; the last message is the user\'s, its text parts are the content), ' +
          'the answer is the UI message stream protocol (`x-vercel-ai-ui-message-stream: v1`): the turn\'s answers as one assistant message, each model request a step, each tool call a dynamic tool part with the endpoint\'s JSON as output, Switchboard\'s ids in the message metadata (docs/conversations.md). ' +
          `${WHO} Refusals come before the stream, as JSON: 400 VALIDATION_ERROR (the last message is not the user's, has parts other than text, or 1–${MAX_CONTENT_CHARS} characters; \`trigger: regenerate-message\`); 404 NOT_FOUND; 409 CONFLICT (as for messages). ` +
          'A provider failure is an `error` chunk with the provider\'s message, never its key.',
        params: ConversationIdParams, body: ChatBody,
        response: { 200: { description: 'The UI message stream.', content: { 'text/event-stream': { schema: UIMessageStream } } }, ...errorResponses(400, 401, 404, 409, 413, 415) },
      },
    }, async (request, reply) => {
      const turn = await conversations.startTurn(orgOf(request), request.params.id, chatContent(request.body));
      const chunks = createUIMessageMapper();
      await streamTurn(request, reply, turn, uiMessageStreamHeaders, (event) => chunks.map(event).map(sseChunk).join(''), () => chunks.end().map(sseChunk).join('') + SSE_DONE);
    });
  });
}
