import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { App } from '../http/app-type.js';
import { Envelope, Page, errorResponses, ok } from '../http/envelope.js';
import { addJsonBodyParser } from '../http/json-body.js';
import { RateLimitedResponse, type RateLimiter, type RateLimitRule } from '../http/rate-limit.js';
import type { DeveloperAuth } from '../oauth/bearer.js';
import { CreateToolBody, EndpointCheckBody, EndpointVerdict, DeletedTool, ToolIdParams, ToolListQuery, ToolRecord, ToolRevision, ToolRevisionListQuery, UpdateToolBody } from './schema.js';
import type { ToolsService } from './service.js';

const TAGS = ['Tools'];

/**
 * Each check may make one DNS lookup for a name the caller chose. The portal checks 600 ms after
 * typing stops, so a developer typing a long URL sends some dozens a minute; 120 leaves room for that
 * and keeps one account from using the server as a resolver.
 */
export const ENDPOINT_CHECKS: RateLimitRule = {
  name: 'dev-endpoint-check',
  limit: 120,
  windowMs: 60_000,
  message: 'Too many endpoint checks for your account.',
};

/** The Developer API for tools: `/api/dev/tools…`, each route behind the OAuth scope its `security` names. */
export function registerToolRoutes(app: App, deps: { tools: ToolsService; developerAuth: DeveloperAuth; limiter: RateLimiter }): void {
  const { tools, developerAuth: auth, limiter } = deps;

  app.register(async (plugin) => {
    const scope = plugin.withTypeProvider<TypeBoxTypeProvider>();
    // JSON only: text/plain gets a 415 instead of reaching validation as a string.
    scope.removeAllContentTypeParsers();
    // Clients often send Content-Type: application/json on bodiless calls like publish.
    addJsonBodyParser(scope, { allowEmpty: true });
    // Each route's `security` states its scope once: for the OpenAPI document and as its bearer check.
    scope.addHook('onRoute', auth.requireDeclaredScope);

    scope.post(
      '/api/dev/tools',
      {
        schema: {
          tags: TAGS,
          operationId: 'createTool',
          summary: 'Create a tool',
          description:
            'Creates a draft only you can see. `method` defaults to POST, `authType` to none, `category` to other, `parameters` to []. ' +
            'Needs an access token with the `tools:write` scope. 400 ENDPOINT_NOT_ALLOWED when the endpoint is not https:// or resolves to a non-public address; ' +
            '409 CONFLICT when you already have a tool with that name; 409 LIMIT_REACHED when you have as many tools as your limit allows (GET /api/dev/limits).',
          security: [{ oauth2: ['tools:write'] }],
          body: CreateToolBody,
          response: { 201: Envelope(ToolRecord), ...errorResponses(400, 401, 403, 409, 413, 415) },
        },
      },
      async (request, reply) => {
        const tool = await tools.create(auth.principal(request).developerId, request.body);
        return reply.code(201).send(ok(tool));
      },
    );

    scope.post(
      '/api/dev/tools/endpoint-check',
      {
        // After the scope check (prepended by requireDeclaredScope), so the budget is the developer's.
        onRequest: limiter.hook(ENDPOINT_CHECKS, (request) => auth.principal(request).developerId),
        schema: {
          tags: TAGS,
          operationId: 'checkToolEndpoint',
          summary: 'Check an endpoint before saving it',
          description:
            'Says whether an endpoint is https://, which addresses its host resolves to, each judged public or internal with the reason, ' +
            'and whether creating, updating and publishing a tool would accept it now (with the refusal they would give). ' +
            'DNS only: nothing connects to the endpoint, and no tool is read or written. On a server with TOOL_ALLOW_PRIVATE_ENDPOINTS (local development) ' +
            'an internal address is still named internal, and `allowedOnlyByPrivateSetting` says it is accepted only because of that setting. ' +
            `Needs an access token with the \`tools:write\` scope. Limited to ${ENDPOINT_CHECKS.limit} checks per minute per developer (429 RATE_LIMIT_EXCEEDED with Retry-After).`,
          security: [{ oauth2: ['tools:write'] }],
          body: EndpointCheckBody,
          response: { 200: Envelope(EndpointVerdict), ...errorResponses(400, 401, 403, 413, 415), 429: RateLimitedResponse },
        },
      },
      async (request) => ok(await tools.checkEndpointAsTyped(request.body.endpoint)),
    );

    scope.get(
      '/api/dev/tools',
      {
        schema: {
          tags: TAGS,
          operationId: 'listTools',
          summary: 'List your tools',
          description:
            'Your tools, drafts and published, newest first. Filter by `status`, `category` and `q` (text in name or description); page with `limit` and `cursor`. ' +
            'Needs an access token with the `tools:read` scope.',
          security: [{ oauth2: ['tools:read'] }],
          querystring: ToolListQuery,
          response: { 200: Envelope(Page(ToolRecord)), ...errorResponses(400, 401, 403) },
        },
      },
      async (request) => ok(await tools.list(auth.principal(request).developerId, request.query)),
    );

    scope.get(
      '/api/dev/tools/:tool_id',
      {
        schema: {
          tags: TAGS,
          operationId: 'getTool',
          summary: 'Get one of your tools',
          description: 'The working copy of one of your tools. Needs an access token with the `tools:read` scope. 404 TOOL_NOT_FOUND for an unknown id and for another developer\'s tool.',
          security: [{ oauth2: ['tools:read'] }],
          params: ToolIdParams,
          response: { 200: Envelope(ToolRecord), ...errorResponses(400, 401, 403, 404) },
        },
      },
      async (request) => ok(await tools.get(auth.principal(request).developerId, request.params.tool_id)),
    );

    scope.get(
      '/api/dev/tools/:tool_id/revisions',
      {
        schema: {
          tags: TAGS,
          operationId: 'listToolRevisions',
          summary: 'List a tool\'s published revisions',
          description:
            'Every revision of your tool, newest first: its version, when it was published, the definition exactly as it went live, and `live` on the one the catalog serves. ' +
            'Page with `limit` and `cursor`. Needs an access token with the `tools:read` scope. 404 TOOL_NOT_FOUND for an unknown id and for another developer\'s tool.',
          security: [{ oauth2: ['tools:read'] }],
          params: ToolIdParams,
          querystring: ToolRevisionListQuery,
          response: { 200: Envelope(Page(ToolRevision)), ...errorResponses(400, 401, 403, 404) },
        },
      },
      async (request) => ok(await tools.revisions(auth.principal(request).developerId, request.params.tool_id, request.query)),
    );

    scope.put(
      '/api/dev/tools/:tool_id',
      {
        schema: {
          tags: TAGS,
          operationId: 'updateTool',
          summary: 'Update a tool',
          description:
            'Send any subset of the editable fields; only those change. On a published tool this edits the working copy: ' +
            'the catalog keeps the published revision until you publish again (`hasUnpublishedChanges` tells). ' +
            'Needs an access token with the `tools:write` scope. 400 ENDPOINT_NOT_ALLOWED for an endpoint that is not allowed; 404 TOOL_NOT_FOUND; 409 CONFLICT when the new name is taken.',
          security: [{ oauth2: ['tools:write'] }],
          params: ToolIdParams,
          body: UpdateToolBody,
          response: { 200: Envelope(ToolRecord), ...errorResponses(400, 401, 403, 404, 409, 413, 415) },
        },
      },
      async (request) => ok(await tools.update(auth.principal(request).developerId, request.params.tool_id, request.body)),
    );

    scope.delete(
      '/api/dev/tools/:tool_id',
      {
        schema: {
          tags: TAGS,
          operationId: 'deleteTool',
          summary: 'Delete a tool',
          description: 'Works in any state; a published tool leaves the catalog at once. Needs an access token with the `tools:write` scope. 404 TOOL_NOT_FOUND.',
          security: [{ oauth2: ['tools:write'] }],
          params: ToolIdParams,
          response: { 200: Envelope(DeletedTool), ...errorResponses(400, 401, 403, 404) },
        },
      },
      async (request) => ok(await tools.remove(auth.principal(request).developerId, request.params.tool_id)),
    );

    scope.post(
      '/api/dev/tools/:tool_id/publish',
      {
        schema: {
          tags: TAGS,
          operationId: 'publishTool',
          summary: 'Publish a tool',
          description:
            'Re-checks the endpoint (its name must resolve, only to public addresses), then copies the working copy into a new ' +
            'immutable revision that the catalog shows. Publishing an unchanged published tool changes nothing. ' +
            'Needs an access token with the `tools:publish` scope. 400 ENDPOINT_NOT_ALLOWED when the endpoint fails the check; 404 TOOL_NOT_FOUND; ' +
            '409 CONFLICT when the tool changed while it was being published (publish again).',
          security: [{ oauth2: ['tools:publish'] }],
          params: ToolIdParams,
          response: { 200: Envelope(ToolRecord), ...errorResponses(400, 401, 403, 404, 409) },
        },
      },
      async (request) => ok(await tools.publish(auth.principal(request).developerId, request.params.tool_id, auth.auditContext(request))),
    );

    scope.post(
      '/api/dev/tools/:tool_id/unpublish',
      {
        schema: {
          tags: TAGS,
          operationId: 'unpublishTool',
          summary: 'Withdraw a tool from the catalog',
          description:
            'Status goes back to draft; revisions are kept, and publishing again brings the tool back. Needs an access token with the `tools:publish` scope. 404 TOOL_NOT_FOUND.',
          security: [{ oauth2: ['tools:publish'] }],
          params: ToolIdParams,
          response: { 200: Envelope(ToolRecord), ...errorResponses(400, 401, 403, 404) },
        },
      },
      async (request) => ok(await tools.unpublish(auth.principal(request).developerId, request.params.tool_id, auth.auditContext(request))),
    );
  });
}
