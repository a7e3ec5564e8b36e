import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyRequest } from 'fastify';
import type { App } from '../http/app-type.js';
import { Envelope, errorResponses, ok } from '../http/envelope.js';
import { AppError } from '../http/errors.js';
import type { ErrorPageRenderer } from '../http/error-handler.js';
import { sendHtmlPage } from '../http/html-page.js';
import { addJsonBodyParser } from '../http/json-body.js';
import type { DeveloperAuth } from '../oauth/bearer.js';
import type { OrgAuth } from '../orgs/auth.js';
import { operatorRoute, registerOperatorScope } from '../orgs/operator-scope.js';
import { IdParam } from '../http/path-ids.js';
import type { SessionsService } from '../sessions/sessions-service.js';
import { ToolIdParams } from '../tools/schema.js';
import { MESSAGE_PAGE_CSP, renderMessagePage } from '../http/message-page.js';
import { CALLBACK_PATH } from './redirect-uri.js';
import { CallbackQuery, ConnectionStart, ConnectionStatus, Disconnected } from './schema.js';
import type { ConnectionsService } from './service.js';
import { Type } from '@sinclair/typebox';

const DEV_TAGS = ['Tools'];
// The invocation feature's words for a missing installation (that feature imports this one, so not its errors.ts).
const InstallationParams = Type.Object({ id: IdParam('inst', () => new AppError('NOT_FOUND', 'No installation has that id.'), 'The installation id (`inst_…`).') });

/**
 * `POST|GET|DELETE /api/org/installations/{id}/connection`, `POST|GET|DELETE /api/dev/tools/{tool_id}/test-connection`
 * and `GET /oauth/callback`, the redirect URI of every oauth2 tool.
 */
export function registerConnectionRoutes(app: App, deps: { orgAuth: OrgAuth; developerAuth: DeveloperAuth; sessions: Pick<SessionsService, 'fromRequest'>; connections: ConnectionsService }): void {
  const { orgAuth, developerAuth: auth, sessions, connections } = deps;

  /** The console session a connection is bound to; none for an API key or an access token (the service refuses those). */
  const sessionOf = async (request: FastifyRequest): Promise<string | undefined> => (await sessions.fromRequest(request))?.id;

  registerOperatorScope(app, orgAuth, (r, orgOf) => {
    const owner = (request: FastifyRequest) => ({ kind: 'installation' as const, orgId: orgOf(request), installationId: (request.params as { id: string }).id });

    r.post('/api/org/installations/:id/connection', {
      schema: {
        ...operatorRoute, operationId: 'startInstallationConnection', summary: 'Connect an account (oauth2 tools)',
        description:
          'Starts connecting the provider account an `oauth2` tool acts on: answers the provider\'s `authorizationUrl` (authorization code with PKCE S256) to send the person\'s browser to. ' +
          'The provider sends it back to `/oauth/callback`, which stores the tokens encrypted and returns the person to the installation\'s page. The authorization is single-use, ' +
          'expires in ten minutes, and is finished only in the same console session: 403 FORBIDDEN with an API key. Connecting again replaces the connection (a reconnect). ' +
          '404 NOT_FOUND, 409 CONFLICT when the tool is not an oauth2 tool or has no client secret, 400 ENDPOINT_NOT_ALLOWED when a provider URL is not public.',
        params: InstallationParams, response: { 200: Envelope(ConnectionStart), ...errorResponses(400, 401, 403, 404, 409) },
      },
    }, async (request) => ok(await connections.start(owner(request), orgAuth.principal(request).actor.type === 'user' ? await sessionOf(request) : undefined)));

    r.get('/api/org/installations/:id/connection', {
      schema: {
        ...operatorRoute, operationId: 'getInstallationConnection', summary: 'An installation\'s connection',
        description: 'Whether the oauth2 installation is connected, to which account, with which scopes, and when its token was renewed; never a token. 404 NOT_FOUND, 409 CONFLICT for a tool that is not oauth2.',
        params: InstallationParams, response: { 200: Envelope(ConnectionStatus), ...errorResponses(401, 404, 409) },
      },
    }, async (request) => ok(await connections.statusOf(owner(request))));

    r.delete('/api/org/installations/:id/connection', {
      schema: {
        ...operatorRoute, operationId: 'deleteInstallationConnection', summary: 'Disconnect the account',
        description: 'Revokes the tokens at the provider when the tool names a revocation URL (RFC 7009) and wipes them here; calls answer TOOL_CREDENTIALS_MISSING until someone connects again. 404 NOT_FOUND.',
        params: InstallationParams, response: { 200: Envelope(Disconnected), ...errorResponses(401, 404, 409) },
      },
    }, async (request) => ok(await connections.disconnectOwned(owner(request))));
  });

  app.register(async (plugin) => {
    const scope = plugin.withTypeProvider<TypeBoxTypeProvider>();
    scope.removeAllContentTypeParsers();
    addJsonBodyParser(scope, { allowEmpty: true });
    scope.addHook('onRoute', auth.requireDeclaredScope);
    const owner = (request: FastifyRequest) => ({ kind: 'developer' as const, developerId: auth.principal(request).developerId, toolId: (request.params as { tool_id: string }).tool_id });

    scope.post('/api/dev/tools/:tool_id/test-connection', {
      schema: {
        tags: DEV_TAGS, operationId: 'startTestConnection', summary: 'Connect a test account',
        description:
          'For your oauth2 tool\'s Test: connects your own account at the provider (your working copy\'s settings), never shared with any organization; test calls then send its token. ' +
          'Answers the `authorizationUrl` to open in the browser that is signed in to the portal (403 FORBIDDEN with an access token). 404 TOOL_NOT_FOUND, 409 CONFLICT when the tool is not oauth2 or has no client secret.',
        security: [{ oauth2: ['tools:write'] }],
        params: ToolIdParams, response: { 200: Envelope(ConnectionStart), ...errorResponses(400, 401, 403, 404, 409) },
      },
    }, async (request) => ok(await connections.start(owner(request), auth.principal(request).via === 'session' ? await sessionOf(request) : undefined)));

    scope.get('/api/dev/tools/:tool_id/test-connection', {
      schema: {
        tags: DEV_TAGS, operationId: 'getTestConnection', summary: 'Your test account\'s connection',
        description: 'Whether your test account is connected, and to which account. Needs `tools:read`. 404 TOOL_NOT_FOUND, 409 CONFLICT for a tool that is not oauth2.',
        security: [{ oauth2: ['tools:read'] }],
        params: ToolIdParams, response: { 200: Envelope(ConnectionStatus), ...errorResponses(401, 403, 404, 409) },
      },
    }, async (request) => ok(await connections.statusOf(owner(request))));

    scope.delete('/api/dev/tools/:tool_id/test-connection', {
      schema: {
        tags: DEV_TAGS, operationId: 'deleteTestConnection', summary: 'Disconnect your test account',
        description: 'Revokes its tokens at the provider when the tool names a revocation URL, and wipes them. Needs `tools:write`. 404 TOOL_NOT_FOUND.',
        security: [{ oauth2: ['tools:write'] }],
        params: ToolIdParams, response: { 200: Envelope(Disconnected), ...errorResponses(401, 403, 404, 409) },
      },
    }, async (request) => ok(await connections.disconnectOwned(owner(request))));
  });

  // The provider's redirect: a browser navigation, answered with a redirect to the console or a page.
  const errorPage: ErrorPageRenderer = (request, reply, { status, error }) => {
    const message = error && status < 500 ? error.message : 'Something went wrong on our side, and nothing was connected. Start again from the console in a moment.';
    return sendHtmlPage(request, reply, { status, html: Buffer.from(renderMessagePage('The account could not be connected', message, undefined)), csp: MESSAGE_PAGE_CSP }, 'no-store');
  };
  app.get(CALLBACK_PATH, { schema: { hide: true, querystring: CallbackQuery }, config: { errorFormat: 'html', errorPage } }, async (request, reply) => {
    const session = await sessions.fromRequest(request);
    const outcome = await connections.complete(request.query as Record<string, string | undefined>, session?.id);
    reply.header('Referrer-Policy', 'no-referrer');
    if (outcome.ok) return reply.header('Cache-Control', 'no-store').redirect(outcome.location, 303);
    const html = Buffer.from(renderMessagePage(outcome.title, outcome.message, outcome.back));
    return sendHtmlPage(request, reply, { status: outcome.status, html, csp: MESSAGE_PAGE_CSP }, 'no-store');
  });
}
