import { ConnectionStatus } from '../connections/schema.js';
import { Type, type Static } from '@sinclair/typebox';
import { ChangesBody } from '../http/changes.js';
import { ListQuery, Page } from '../http/envelope.js';
import { IdParam } from '../http/path-ids.js';
import { named } from '../http/schema-name.js';
import { AUTH_TYPES, TOOL_NAME_PATTERN } from '../tools/definition.js';
import { StringEnum } from '../tools/schema.js';
import { installationNotFound } from './errors.js';

/** Wire schemas of installations, agent tools and tool calls (Operator API). */

export const InstallationIdParams = Type.Object({ id: IdParam('inst', installationNotFound, 'The installation id (`inst_…`).') });

const Alias = Type.String({
  pattern: TOOL_NAME_PATTERN,
  description: 'The name agents call the tool by, instead of the tool\'s own: a letter, then letters, digits, `_` or `-`; at most 64 characters.',
  examples: ['crm_lookup'],
});
const AgentIds = Type.Array(Type.String({ maxLength: 64 }), {
  maxItems: 500,
  uniqueItems: true,
  description: 'The agents (`agt_…`) that may call the tool. Omit (or null in a PATCH) for every agent of the organization, present and future.',
});

export const Credentials = named('InstallationCredentials', Type.Object(
  {
    apiKey: Type.Optional(Type.String({ minLength: 1, maxLength: 4096, description: 'For `authType: api_key`.' })),
    token: Type.Optional(Type.String({ minLength: 1, maxLength: 4096, description: 'For `authType: bearer`.' })),
    username: Type.Optional(Type.String({ minLength: 1, maxLength: 1024, description: 'For `authType: basic`.' })),
    password: Type.Optional(Type.String({ minLength: 1, maxLength: 4096, description: 'For `authType: basic`.' })),
    secret: Type.Optional(Type.String({ minLength: 1, maxLength: 4096, description: 'For `authType: hmac`: the shared key calls are signed with.' })),
  },
  {
    additionalProperties: false,
    description: 'Exactly the fields the tool\'s `authType` takes: `api_key` → `{apiKey}`, `bearer` → `{token}`, `basic` → `{username, password}`, `hmac` → `{secret}`; none for `none`. Stored encrypted; never returned.',
  },
));
export type Credentials = Static<typeof Credentials>;

export const InstallationCreate = named('InstallationCreate', Type.Object(
  {
    toolId: Type.String({ maxLength: 64, description: 'A published tool from the catalog (`tool_…`).' }),
    agentIds: Type.Optional(AgentIds),
    alias: Type.Optional(Alias),
    credentials: Type.Optional(Credentials),
  },
  { additionalProperties: false },
));
export type InstallationCreate = Static<typeof InstallationCreate>;

export const InstallationPatch = named('InstallationPatch', ChangesBody({
  agentIds: Type.Union([AgentIds, Type.Null()], { description: 'Replaces the agents; null for every agent.' }),
  alias: Type.Union([Alias, Type.Null()], { description: 'Replaces the alias; null for the tool\'s own name.' }),
  credentials: Type.Union([Credentials, Type.Null()], { description: 'Replaces every stored credential; null removes them.' }),
}));
export type InstallationPatch = Static<typeof InstallationPatch>;

export const Installation = named('Installation', Type.Object({
  id: Type.String({ description: '`inst_…`' }),
  toolId: Type.String(),
  toolName: Type.Union([Type.String(), Type.Null()], { description: 'The live revision\'s name; null while the tool is not published.' }),
  name: Type.Union([Type.String(), Type.Null()], { description: 'What agents call it: the alias, or the tool\'s name; null while the tool is not published.' }),
  alias: Type.Union([Type.String(), Type.Null()]),
  enabled: Type.Boolean({ description: 'Whether agents can call it now: false while the tool is unpublished or deleted.' }),
  allAgents: Type.Boolean({ description: 'True: every agent of the organization; false: the agents in `agentIds`.' }),
  agentIds: Type.Array(Type.String(), { description: 'The agents that may call it, when `allAgents` is false; empty otherwise.' }),
  authType: Type.Union([StringEnum(AUTH_TYPES), Type.Null()], { description: 'The live revision\'s authType; null while the tool is not published.' }),
  credentialsSet: Type.Boolean({ description: 'Whether every credential the tool\'s authType needs is stored (false for `none`, which needs none; for `oauth2`, whether an account is connected). The values are never returned.' }),
  connection: Type.Union([ConnectionStatus, Type.Null()], { description: 'For `authType: oauth2`: the connected account (POST /api/org/installations/{id}/connection connects one); null for other auth types.' }),
  createdAt: Type.String({ format: 'date-time' }),
  updatedAt: Type.String({ format: 'date-time' }),
}));
export type Installation = Static<typeof Installation>;
export const InstallationPage = Page(Installation);
export const DeletedInstallation = named('DeletedInstallation', Type.Object({ id: Type.String(), deleted: Type.Literal(true) }));

export const InstallationListQuery = Type.Object({ ...ListQuery }, { additionalProperties: false });

// ── Agent tools ──

// The formats are the shared export's (web/tools/export.ts), so the query and the shapes cannot drift apart.
import { TOOL_FORMATS } from '../../web/tools/export.js';
export { TOOL_FORMATS };
export type { ToolFormat } from '../../web/tools/export.js';

export const AgentToolsQuery = Type.Object(
  { format: Type.Optional(StringEnum(TOOL_FORMATS, {
    default: 'openai',
    description: 'The shape of each definition, the one that API takes verbatim: `openai` for OpenAI Chat Completions, `openai-responses` for the OpenAI Responses API, `anthropic` for Anthropic Messages, `mcp` for MCP `tools/list`.',
  })) },
  { additionalProperties: false },
);

export const ParametersSchema = named('ToolParametersSchema', Type.Object({
  type: Type.Literal('object'),
  properties: Type.Record(Type.String(), Type.Unknown()),
  required: Type.Array(Type.String()),
  additionalProperties: Type.Boolean(),
}, { description: 'JSON Schema of the arguments, built from the tool\'s parameters.' }));

export const OpenAiTool = named('OpenAiToolDefinition', Type.Object({
  type: Type.Literal('function'),
  function: Type.Object({ name: Type.String(), description: Type.String(), parameters: ParametersSchema }),
}, { description: 'OpenAI Chat Completions API `tools[]` item (`format=openai`).' }));
export const OpenAiResponsesTool = named('OpenAiResponsesToolDefinition', Type.Object({
  type: Type.Literal('function'), name: Type.String(), description: Type.String(), parameters: ParametersSchema,
  strict: Type.Boolean({ description: 'True only when OpenAI\'s strict mode takes the schema as it is: every parameter required, every array\'s items typed, no object parameter. Otherwise false, since strict mode would refuse the schema.' }),
}, { description: 'OpenAI Responses API `tools[]` item, a function tool (`format=openai-responses`).' }));
export const AnthropicTool = named('AnthropicToolDefinition', Type.Object({
  name: Type.String(), description: Type.String(), input_schema: ParametersSchema,
}, { description: 'Anthropic Messages API `tools[]` item (`format=anthropic`).' }));
export const McpTool = named('McpToolDefinition', Type.Object({
  name: Type.String(), description: Type.String(), inputSchema: ParametersSchema,
}, { description: 'MCP `tools/list` result item (`format=mcp`).' }));

export const AgentTools = named('AgentTools', Type.Object({
  format: StringEnum(TOOL_FORMATS),
  tools: Type.Array(Type.Union([OpenAiTool, OpenAiResponsesTool, AnthropicTool, McpTool]), { description: 'Pass this array to the model API unchanged.' }),
}));
export type AgentTools = Static<typeof AgentTools>;

// ── Tool calls ──

export const ToolCallBody = named('ToolCallRequest', Type.Object(
  {
    name: Type.String({ minLength: 1, maxLength: 64, description: 'The tool\'s name as listed for the agent (the alias, or the tool\'s name).' }),
    arguments: Type.Optional(Type.Unknown({ description: 'An object keyed by parameter name, or that object as a JSON string (what OpenAI\'s `function.arguments` holds). Omit for a tool without parameters.' })),
  },
  { additionalProperties: false },
));
export type ToolCallBody = Static<typeof ToolCallBody>;

export const ToolCallResult = named('ToolCallResult', Type.Object({
  callId: Type.String({ description: '`call_…`: also in the endpoint\'s `_svc_context` and the call log.' }),
  status: Type.Integer({ description: 'The endpoint\'s HTTP status.' }),
  durationMs: Type.Integer(),
  result: Type.Unknown({ description: 'The endpoint\'s JSON, unchanged.' }),
}));
export type ToolCallResult = Static<typeof ToolCallResult>;

export const CALL_PATHS = ['operator', 'mcp', 'test', 'conversation'] as const;
export type CallPath = (typeof CALL_PATHS)[number];

export const ToolCallLogEntry = named('ToolCall', Type.Object({
  id: Type.String({ description: '`call_…`' }),
  agentId: Type.String(),
  toolId: Type.String(),
  revisionId: Type.String(),
  installationId: Type.String(),
  conversationId: Type.Union([Type.String(), Type.Null()], { description: 'The conversation whose model asked for the call (`conv_…`, path `conversation`); null for every other call.' }),
  path: StringEnum(CALL_PATHS, { description: 'How the call came in: the Operator API, MCP, a test, or an agent conversation (`conversation`: the model asked for it).' }),
  outcome: Type.String({ description: '`OK`, or the error code the caller received (`TOOL_TIMEOUT`, `INVALID_ARGUMENTS`, …).' }),
  httpStatus: Type.Union([Type.Integer(), Type.Null()], { description: 'The endpoint\'s HTTP status; null when no response came.' }),
  durationMs: Type.Integer(),
  requestBytes: Type.Integer(),
  responseBytes: Type.Integer(),
  createdAt: Type.String({ format: 'date-time' }),
}));
export type ToolCallLogEntry = Static<typeof ToolCallLogEntry>;
export const ToolCallPage = Page(ToolCallLogEntry);

/** Filters both call logs take: the operator's and the developer's. */
const callLogFilters = {
  outcome: Type.Optional(Type.String({ pattern: '^[A-Z_]{2,40}$', description: '`OK` or an error code.' })),
  from: Type.Optional(Type.String({ format: 'date-time', description: 'Calls at or after this time.' })),
  to: Type.Optional(Type.String({ format: 'date-time', description: 'Calls before this time.' })),
};

export const ToolCallListQuery = Type.Object(
  {
    agentId: Type.Optional(Type.String({ maxLength: 64, description: 'Only this agent\'s calls.' })),
    toolId: Type.Optional(Type.String({ maxLength: 64, description: 'Only calls of this tool.' })),
    conversationId: Type.Optional(Type.String({ maxLength: 64, description: 'Only the calls one conversation\'s model asked for (`conv_…`).' })),
    ...callLogFilters,
    ...ListQuery,
  },
  { additionalProperties: false },
);
export type ToolCallListQuery = Static<typeof ToolCallListQuery>;

// ── Developer API: a tool's calls across organizations ──

export const DeveloperToolCall = named('DeveloperToolCall', Type.Object({
  id: Type.String({ description: '`call_…`: also in the `_svc_context.callId` your endpoint received.' }),
  orgRef: Type.Union([Type.String(), Type.Null()], {
    description: '`orgref_…`: the calling organization, as an opaque reference (the same for all its calls; it changes when the service rotates its secrets key). Null for your own test calls (`path: "test"`), which belong to no organization.',
  }),
  revisionId: Type.Union([Type.String(), Type.Null()], { description: 'The published revision called; null for a test call, which runs the working copy.' }),
  path: StringEnum(CALL_PATHS, { description: 'How the call came in: the Operator API, MCP, an agent conversation, or your own test (`POST /api/dev/tools/{tool_id}/test`).' }),
  outcome: Type.String({ description: '`OK`, or the error code the caller received.' }),
  httpStatus: Type.Union([Type.Integer(), Type.Null()], { description: 'Your endpoint\'s HTTP status; null when no response came.' }),
  durationMs: Type.Integer(),
  requestBytes: Type.Integer(),
  responseBytes: Type.Integer(),
  createdAt: Type.String({ format: 'date-time' }),
}));
export type DeveloperToolCall = Static<typeof DeveloperToolCall>;
export const DeveloperToolCallPage = Page(DeveloperToolCall);

export const DeveloperCallListQuery = Type.Object(
  {
    ...callLogFilters,
    path: Type.Optional(StringEnum(CALL_PATHS, { description: 'Only calls that came in this way: `operator`, `mcp`, `conversation`, or your own tests (`test`).' })),
    ...ListQuery,
  },
  { additionalProperties: false },
);
export type DeveloperCallListQuery = Static<typeof DeveloperCallListQuery>;

export const ToolCallDay = named('ToolCallDay', Type.Object({
  date: Type.String({ format: 'date', description: 'A UTC day.' }),
  calls: Type.Integer(),
  errors: Type.Integer({ description: 'Calls whose outcome was not OK.' }),
  errorRate: Type.Number({ description: 'errors / calls; 0 on a day without calls.' }),
  p50Ms: Type.Union([Type.Integer(), Type.Null()], { description: 'Median duration; null on a day without calls.' }),
  p95Ms: Type.Union([Type.Integer(), Type.Null()], { description: '95th percentile duration (nearest rank); null on a day without calls.' }),
  outcomes: Type.Record(Type.String(), Type.Integer(), {
    description: 'Calls by outcome: `OK` and each error code that day (`{"OK": 40, "TOOL_TIMEOUT": 2}`); outcomes without calls are left out, so `{}` on a day without calls.',
  }),
}));
export type ToolCallDay = Static<typeof ToolCallDay>;

export const ToolCallStats = named('ToolCallStats', Type.Object({
  toolId: Type.String(),
  days: Type.Array(ToolCallDay, { description: 'The last 30 UTC days, oldest first, today last.' }),
}));

// ── Developer API: testing a working copy ──

export const ToolTestBody = named('ToolTestRequest', Type.Object(
  {
    arguments: Type.Optional(Type.Unknown({ description: 'An object keyed by parameter name (or that object as a JSON string), checked against the working copy\'s parameters.' })),
    credentials: Type.Optional(Credentials),
  },
  { additionalProperties: false },
));

export const ToolTestResult = named('ToolTestResult', Type.Object({
  callId: Type.String({ description: 'The `call_…` id in the body\'s `_svc_context` and of the test call in your calls (`GET /api/dev/tools/{tool_id}/calls`, path `test`); never in a business\'s call log.' }),
  request: Type.Object({
    method: Type.String(),
    url: Type.String(),
    headers: Type.Record(Type.String(), Type.String(), { description: 'Exactly the headers sent, credentials masked (`Authorization: Bearer ********`); the HMAC signature and timestamp are shown.' }),
    body: Type.String({ description: 'The exact body bytes sent (UTF-8 JSON), which the HMAC signature covers.' }),
  }),
  response: Type.Object({
    ok: Type.Boolean({ description: 'True when the endpoint answered 2xx with JSON.' }),
    status: Type.Optional(Type.Integer({ description: 'The endpoint\'s HTTP status, when it answered.' })),
    durationMs: Type.Integer(),
    result: Type.Optional(Type.Unknown({ description: 'The endpoint\'s JSON, on success.' })),
    code: Type.Optional(Type.String({ description: 'On failure: the outcome code an agent would get (TOOL_TIMEOUT, TOOL_HTTP_ERROR, …).' })),
    message: Type.Optional(Type.String()),
    body: Type.Optional(Type.Unknown({ description: 'The endpoint\'s JSON error body, for TOOL_HTTP_ERROR.' })),
  }),
}));
export type ToolTestResult = Static<typeof ToolTestResult>;
