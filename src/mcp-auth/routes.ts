import { Type } from '@sinclair/typebox';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { App } from '../http/app-type.js';
import { Envelope, errorResponses, ok } from '../http/envelope.js';
import type { ErrorPageRenderer, RouteErrorConfig } from '../http/error-handler.js';
import { AppError } from '../http/errors.js';
import { sendHtmlPage } from '../http/html-page.js';
import { addJsonBodyParser } from '../http/json-body.js';
import { MESSAGE_PAGE_CSP, renderMessagePage } from '../http/message-page.js';
import { IdParam } from '../http/path-ids.js';
import type { RateLimiter, RateLimitRule } from '../http/rate-limit.js';
import { named } from '../http/schema-name.js';
import type { OrgAuth } from '../orgs/auth.js';
import { operatorRoute, registerOperatorScope } from '../orgs/operator-scope.js';
import type { SessionsService } from '../sessions/sessions-service.js';
import { MCP_SCOPE, RedirectableError, registerClient, type AuthorizationParams, type McpAuthService } from './service.js';
import type { McpAuthRepo } from './repo.js';
import type { Clock } from '../lib/clock.js';

/** Registrations are free to make: a few a minute per address is what a host needs. */
export const REGISTRATIONS: RateLimitRule = { name: 'mcp-client-registration', limit: 20, windowMs: 60_000, message: 'Too many client registrations from your address.' };

const PARAM_NAMES = ['response_type', 'client_id', 'redirect_uri', 'code_challenge', 'code_challenge_method', 'state', 'scope', 'resource'] as const;
const AuthorizationQuery = Type.Object(Object.fromEntries(PARAM_NAMES.map((name) => [name, Type.Optional(Type.String({ maxLength: 2048 }))])), { additionalProperties: true });

const Decision = named('McpAuthorizationDecision', Type.Object({
  ...Object.fromEntries(PARAM_NAMES.map((name) => [name, Type.Optional(Type.String({ maxLength: 2048 }))])),
  agentId: Type.Optional(Type.String({ maxLength: 64, description: 'The agent the host may use; required to approve.' })),
  decision: Type.Union([Type.Literal('approve'), Type.Literal('deny')]),
}, { additionalProperties: false }));

const AuthorizationDetails = named('McpAuthorizationDetails', Type.Object({
  client: Type.Object({ id: Type.String(), name: Type.String(), logoUri: Type.Union([Type.String(), Type.Null()]), verified: Type.Literal(false) }),
  redirectHost: Type.String(),
  organization: Type.Object({ id: Type.String(), name: Type.String() }),
  agents: Type.Array(Type.Object({ id: Type.String(), name: Type.String() })),
  permissions: Type.Array(Type.String()),
  resource: Type.String(),
}));

const Grant = named('McpGrant', Type.Object({
  id: Type.String({ description: '`mgr_…`' }),
  client: Type.Object({ id: Type.String(), name: Type.String({ description: 'As the app names itself: not verified.' }) }),
  approvedBy: Type.Union([Type.Object({ id: Type.String(), name: Type.String() }), Type.Null()]),
  createdAt: Type.String({ format: 'date-time' }),
  lastUsedAt: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
}));

const GrantList = named('McpGrantList', Type.Object({ items: Type.Array(Grant) }));
const RevokedGrant = named('McpGrantRevoked', Type.Object({ id: Type.String(), revoked: Type.Literal(true) }));
const DecisionAnswer = named('McpAuthorizationAnswer', Type.Object({ redirectTo: Type.String({ description: 'Where the browser goes next: the app\'s redirect URI with `code` or `error`, `state` and `iss`.' }) }));

function paramsOf(source: Record<string, unknown>): AuthorizationParams {
  return Object.fromEntries(PARAM_NAMES.map((name) => [name, typeof source[name] === 'string' ? source[name] : undefined])) as AuthorizationParams;
}

/**
 * MCP hosts' OAuth: RFC 9728 metadata of `/mcp`, the authorization endpoint (which sends the person to the console's
 * consent page), the consent page's API, Dynamic Client Registration, and an agent's connected apps.
 */
export function registerMcpAuthRoutes(app: App, deps: {
  mcpAuth: McpAuthService;
  repo: Pick<McpAuthRepo, 'insertClient'>;
  sessions: Pick<SessionsService, 'fromRequest' | 'checkCsrf'>;
  orgAuth: OrgAuth;
  agents: { list(orgId: string): Promise<Array<{ id: string; name: string }>>; get(orgId: string, agentId: string): Promise<unknown> };
  organizationName(orgId: string): Promise<string>;
  limiter: RateLimiter;
  clock: Clock;
  publicUrl: string;
  resource: string;
}): void {
  const { mcpAuth, sessions, orgAuth, agents, limiter, publicUrl, resource } = deps;

  const protectedResource = () => ({
    resource,
    authorization_servers: [publicUrl],
    scopes_supported: [MCP_SCOPE],
    bearer_methods_supported: ['header'],
    resource_name: 'Switchboard MCP',
    resource_documentation: `${publicUrl}/docs`,
  });
  // RFC 9728 §3.1: the resource's path after the well-known name; the bare one for clients that look there first.
  for (const path of ['/.well-known/oauth-protected-resource/mcp', '/.well-known/oauth-protected-resource']) {
    app.get(path, { schema: { hide: true } }, async () => protectedResource());
  }

  const page = (reply: FastifyReply, request: FastifyRequest, status: number, title: string, message: string) =>
    sendHtmlPage(request, reply, { status, html: Buffer.from(renderMessagePage(title, message, undefined)), csp: MESSAGE_PAGE_CSP }, 'no-store');
  const errorPage: ErrorPageRenderer = (request, reply, { status, error }) =>
    page(reply, request, status, 'This app cannot be authorized', error && status < 500 ? error.message : 'Something went wrong on our side. Try again from the app in a moment.');
  const htmlErrors: RouteErrorConfig = { errorFormat: 'html', errorPage };

  // The authorization endpoint: checked here, then the console's consent page with the same query.
  app.get('/oauth/authorize', { schema: { hide: true, querystring: AuthorizationQuery }, config: htmlErrors }, async (request, reply) => {
    reply.header('Referrer-Policy', 'no-referrer');
    try {
      await mcpAuth.check(paramsOf(request.query as Record<string, unknown>));
    } catch (error) {
      if (error instanceof RedirectableError) return reply.redirect(error.redirectTo, 302);
      if (error instanceof AppError && error.code === 'INVALID_CLIENT') return page(reply, request, 400, 'This app cannot be authorized', error.message);
      throw error;
    }
    const query = request.url.slice(request.url.indexOf('?'));
    return reply.header('Cache-Control', 'no-store').redirect(`/app/authorize${query}`, 302);
  });

  app.register(async (plugin) => {
    const scope = plugin.withTypeProvider<TypeBoxTypeProvider>();
    scope.removeAllContentTypeParsers();
    addJsonBodyParser(scope, { allowEmpty: true });

    /** The signed-in person with an organization, for the consent page (its changes CSRF-checked). */
    async function person(request: FastifyRequest) {
      const session = await sessions.fromRequest(request);
      if (!session) throw new AppError('UNAUTHORIZED', 'Sign in to the console to approve this app.');
      sessions.checkCsrf(request, session);
      if (session.orgId === null) throw new AppError('FORBIDDEN', 'This account belongs to no organization, so it has no agents to give an app.');
      return { userId: session.userId, orgId: session.orgId };
    }

    /** The request checked again, as the consent page's API answers a failure: 400 with our words. */
    async function checked(params: AuthorizationParams) {
      try {
        return await mcpAuth.check(params);
      } catch (error) {
        if (error instanceof RedirectableError) throw new AppError('VALIDATION_ERROR', `This request cannot be approved: ${error.description}`);
        if (error instanceof AppError && error.code === 'INVALID_CLIENT') throw new AppError('VALIDATION_ERROR', error.message);
        throw error;
      }
    }

    scope.get('/api/auth/mcp-authorization', {
      schema: {
        tags: ['MCP'], security: [{ consoleSession: [] }], operationId: 'getMcpAuthorization', summary: 'An MCP host\'s authorization request, for the consent page',
        description: 'The console\'s consent page reads who asks (as the app describes itself: not verified), where the answer goes, and the agents the signed-in person may give it. Session only.',
        querystring: AuthorizationQuery, response: { 200: Envelope(AuthorizationDetails), ...errorResponses(400, 401, 403) },
      },
    }, async (request) => {
      const who = await person(request);
      const request_ = await checked(paramsOf(request.query as Record<string, unknown>));
      return ok({
        client: { id: request_.client.id, name: request_.client.name, logoUri: request_.client.logoUri, verified: false as const },
        redirectHost: new URL(request_.redirectUri).host,
        organization: { id: who.orgId, name: await deps.organizationName(who.orgId) },
        agents: await agents.list(who.orgId),
        permissions: ['List this agent’s tools', 'Call this agent’s tools'],
        resource,
      });
    });

    scope.post('/api/auth/mcp-authorization', {
      schema: {
        tags: ['MCP'], security: [{ consoleSession: [] }], operationId: 'decideMcpAuthorization', summary: 'Approve or deny an MCP host',
        description: 'The consent page\'s decision, with every parameter of the request again (checked again here) and, to approve, the agent. Answers where the browser goes next. Session and X-CSRF-Token only.',
        body: Decision, response: { 200: Envelope(DecisionAnswer), ...errorResponses(400, 401, 403, 404) },
      },
    }, async (request) => {
      const who = await person(request);
      const body = request.body;
      const params = paramsOf(body as Record<string, unknown>);
      await checked(params);
      if (body.decision === 'deny') return ok({ redirectTo: await mcpAuth.decide(params, { approve: false }) });
      if (!body.agentId) throw new AppError('VALIDATION_ERROR', 'Choose the agent the app may use.', { field: 'agentId' });
      // Another organization's agent, or one that does not exist: the same 404.
      await agents.get(who.orgId, body.agentId);
      return ok({ redirectTo: await mcpAuth.decide(params, { approve: true, orgId: who.orgId, agentId: body.agentId, userId: who.userId }) });
    });

    // Dynamic Client Registration (RFC 7591): public clients, rate-limited per address.
    scope.post('/oauth/register', { schema: { hide: true }, config: { errorFormat: 'oauth' }, onRequest: limiter.hook(REGISTRATIONS, (request) => request.ip) }, async (request, reply) => {
      const body = request.body;
      if (body === null || typeof body !== 'object' || Array.isArray(body)) throw new AppError('INVALID_REQUEST', 'Send the client metadata as a JSON object.');
      reply.header('Cache-Control', 'no-store');
      return reply.code(201).send(await registerClient(deps.repo, deps.clock, body as Record<string, unknown>));
    });
  });

  registerOperatorScope(app, orgAuth, (r, orgOf) => {
    const AgentParams = Type.Object({ id: IdParam('agt', () => new AppError('AGENT_NOT_FOUND', 'No agent has that id in your organization.'), 'The agent id (`agt_…`).') });
    const GrantParams = Type.Object({
      id: IdParam('agt', () => new AppError('AGENT_NOT_FOUND', 'No agent has that id in your organization.'), 'The agent id (`agt_…`).'),
      grant_id: IdParam('mgr', () => new AppError('NOT_FOUND', 'No connected app has that id for this agent.'), 'The connected app id (`mgr_…`).'),
    });
    r.get('/api/org/agents/:id/mcp-grants', {
      schema: {
        ...operatorRoute, operationId: 'listMcpGrants', summary: 'An agent\'s connected apps',
        description: 'The MCP hosts a person approved for this agent (docs/mcp.md): client as it names itself, who approved, when, last used. 404 AGENT_NOT_FOUND.',
        params: AgentParams, response: { 200: Envelope(GrantList), ...errorResponses(401, 404) },
      },
    }, async (request) => {
      await agents.get(orgOf(request), request.params.id);
      return ok({ items: await mcpAuth.agentGrants(orgOf(request), request.params.id) });
    });
    r.delete('/api/org/agents/:id/mcp-grants/:grant_id', {
      schema: {
        ...operatorRoute, operationId: 'revokeMcpGrant', summary: 'Revoke a connected app',
        description: 'Ends the app\'s access at once: its tokens stop working and it must be approved again. 404 NOT_FOUND.',
        params: GrantParams, response: { 200: Envelope(RevokedGrant), ...errorResponses(401, 404) },
      },
    }, async (request) => ok(await mcpAuth.revokeGrant(orgOf(request), request.params.id, request.params.grant_id)));
  });
}
