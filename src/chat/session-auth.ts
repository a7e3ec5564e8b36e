import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyReply, FastifyRequest, onRequestAsyncHookHandler } from 'fastify';
import type { App } from '../http/app-type.js';
import { addJsonBodyParser } from '../http/json-body.js';
import { createRequestSlot } from '../http/request-slot.js';
import { isoNow, type Clock } from '../lib/clock.js';
import { hashSecret } from '../lib/hashing.js';
import type { AgentsService } from '../orgs/agents-service.js';
import { originAllowed } from '../orgs/chat-origins.js';
import type { AgentChat, AgentHandoff, Branding } from '../orgs/schema.js';
import { chatNotFound, originRefused, sessionRefused } from './errors.js';
import type { ChatRepo } from './repo.js';
import { SESSION_IDLE_MS } from './rules.js';

/**
 * Who may use a public chat route (issue 22), checked in this order, each before the body is read:
 *
 * 1. The chat: `chat_id` names an agent whose chat is on and who has a model; else 404 NOT_FOUND, the same
 *    answer for an unknown id and a chat that is off (`chatNotFound`).
 * 2. The site: the request's `Origin` is one of the chat's allowed origins; a request without `Origin` or
 *    from another site is 403 FORBIDDEN (`originRefused`), nothing stored. An allowed origin gets CORS:
 *    `Access-Control-Allow-Origin` with that origin (never `*`), on every answer from then on, errors included,
 *    so the widget can read a 401 or a 429.
 * 3. On the session routes, the visitor's session: `Authorization: Bearer chs_…`, stored as its SHA-256 only;
 *    missing, unknown, expired, or another chat's session are all 401 UNAUTHORIZED (`sessionRefused`), which
 *    tells the visitor to start a new chat. No `WWW-Authenticate`: the visitor's browser holds no credential to
 *    retry with, only the way back to a new chat. Each accepted use extends the session by 7 days (`extend`, once
 *    the request is past every refusal, so a refused one writes nothing).
 *
 * Use: `registerChatScope(app, (scope) => scope.post('/:chat_id/session/…', { onRequest: [chatAuth.requireChat, …limit,
 * chatAuth.requireSession] }, handler))`, then in the handler `chatAuth.chat(request)`, `chatAuth.session(request)` and,
 * once the request is accepted, `chatAuth.extend(session)`. Outside such hooks, `authenticate(request, chatId)` runs
 * checks 1–3 at once and extends the session.
 */

/** The chat a request is for, once its origin is allowed. */
export interface LiveChat {
  chatId: string;
  orgId: string;
  agentId: string;
  chat: AgentChat;
  /** Hand-off settings (issue 35). */
  handoff: AgentHandoff;
  branding: Branding;
  /** The request's Origin (allowed). */
  origin: string;
}

/** A visitor's session, once its token checked out. */
export interface ChatSessionPrincipal {
  orgId: string;
  agentId: string;
  sessionId: string;
  conversationId: string;
}

export interface ChatSession extends ChatSessionPrincipal {
  /** As stored, before this use (extend answers the new one). */
  expiresAt: string;
  /** The visitor's messages so far. */
  visitorMessages: number;
}

/** A chat id that cannot exist is refused without a query. */
const CHAT_ID = /^chat_[0-9A-Za-z]{20}$/;
const TOKEN = /^chs_[0-9A-Za-z]{40}$/;

/** What cross-origin scripts may send and read (browsers hide other response headers from them). */
export const CHAT_CORS = {
  methods: 'GET, POST, OPTIONS',
  // Last-Event-ID: the widget resumes its event stream (read with fetch) by sending it itself.
  allowedHeaders: 'Authorization, Content-Type, Last-Event-ID',
  exposedHeaders: 'Retry-After, RateLimit-Limit, RateLimit-Remaining, RateLimit-Reset, X-Request-Id',
  // A day (the longest Firefox keeps; Chromium caps at 2 hours): each message is a POST with a bearer token and
  // JSON, so without the cache every message would wait a preflight round trip before its first token. Caching
  // it gives nothing away: every request's Origin is checked again here, so removing an origin takes effect at once.
  maxAge: '86400',
};

/** Marks `requireSession`, so the API reference names the session on exactly the routes that check it. */
const SESSION_CHECK = Symbol('chat session check');

const chatIdOf = (request: FastifyRequest) => (request.params as { chat_id?: string }).chat_id ?? '';

export function bearerChatToken(request: FastifyRequest): string | undefined {
  const header = request.headers.authorization;
  if (!header) return undefined;
  const match = /^Bearer[ ]+(\S+)\s*$/i.exec(header);
  return match?.[1];
}

export function createChatAuth(deps: { agents: Pick<AgentsService, 'chatOf'>; repo: Pick<ChatRepo, 'findSessionByHash' | 'touchSession'>; clock: Clock }) {
  const { agents, repo, clock } = deps;
  const chatSlot = createRequestSlot<LiveChat>('the public chat');
  const sessionSlot = createRequestSlot<ChatSession>('the chat session');

  /** Checks 1 and 2: the chat is live, and the request comes from one of its sites. */
  async function liveChat(request: FastifyRequest, chatId: string): Promise<LiveChat> {
    const found = CHAT_ID.test(chatId) ? await agents.chatOf(chatId) : undefined;
    if (!found || !found.chat.enabled || !found.hasModel) throw chatNotFound();
    const origin = request.headers.origin;
    if (origin === undefined || !originAllowed(origin, found.chat.allowedOrigins)) throw originRefused();
    return { chatId, orgId: found.orgId, agentId: found.agentId, chat: found.chat, handoff: found.handoff, branding: found.branding, origin };
  }

  /** Check 3: the bearer session belongs to this chat and has not expired. Writes nothing (see extend). */
  async function checkSession(request: FastifyRequest, chat: LiveChat): Promise<ChatSession> {
    const token = bearerChatToken(request);
    if (token === undefined || !TOKEN.test(token)) throw sessionRefused();
    const row = await repo.findSessionByHash(hashSecret(token));
    if (!row || row.agent_id !== chat.agentId || row.org_id !== chat.orgId || row.expires_at <= isoNow(clock)) throw sessionRefused();
    return { orgId: row.org_id, agentId: row.agent_id, sessionId: row.id, conversationId: row.conversation_id, expiresAt: row.expires_at, visitorMessages: row.visitor_messages };
  }

  /**
   * A use of the session was accepted: it now ends 7 days from now. Called once the request is past every
   * refusal (a refused request, an oversized message or a limit, writes nothing); returns the new expiry.
   */
  async function extend(session: ChatSessionPrincipal): Promise<string> {
    const now = clock.now();
    const expiresAt = new Date(now.getTime() + SESSION_IDLE_MS).toISOString();
    await repo.touchSession(session.sessionId, now.toISOString(), expiresAt);
    return expiresAt;
  }

  /** onRequest hook of every public chat route: checks 1 and 2, then the CORS headers for the allowed origin. */
  const requireChat: onRequestAsyncHookHandler = async (request, reply) => {
    // Every answer of a chat route depends on the Origin it was asked from (caches must not mix them).
    reply.header('Vary', 'Origin').header('Cache-Control', 'no-store');
    const chat = await liveChat(request, chatIdOf(request));
    reply.header('Access-Control-Allow-Origin', chat.origin).header('Access-Control-Expose-Headers', CHAT_CORS.exposedHeaders);
    chatSlot.set(request, chat);
  };

  /** onRequest hook of the session routes, after requireChat (and the per-address limit): check 3. */
  const requireSession: onRequestAsyncHookHandler = Object.assign(async (request: FastifyRequest) => {
    sessionSlot.set(request, await checkSession(request, chatSlot.get(request)));
  }, { [SESSION_CHECK]: true });

  /** The preflight (OPTIONS) of any chat route: 204 with the CORS policy for an allowed origin; refusals as above. */
  async function preflight(request: FastifyRequest, reply: FastifyReply): Promise<void> {
    reply.header('Vary', 'Origin');
    const chat = await liveChat(request, chatIdOf(request));
    reply
      .code(204)
      .header('Access-Control-Allow-Origin', chat.origin)
      .header('Access-Control-Allow-Methods', CHAT_CORS.methods)
      .header('Access-Control-Allow-Headers', CHAT_CORS.allowedHeaders)
      .header('Access-Control-Max-Age', CHAT_CORS.maxAge)
      .send();
  }

  /**
   * Checks 1–3 for a request outside the hooks (from a handler: call it once the body is valid): the chat id,
   * Origin and bearer session → who the visitor is. It extends the session, as an accepted use.
   */
  async function authenticate(request: FastifyRequest, chatId: string): Promise<ChatSessionPrincipal> {
    const chat = await liveChat(request, chatId);
    const { orgId, agentId, sessionId, conversationId } = await checkSession(request, chat);
    const principal = { orgId, agentId, sessionId, conversationId };
    await extend(principal);
    return principal;
  }

  return {
    requireChat,
    requireSession,
    preflight,
    authenticate,
    extend,
    /** The chat requireChat found. */
    chat: (request: FastifyRequest) => chatSlot.get(request),
    /** The session requireSession found. */
    session: (request: FastifyRequest) => sessionSlot.get(request),
  };
}

export type ChatAuth = ReturnType<typeof createChatAuth>;

/** The prefix of every public chat route. */
export const CHAT_PREFIX = '/api/public/chats';

/**
 * A scope for public chat routes under `/api/public/chats`: JSON bodies only (an empty one reads as none). Routes add `chatAuth.requireChat`
 * (first) and, on session routes, `chatAuth.requireSession` as onRequest hooks; the API reference's security follows the hooks. The preflight of every path under
 * a chat is registered once, by chat/routes.ts, so other files may open scopes of their own here.
 */
export function registerChatScope(app: App, register: (scope: App) => void): void {
  app.register(async (plugin) => {
    const scope = plugin.withTypeProvider<TypeBoxTypeProvider>();
    scope.removeAllContentTypeParsers();
    // A session may start without a body: `Content-Type: application/json` with nothing after it is allowed too.
    addJsonBodyParser(scope, { allowEmpty: true });
    scope.addHook('onRoute', declareSecurity);
    register(scope);
  }, { prefix: CHAT_PREFIX });
}

/**
 * The API reference's security of a chat route, from its hooks: the visitor's bearer session on the routes
 * that check it (`chatSession`), none on the others (`[]`: the Origin check is not a credential).
 */
function declareSecurity(route: { schema?: { hide?: boolean; security?: unknown }; onRequest?: unknown }): void {
  if (!route.schema || route.schema.hide === true) return;
  const hooks: unknown[] = Array.isArray(route.onRequest) ? route.onRequest : [route.onRequest];
  const checksSession = hooks.some((hook) => typeof hook === 'function' && SESSION_CHECK in hook);
  route.schema.security = checksSession ? [{ chatSession: [] }] : [];
}
