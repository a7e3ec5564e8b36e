import type { App } from '../http/app-type.js';
import { Envelope, errorResponses, ok } from '../http/envelope.js';
import type { OrgAuth } from '../orgs/auth.js';
import { ORG_BODY_LIMIT, operatorRoute, registerOperatorScope } from '../orgs/operator-scope.js';
import { AgentIdParams } from '../orgs/schema.js';
import type { CallsService } from './calls-service.js';
import { formatTools } from './formats.js';
import type { Invoker } from './invoker.js';
import {
  AgentTools, AgentToolsQuery, DeletedInstallation, Installation, InstallationCreate, InstallationIdParams, InstallationListQuery,
  InstallationPage, InstallationPatch, ToolCallBody, ToolCallListQuery, ToolCallPage, ToolCallResult,
} from './schema.js';
import type { InstallationsService } from './installations-service.js';

/** A call's body: the arguments (at most 100 KB once serialized) and a little more. */
const TOOL_CALL_BODY_LIMIT = 128 * 1024;

/** Operator API: `/api/org/installations`, `/api/org/agents/{id}/tools`, `/api/org/agents/{id}/tool-calls`, `/api/org/tool-calls`. */
export function registerInvocationRoutes(app: App, deps: { orgAuth: OrgAuth; installations: InstallationsService; invoker: Invoker; calls: CallsService }): void {
  const { orgAuth, installations, invoker, calls } = deps;

  registerOperatorScope(app, orgAuth, (r, orgOf) => {
    // ── Installations ──
    r.post('/api/org/installations', {
      bodyLimit: ORG_BODY_LIMIT,
      schema: {
        ...operatorRoute, operationId: 'createInstallation', summary: 'Enable a catalog tool',
        description:
          'Enables a published tool for every agent (no `agentIds`) or the agents listed, under the tool\'s name or an `alias`, with the credentials its `authType` takes ' +
          '(`api_key` → `{apiKey}`, `bearer` → `{token}`, `basic` → `{username, password}`, `hmac` → `{secret}`; none for `none`). Credentials are stored encrypted and never returned: ' +
          'the response says `credentialsSet`. 404 TOOL_NOT_FOUND (not published), 404 AGENT_NOT_FOUND (an agent not in your organization), ' +
          '409 CONFLICT when the tool is already installed or an agent would get two tools with one name (give one an alias).',
        body: InstallationCreate, response: { 201: Envelope(Installation), ...errorResponses(400, 401, 404, 409, 413, 415) },
      },
    }, async (request, reply) => reply.code(201).send(ok(await installations.create(orgOf(request), request.body, orgAuth.auditContext(request)))));

    r.get('/api/org/installations', {
      schema: {
        ...operatorRoute, operationId: 'listInstallations', summary: 'List installations',
        description: 'Your organization\'s installed tools, newest first, paged with `limit` and `cursor`. Never credentials.',
        querystring: InstallationListQuery, response: { 200: Envelope(InstallationPage), ...errorResponses(400, 401) },
      },
    }, async (request) => ok(await installations.list(orgOf(request), request.query)));

    r.get('/api/org/installations/:id', {
      schema: {
        ...operatorRoute, operationId: 'getInstallation', summary: 'Get an installation',
        description: 'One installation: tool, name, agents, whether credentials are set (never their values). 404 NOT_FOUND.',
        params: InstallationIdParams, response: { 200: Envelope(Installation), ...errorResponses(401, 404) },
      },
    }, async (request) => ok(await installations.get(orgOf(request), request.params.id)));

    r.patch('/api/org/installations/:id', {
      bodyLimit: ORG_BODY_LIMIT,
      schema: {
        ...operatorRoute, operationId: 'updateInstallation', summary: 'Change an installation',
        description:
          'Replaces the `agentIds` (null: every agent), the `alias` (null: the tool\'s name) and/or the `credentials` (null: remove them), each only when given. ' +
          '404 NOT_FOUND, 404 AGENT_NOT_FOUND, 409 CONFLICT on a name clash, 404 TOOL_NOT_ENABLED when setting credentials of a tool that is not published.',
        params: InstallationIdParams, body: InstallationPatch, response: { 200: Envelope(Installation), ...errorResponses(400, 401, 404, 409, 413, 415) },
      },
    }, async (request) => ok(await installations.update(orgOf(request), request.params.id, request.body, orgAuth.auditContext(request))));

    r.delete('/api/org/installations/:id', {
      schema: {
        ...operatorRoute, operationId: 'deleteInstallation', summary: 'Remove an installation',
        description: 'The tool stops being callable by your agents at once and its credentials are deleted. Past calls stay in the log. 404 NOT_FOUND.',
        params: InstallationIdParams, response: { 200: Envelope(DeletedInstallation), ...errorResponses(401, 404) },
      },
    }, async (request) => ok(await installations.remove(orgOf(request), request.params.id)));

    // ── An agent's tools ──
    r.get('/api/org/agents/:id/tools', {
      schema: {
        ...operatorRoute, operationId: 'listAgentTools', summary: 'An agent\'s tools as function definitions',
        description:
          'The tools this agent can call now, as function-calling definitions with a JSON Schema of their parameters, named by alias or tool name. ' +
          '`format=openai` (default) gives OpenAI Chat Completions\' `{type:"function", function:{name, description, parameters}}`, ' +
          '`openai-responses` the OpenAI Responses API\'s flat `{type:"function", name, description, parameters, strict}` (`strict` true only when OpenAI\'s strict mode takes the schema as it is, which needs every parameter required), ' +
          '`anthropic` Anthropic Messages\' `{name, description, input_schema}`, `mcp` MCP `tools/list`\'s `{name, description, inputSchema}`: ' +
          'pass `data.tools` to that API unchanged. 400 for any other format. 404 AGENT_NOT_FOUND.',
        params: AgentIdParams, querystring: AgentToolsQuery, response: { 200: Envelope(AgentTools), ...errorResponses(400, 401, 404) },
      },
    }, async (request) => {
      const format = request.query.format ?? 'openai';
      return ok({ format, tools: formatTools(await installations.agentTools(orgOf(request), request.params.id), format) });
    });

    r.post('/api/org/agents/:id/tool-calls', {
      bodyLimit: TOOL_CALL_BODY_LIMIT,
      schema: {
        ...operatorRoute, operationId: 'callAgentTool', summary: 'Run one tool call for an agent',
        description:
          'Calls the tool the agent knows as `name` with `arguments` (an object, or the JSON string OpenAI gives) and answers the endpoint\'s JSON as `result`. ' +
          'Failures carry `callId` (and the endpoint\'s `status` and JSON `body` for TOOL_HTTP_ERROR): 400 INVALID_ARGUMENTS with `details` (no request sent), ' +
          '404 AGENT_NOT_FOUND, 404 TOOL_NOT_ENABLED, 409 TOOL_CREDENTIALS_MISSING, 409 TOOL_CONNECTION_EXPIRED (an oauth2 connection to reconnect), 403 TOOL_BLOCKED, 504 TOOL_TIMEOUT, ' +
          '502 TOOL_UNREACHABLE, TOOL_HTTP_ERROR, TOOL_INVALID_RESPONSE or TOOL_RESPONSE_TOO_LARGE. No automatic retries, but one: an oauth2 endpoint that answers 401 is called again once with a refreshed token. ' +
          'Every answer that carries a `callId` is given only once the call is in the call log; when it cannot be recorded, 503 SERVICE_UNAVAILABLE with `callId` and `Retry-After` ' +
          'instead of the outcome (the endpoint may have been called: the message says whether).',
        params: AgentIdParams, body: ToolCallBody,
        response: { 200: Envelope(ToolCallResult), ...errorResponses(400, 401, 403, 404, 409, 413, 415, 502, 504) },
      },
    }, async (request) => ok(await invoker.invoke({
      orgId: orgOf(request), agentId: request.params.id, name: request.body.name, arguments: request.body.arguments, path: 'operator',
    })));

    // ── The call log ──
    r.get('/api/org/tool-calls', {
      schema: {
        ...operatorRoute, operationId: 'listToolCalls', summary: 'Your agents\' tool calls',
        description:
          'Every call your agents made, newest first, without arguments or results: tool, revision, agent, installation, path, outcome (`OK` or the error code), ' +
          'the endpoint\'s HTTP status, duration and sizes. Filters: `agentId`, `toolId`, `conversationId` (the calls of one agent conversation), `outcome`, `from` (inclusive) and `to` (exclusive); paged with `limit` and `cursor`. ' +
          'A call is in the log before its answer is sent.',
        querystring: ToolCallListQuery, response: { 200: Envelope(ToolCallPage), ...errorResponses(400, 401) },
      },
    }, async (request) => ok(await calls.list(orgOf(request), request.query)));
  });
}
