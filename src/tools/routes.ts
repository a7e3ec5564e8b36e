import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { App } from '../http/app-type.js';
import { Envelope, Page, errorResponses, ok } from '../http/envelope.js';
import { jsonBodyParser } from '../http/json-body.js';
import type { DeveloperAuth } from '../oauth/bearer.js';
import { CreateToolBody, DeletedTool, ToolIdParams, ToolListQuery, ToolRecord, UpdateToolBody } from './schema.js';
import type { ToolsService } from './service.js';

const JSON_TYPE = 'application/json';
const TAGS = ['Tools'];

/** The Developer API for tools: `/api/dev/tools…`, each route behind its OAuth scope. */
export function registerToolRoutes(app: App, deps: { tools: ToolsService; developerAuth: DeveloperAuth }): void {
  const { tools, developerAuth: auth } = deps;

  app.register(async (plugin) => {
    const scope = plugin.withTypeProvider<TypeBoxTypeProvider>();
    // JSON only: text/plain gets a 415 instead of reaching validation as a string.
    scope.removeAllContentTypeParsers();
    // Clients often send Content-Type: application/json on bodiless calls like publish.
    scope.addContentTypeParser(JSON_TYPE, { parseAs: 'string' }, jsonBodyParser({ allowEmpty: true }));

    scope.post(
      '/api/dev/tools',
      {
        onRequest: auth.requireScope('tools:write'),
        schema: {
          tags: TAGS,
          summary: 'Create a tool',
          description: 'Creates a draft only you can see. `method` defaults to POST, `authType` to none, `category` to other, `parameters` to [].',
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

    scope.get(
      '/api/dev/tools',
      {
        onRequest: auth.requireScope('tools:read'),
        schema: {
          tags: TAGS,
          summary: 'List your tools',
          description: 'Newest first. Filter by `status`, `category` and `q` (text in name or description); page with `limit` and `cursor`.',
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
        onRequest: auth.requireScope('tools:read'),
        schema: {
          tags: TAGS,
          summary: 'Get one of your tools',
          security: [{ oauth2: ['tools:read'] }],
          params: ToolIdParams,
          response: { 200: Envelope(ToolRecord), ...errorResponses(400, 401, 403, 404) },
        },
      },
      async (request) => ok(await tools.get(auth.principal(request).developerId, request.params.tool_id)),
    );

    scope.put(
      '/api/dev/tools/:tool_id',
      {
        onRequest: auth.requireScope('tools:write'),
        schema: {
          tags: TAGS,
          summary: 'Update a tool',
          description:
            'Send any subset of the editable fields; only those change. On a published tool this edits the working copy: ' +
            'the catalog keeps the published revision until you publish again (`hasUnpublishedChanges` tells).',
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
        onRequest: auth.requireScope('tools:write'),
        schema: {
          tags: TAGS,
          summary: 'Delete a tool',
          description: 'Works in any state; a published tool leaves the catalog at once.',
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
        onRequest: auth.requireScope('tools:publish'),
        schema: {
          tags: TAGS,
          summary: 'Publish a tool',
          description:
            'Re-checks the endpoint (its name must resolve, only to public addresses), then copies the working copy into a new ' +
            'immutable revision that the catalog shows. Publishing an unchanged published tool changes nothing.',
          security: [{ oauth2: ['tools:publish'] }],
          params: ToolIdParams,
          response: { 200: Envelope(ToolRecord), ...errorResponses(400, 401, 403, 404, 409) },
        },
      },
      async (request) => ok(await tools.publish(auth.principal(request).developerId, request.params.tool_id)),
    );

    scope.post(
      '/api/dev/tools/:tool_id/unpublish',
      {
        onRequest: auth.requireScope('tools:publish'),
        schema: {
          tags: TAGS,
          summary: 'Withdraw a tool from the catalog',
          description: 'Status goes back to draft; revisions are kept, and publishing again brings the tool back.',
          security: [{ oauth2: ['tools:publish'] }],
          params: ToolIdParams,
          response: { 200: Envelope(ToolRecord), ...errorResponses(400, 401, 403, 404) },
        },
      },
      async (request) => ok(await tools.unpublish(auth.principal(request).developerId, request.params.tool_id)),
    );
  });
}
