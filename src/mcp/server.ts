import type { IncomingHttpHeaders } from 'node:http';
import {
  createMcpHandler, isLegacyRequest, ProtocolError, ProtocolErrorCode, SERVER_INFO_META_KEY, Server, WebStandardStreamableHTTPServerTransport,
  type AuthInfo, type CallToolResult, type ListToolsResult, type McpHandlerRequestOptions,
} from '@modelcontextprotocol/server';
import type { FastifyBaseLogger } from 'fastify';
import { AppError } from '../http/errors.js';
import { databaseUnavailable, warnUnavailable } from '../http/database-unavailable.js';
import type { AgentPrincipal } from '../orgs/agent-keys-service.js';
import { formatTools } from '../invocation/formats.js';
import type { Invoker } from '../invocation/invoker.js';
import type { InstallationsService } from '../invocation/installations-service.js';
import { createDirectCallReader, type DirectToolCall } from './direct-call.js';
import { cleanProtocolErrors, INTERNAL_MESSAGE } from './protocol-errors.js';

/** What a tool failure tells the model: the code, the message, and whatever else lets it correct the call. */
export interface ToolFailure {
  code: string;
  error: string;
  details?: unknown;
  [key: string]: unknown;
}

/**
 * Failures that belong to the tool call and so come back as a result with `isError: true`
 * (the model reads them and can correct itself). Anything else is a protocol failure.
 */
const TOOL_RESULT_CODES = new Set([
  'INVALID_ARGUMENTS', 'TOOL_NOT_ENABLED', 'TOOL_CREDENTIALS_MISSING', 'TOOL_CONNECTION_EXPIRED', 'TOOL_BLOCKED', 'TOOL_TIMEOUT',
  'TOOL_UNREACHABLE', 'TOOL_HTTP_ERROR', 'TOOL_INVALID_RESPONSE', 'TOOL_RESPONSE_TOO_LARGE',
]);

function isJsonObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/** A JSON object is `structuredContent` as is; any other JSON value is wrapped as `{result}` (the field must be an object). */
function structured(value: unknown): Record<string, unknown> {
  return isJsonObject(value) ? value : { result: value };
}

const JSON_HEADERS: Readonly<Record<string, string>> = { 'content-type': 'application/json' };

export function toolResult(result: unknown): CallToolResult {
  return { content: [{ type: 'text', text: JSON.stringify(result) }], structuredContent: structured(result) };
}

export function toolFailure(error: AppError): CallToolResult {
  const failure: ToolFailure = {
    code: error.code,
    error: error.message,
    ...(error.details !== undefined ? { details: error.details } : {}),
    ...error.extra,
  };
  // In the order the SDK's result schema writes the fields, so both paths answer the same bytes.
  return { content: [{ type: 'text', text: JSON.stringify(failure) }], structuredContent: failure, isError: true };
}

export interface McpServerDeps {
  installations: Pick<InstallationsService, 'agentTools'>;
  invoker: Pick<Invoker, 'invoke'>;
  version: string;
  log: Pick<FastifyBaseLogger, 'error' | 'warn'>;
}

/**
 * A failure that is not the tool call's: our own refusals (an agent key whose agent is gone)
 * keep their words; a call whose log row could not be written (503, invocation/call-log.ts)
 * keeps its words and `callId` as an internal error, already logged where it happened;
 * anything unexpected is logged and answered in general terms, never with an internal message.
 */
function protocolFailure(error: unknown, log: McpServerDeps['log']): ProtocolError {
  if (error instanceof AppError && error.status < 500) return new ProtocolError(ProtocolErrorCode.InvalidRequest, error.message, { code: error.code });
  if (error instanceof AppError && error.code === 'SERVICE_UNAVAILABLE') {
    return new ProtocolError(ProtocolErrorCode.InternalError, error.message, { code: error.code, ...error.extra });
  }
  // The database gone (tools/list, an uncached tools/call): an outage, said so, with no stack trace logged.
  const unavailable = databaseUnavailable(error);
  if (unavailable) {
    warnUnavailable(log, unavailable, error);
    return new ProtocolError(ProtocolErrorCode.InternalError, unavailable.message, { code: unavailable.code });
  }
  log.error({ err: error }, 'MCP request failed');
  return new ProtocolError(ProtocolErrorCode.InternalError, INTERNAL_MESSAGE);
}

const PRINCIPAL = 'switchboard/agent';

/**
 * Closes a per-request transport and its server once the exchange is answered. Closing makes
 * the SDK build a "Connection closed" error for whatever is still pending (nothing is, in a
 * stateless exchange whose answer was sent), and capturing that error's stack through the
 * request's async frames was about 30 µs of every MCP call (profiled under the tools bench).
 * The transport's close runs synchronously up to that error, so the stack limit is lifted only
 * for that synchronous stretch: no other code runs meanwhile, and every other error keeps its stack.
 */
function closeQuietly(transport: { close(): Promise<void> }, server: { close(): Promise<void> }): void {
  const limit = Error.stackTraceLimit;
  Error.stackTraceLimit = 0;
  try {
    void transport.close().catch(() => undefined);
  } finally {
    Error.stackTraceLimit = limit;
  }
  void server.close().catch(() => undefined);
}

/** The agent an MCP request speaks for travels to the per-request server as the SDK's `authInfo`. */
export function agentAuthInfo(token: string, principal: AgentPrincipal): AuthInfo {
  return { token, clientId: principal.agentId, scopes: [], extra: { [PRINCIPAL]: principal } };
}

function principalOf(authInfo: AuthInfo | undefined): AgentPrincipal {
  const principal = authInfo?.extra?.[PRINCIPAL] as AgentPrincipal | undefined;
  if (!principal) throw new Error('MCP request without an authenticated agent');
  return principal;
}

/** An MCP POST as the HTTP route has it: headers, the parsed body, and the web Request the SDK takes (built only when needed). */
export interface McpPost {
  headers: IncomingHttpHeaders;
  body: unknown;
  toRequest(): Request;
}

/** The HTTP answer to an MCP POST; an empty body means none. */
export interface McpAnswer {
  status: number;
  headers: Record<string, string>;
  body: string;
}

/** The SDK's web Response as an answer (its length is Fastify's to set). */
export async function answerOf(response: Response): Promise<McpAnswer> {
  const headers: Record<string, string> = {};
  response.headers.forEach((value, name) => {
    if (name !== 'content-length') headers[name] = value;
  });
  return { status: response.status, headers, body: await response.text() };
}

/**
 * The MCP server: `tools/list` and `tools/call` for one agent. A low-level `Server` is built
 * per request (two handlers, no schema compilation: cheap), bound to the agent the request's
 * key speaks for, so no state outlives the request and any node answers any request. A plain
 * `tools/call`, nearly all of an agent's traffic, is answered directly (direct-call.ts).
 */
export function createMcpServerHandler(deps: McpServerDeps) {
  const { installations, invoker, version, log } = deps;
  const serverInfo = { name: 'switchboard', version };
  const directToolCall = createDirectCallReader();

  /** `tools/call` for one agent: the endpoint's JSON, or the call's failure as a result; a ProtocolError for a failure that is not the call's. */
  async function invokeTool(principal: AgentPrincipal, params: { name: string; arguments?: Record<string, unknown> | undefined }): Promise<{ value: unknown } | { failure: CallToolResult }> {
    try {
      const outcome = await invoker.invoke({
        orgId: principal.orgId, agentId: principal.agentId, name: params.name, arguments: params.arguments ?? {}, path: 'mcp',
      });
      return { value: outcome.result };
    } catch (error) {
      if (error instanceof AppError && TOOL_RESULT_CODES.has(error.code)) return { failure: toolFailure(error) };
      throw protocolFailure(error, log);
    }
  }

  /** `tools/call` as the SDK's handler: the result, or a ProtocolError for a failure that is not the call's. */
  async function callTool(principal: AgentPrincipal, params: { name: string; arguments?: Record<string, unknown> }): Promise<CallToolResult> {
    const outcome = await invokeTool(principal, params);
    return 'value' in outcome ? toolResult(outcome.value) : outcome.failure;
  }

  /** What a 2026-07-28 result adds after its fields, as the SDK writes it. */
  const modernResultTail = `,"resultType":"complete","_meta":${JSON.stringify({ [SERVER_INFO_META_KEY]: serverInfo })}`;

  /**
   * A plain tools/call answered as the SDK answers it: one JSON body, 200 even for a JSON-RPC error
   * (it is in-band). A result is written as text around the endpoint's JSON, serialized once: its
   * object form (`structuredContent`) is that same text, so the answer costs one serialization of
   * the result where building the message object and serializing it cost two (the differential
   * test holds the bytes to the SDK's).
   */
  async function answerDirectly(call: DirectToolCall, principal: AgentPrincipal): Promise<McpAnswer> {
    let body: string;
    try {
      const outcome = await invokeTool(principal, call);
      if ('value' in outcome) {
        const text = JSON.stringify(outcome.value);
        const structuredText = isJsonObject(outcome.value) ? text : `{"result":${text}}`;
        body = `{"result":{"content":[{"type":"text","text":${JSON.stringify(text)}}],"structuredContent":${structuredText}${call.modern ? modernResultTail : ''}},` +
          `"jsonrpc":"2.0","id":${JSON.stringify(call.id)}}`;
      } else {
        const result = outcome.failure;
        body = JSON.stringify({ result: call.modern ? { ...result, resultType: 'complete', _meta: { [SERVER_INFO_META_KEY]: serverInfo } } : result, jsonrpc: '2.0', id: call.id });
      }
    } catch (error) {
      const failure = error as ProtocolError;
      body = JSON.stringify({ jsonrpc: '2.0', id: call.id, error: { code: failure.code, message: failure.message, ...(failure.data !== undefined ? { data: failure.data } : {}) } });
    }
    return { status: 200, headers: JSON_HEADERS, body };
  }

  function buildServer(principal: AgentPrincipal): Server {
    const server = new Server(
      serverInfo,
      {
        capabilities: { tools: { listChanged: false } },
        instructions: 'Tools enabled for this agent in Switchboard. A failed call answers isError with a code and a message that says what to change.',
      },
    );
    server.setRequestHandler('tools/list', async () => {
      const tools = await installations.agentTools(principal.orgId, principal.agentId).catch((error: unknown) => {
        throw protocolFailure(error, log);
      });
      // formatTools' mcp shape is MCP's Tool: {name, description, inputSchema} (a JSON Schema object), checked by the compiler.
      return { tools: formatTools(tools, 'mcp') satisfies ListToolsResult['tools'] };
    });
    server.setRequestHandler('tools/call', (request) => callTool(principal, request.params));
    return server;
  }

  // Modern (2026-07-28) requests: the SDK's entry, a per-request transport and instance.
  const modern = createMcpHandler((ctx) => buildServer(principalOf(ctx.authInfo)), { legacy: 'reject' });

  // 2025-era requests (initialize, then tools/* without a session): a fresh instance and a
  // stateless transport per request, as the SDK's own stateless fallback does, but answering
  // with a JSON body instead of a one-event SSE stream (cheaper for both sides; the spec allows either).
  async function legacy(request: Request, options: McpHandlerRequestOptions): Promise<Response> {
    const server = buildServer(principalOf(options.authInfo));
    const transport = new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
    await server.connect(transport);
    try {
      return await transport.handleRequest(request, options);
    } finally {
      closeQuietly(transport, server);
    }
  }

  /** Every message through the SDK: the reference answer (the differential test compares `post` with it). */
  async function fetch(request: Request, options: McpHandlerRequestOptions): Promise<Response> {
    return (await isLegacyRequest(request, options.parsedBody)) ? legacy(request, options) : modern.fetch(request, options);
  }

  return {
    fetch,
    /** An MCP POST: a plain tools/call answered directly, anything else by the SDK (its errors in our words: protocol-errors.ts). */
    async post(post: McpPost, authInfo: AuthInfo): Promise<McpAnswer> {
      const call = directToolCall(post.headers, post.body);
      if (call) return answerDirectly(call, principalOf(authInfo));
      const answer = await answerOf(await fetch(post.toRequest(), { authInfo, parsedBody: post.body }));
      return { ...answer, body: cleanProtocolErrors(answer.body, log) };
    },
    close: () => modern.close(),
  };
}

export type McpHandler = ReturnType<typeof createMcpServerHandler>;
