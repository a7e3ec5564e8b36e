import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { App } from '../app.js';
import { Envelope, errorResponses, ok } from '../http/envelope.js';
import type { DeveloperAuth } from '../oauth/bearer.js';
import { ToolIdParams } from '../tools/schema.js';
import type { DeveloperCallsService } from './developer-calls.js';
import { DeveloperCallListQuery, DeveloperToolCallPage, ToolCallStats } from './schema.js';

const TAGS = ['Tools'];

/** Developer API: `GET /api/dev/tools/{tool_id}/calls` and `…/stats`, behind the scope each route's `security` names. */
export function registerDeveloperCallRoutes(app: App, deps: { developerCalls: DeveloperCallsService; developerAuth: DeveloperAuth }): void {
  const { developerCalls, developerAuth: auth } = deps;

  app.register(async (plugin) => {
    const scope = plugin.withTypeProvider<TypeBoxTypeProvider>();
    scope.addHook('onRoute', auth.requireDeclaredScope);

    scope.get('/api/dev/tools/:tool_id/calls', {
      schema: {
        tags: TAGS, operationId: 'listToolCallsForDeveloper', summary: 'Calls of one of your tools',
        description:
          'Every call of your tool from every organization, newest first, paged with `limit` and `cursor`: outcome, your endpoint\'s status, duration and sizes, ' +
          'never arguments or results. Each organization appears only as an opaque `orgRef`. Needs `tools:read`. 404 TOOL_NOT_FOUND for an unknown id and for another developer\'s tool.',
        security: [{ oauth2: ['tools:read'] }],
        params: ToolIdParams, querystring: DeveloperCallListQuery,
        response: { 200: Envelope(DeveloperToolCallPage), ...errorResponses(400, 401, 403, 404) },
      },
    }, async (request) => ok(await developerCalls.list(auth.principal(request).developerId, request.params.tool_id, request.query)));

    scope.get('/api/dev/tools/:tool_id/stats', {
      schema: {
        tags: TAGS, operationId: 'getToolCallStats', summary: 'Daily statistics of one of your tools',
        description:
          'Calls, errors, error rate and p50/p95 duration per UTC day for the last 30 days (today last; days without calls have zeros and null percentiles). ' +
          'Needs `tools:read`. 404 TOOL_NOT_FOUND for an unknown id and for another developer\'s tool.',
        security: [{ oauth2: ['tools:read'] }],
        params: ToolIdParams,
        response: { 200: Envelope(ToolCallStats), ...errorResponses(400, 401, 403, 404) },
      },
    }, async (request) => ok(await developerCalls.stats(auth.principal(request).developerId, request.params.tool_id)));
  });
}
