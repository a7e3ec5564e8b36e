import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { App } from '../http/app-type.js';
import { Envelope, errorResponses, ok } from '../http/envelope.js';
import type { DeveloperAuth } from '../oauth/bearer.js';
import { ToolIdParams } from '../tools/schema.js';
import { addJsonBodyParser } from '../http/json-body.js';
import type { DeveloperCallsService } from './developer-calls.js';
import { DeveloperCallListQuery, DeveloperToolCallPage, ToolCallStats, ToolTestBody, ToolTestResult } from './schema.js';
import type { ToolTester } from './tool-test.js';

const TAGS = ['Tools'];

/** Developer API: `POST /api/dev/tools/{tool_id}/test`, `GET …/calls` and `GET …/stats`, behind the scope each route's `security` names. */
export function registerDeveloperCallRoutes(app: App, deps: { developerCalls: DeveloperCallsService; tester: ToolTester; developerAuth: DeveloperAuth }): void {
  const { developerCalls, tester, developerAuth: auth } = deps;

  app.register(async (plugin) => {
    const scope = plugin.withTypeProvider<TypeBoxTypeProvider>();
    scope.removeAllContentTypeParsers();
    addJsonBodyParser(scope, { allowEmpty: true });
    scope.addHook('onRoute', auth.requireDeclaredScope);

    scope.post('/api/dev/tools/:tool_id/test', {
      bodyLimit: 128 * 1024,
      schema: {
        tags: TAGS, operationId: 'testTool', summary: 'Test-call your working copy',
        description:
          'Calls your tool\'s working copy — a draft, or with unpublished changes — with `arguments` and test `credentials` for its authType (never stored), exactly as an agent\'s call ' +
          'would be made (argument check, `_svc_context` with agentId `agt_test` and orgId `org_test`, HMAC signature, address check, limits), and answers the exact request sent ' +
          '(credentials masked) and what came back. An endpoint failure is a 200 with `response.ok: false` and its code. Needs `tools:write`. 400 INVALID_ARGUMENTS (no request sent), ' +
          '400 VALIDATION_ERROR for credentials the authType does not take or lacks, 404 TOOL_NOT_FOUND for an unknown id and for another developer\'s tool. ' +
          'The call is answered once it is in your call list; 503 SERVICE_UNAVAILABLE (with `callId` and `Retry-After`) when it could not be recorded there, the endpoint having been called.',
        security: [{ oauth2: ['tools:write'] }],
        params: ToolIdParams, body: ToolTestBody,
        response: { 200: Envelope(ToolTestResult), ...errorResponses(400, 401, 403, 404, 413, 415) },
      },
    }, async (request) => ok(await tester.test(auth.principal(request).developerId, request.params.tool_id, request.body ?? {})));

    scope.get('/api/dev/tools/:tool_id/calls', {
      schema: {
        tags: TAGS, operationId: 'listToolCallsForDeveloper', summary: 'Calls of one of your tools',
        description:
          'Every call of your tool from every organization, newest first, paged with `limit` and `cursor`: outcome, your endpoint\'s status, duration and sizes, ' +
          'never arguments or results. Filter by `outcome` (`OK` or an error code), `path` (`operator`, `mcp`, `test`) and time (`from` inclusive, `to` exclusive). ' +
          'Each organization appears only as an opaque `orgRef`. Needs `tools:read`. 404 TOOL_NOT_FOUND for an unknown id and for another developer\'s tool.',
        security: [{ oauth2: ['tools:read'] }],
        params: ToolIdParams, querystring: DeveloperCallListQuery,
        response: { 200: Envelope(DeveloperToolCallPage), ...errorResponses(400, 401, 403, 404) },
      },
    }, async (request) => ok(await developerCalls.list(auth.principal(request).developerId, request.params.tool_id, request.query)));

    scope.get('/api/dev/tools/:tool_id/stats', {
      schema: {
        tags: TAGS, operationId: 'getToolCallStats', summary: 'Daily statistics of one of your tools',
        description:
          'Calls, errors, error rate, calls by outcome and p50/p95 duration per UTC day for the last 30 days (today last; days without calls have zeros and null percentiles). ' +
          'Counts agents\' calls only: your own test calls are in the call list, not here. ' +
          'Needs `tools:read`. 404 TOOL_NOT_FOUND for an unknown id and for another developer\'s tool.',
        security: [{ oauth2: ['tools:read'] }],
        params: ToolIdParams,
        response: { 200: Envelope(ToolCallStats), ...errorResponses(400, 401, 403, 404) },
      },
    }, async (request) => ok(await developerCalls.stats(auth.principal(request).developerId, request.params.tool_id)));
  });
}
