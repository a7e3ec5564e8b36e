import { Type } from '@sinclair/typebox';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyReply, FastifyRequest, onRequestAsyncHookHandler } from 'fastify';
import type { App } from '../http/app-type.js';
import type { RouteErrorConfig } from '../http/error-handler.js';
import { invalidToken, missingCredentials } from '../http/auth-errors.js';
import { AppError } from '../http/errors.js';
import { addJsonBodyParser, readJsonBody } from '../http/json-body.js';
import { createRequestSlot } from '../http/request-slot.js';
import { named } from '../http/schema-name.js';
import { bearerToken } from '../oauth/bearer.js';
import type { AgentKeysService, AgentPrincipal } from '../orgs/agent-keys-service.js';
import { readableMessageId } from './message-id.js';
import { agentAuthInfo, type McpAnswer, type McpHandler } from './server.js';

/** A tool call's arguments are at most 100 KB once serialized: the JSON-RPC envelope adds a little. */
export const MCP_BODY_LIMIT = 128 * 1024;

/** Query parameters that look like a credential: a key in a URL ends up in logs, proxies and browser history. */
const CREDENTIAL_PARAMS = /^(key|api[_-]?key|access[_-]?token|token|auth|authorization|agent[_-]?key|bearer)$/i;

const McpMessage = named('McpMessage', Type.Unknown({
  description: 'A JSON-RPC 2.0 message of the Model Context Protocol (Streamable HTTP, stateless): see docs/mcp.md.',
}));
const McpError = named('McpError', Type.Object({
  jsonrpc: Type.Literal('2.0'),
  id: Type.Union([Type.String(), Type.Integer(), Type.Null()], { description: 'The refused request\'s id when its body could be read that far; null before (auth, Origin, size).' }),
  error: Type.Object({
    code: Type.Integer({
      description: '-32700 unreadable body (not JSON, not UTF-8), -32602 a problem inside params (nested too deeply, bad text), -32600 any other problem ' +
        'with the message, -32000 refused (auth, Origin, method, size), -32603 a failure on our side.',
    }),
    message: Type.String(),
    data: Type.Optional(Type.Object({ code: Type.String({ description: 'Our error code (UNAUTHORIZED, INVALID_TOKEN, FORBIDDEN, …).' }), requestId: Type.String() })),
  }),
}, { description: 'An HTTP-level refusal, as a JSON-RPC error.' }));

const mcpRoute = {
  tags: ['MCP'],
  security: [{ agentKey: [] }, { mcpOAuth: ['mcp:tools'] }] as Array<Record<string, string[]>>,
};
const errorConfig: RouteErrorConfig = { errorFormat: 'jsonrpc' };

function credentialInQuery(request: FastifyRequest): boolean {
  const query = request.url.indexOf('?');
  if (query < 0) return false;
  for (const [name, value] of new URLSearchParams(request.url.slice(query + 1))) {
    if (CREDENTIAL_PARAMS.test(name) || value.startsWith('svc_')) return true;
  }
  return false;
}

/** The Fastify request as the web-standard Request the SDK's handler takes; the body travels parsed, beside it. */
function webRequest(request: FastifyRequest, base: string): Request {
  const headers = new Headers();
  const raw = request.raw.rawHeaders;
  for (let i = 0; i < raw.length; i += 2) headers.append(raw[i]!, raw[i + 1]!);
  return new Request(`${base}/mcp`, { method: request.method, headers });
}

/**
 * Reads the body as every route does (json-body.ts: strict UTF-8, the depth limit, JSON). A body
 * refused there still tells which request it was when its id can be read from the text: that id
 * is left as the request's body, where the JSON-RPC error (error-handler.ts) looks for it.
 */
function mcpBodyParser(request: FastifyRequest, body: string | Buffer, done: (error: Error | null, body?: unknown) => void): void {
  const bytes = typeof body === 'string' ? Buffer.from(body) : body;
  try {
    done(null, readJsonBody(bytes));
  } catch (error) {
    const id = readableMessageId(bytes.toString('utf8'));
    if (id !== undefined) request.body = { id };
    done(error as Error);
  }
}

async function send(reply: FastifyReply, answer: McpAnswer): Promise<FastifyReply> {
  reply.code(answer.status).headers(answer.headers);
  if (answer.body === '') {
    reply.removeHeader('content-type');
    return reply.send();
  }
  return reply.send(answer.body);
}

/**
 * `POST /mcp` (and GET/DELETE answering 405): the MCP endpoint, Streamable HTTP, stateless.
 * Every request is authenticated by an agent key (`Authorization: Bearer svc_agt_…`) in an
 * onRequest hook, before the body is read; a present `Origin` must be the service's own.
 */
export function registerMcpRoutes(app: App, deps: {
  mcp: McpHandler;
  agentKeys: Pick<AgentKeysService, 'authenticate'>;
  /** An MCP host's OAuth access token (`svc_mat_…`, mcp-auth/): the agent it was approved for, or undefined. */
  hostTokens: { authenticate(token: string): Promise<AgentPrincipal | undefined> };
  publicUrl: string;
}): void {
  const { mcp, agentKeys, hostTokens, publicUrl } = deps;
  // RFC 9728 §5.1: every 401 names the resource's metadata, where a host finds how to get a token.
  const metadata = `resource_metadata="${publicUrl}/.well-known/oauth-protected-resource/mcp"`;
  const challenge = (error?: 'invalid_token' | 'invalid_request') =>
    `Bearer realm="switchboard", ${metadata}${error ? `, error="${error}"` : ''}, scope="mcp:tools"`;
  const unauthorized = (error: AppError, kind?: 'invalid_token' | 'invalid_request') =>
    new AppError(error.code, error.message, { headers: { 'WWW-Authenticate': challenge(kind) } });
  const allowedOrigin = new URL(publicUrl).origin;
  const slot = createRequestSlot<{ token: string; principal: AgentPrincipal }>('MCP agent');

  /** Origin first (a browser on another site learns nothing), then the key: never in the URL, always a bearer agent key. */
  const guard: onRequestAsyncHookHandler = async (request) => {
    const origin = request.headers.origin;
    if (origin !== undefined && origin !== allowedOrigin) {
      throw new AppError('FORBIDDEN', `Requests from the origin ${JSON.stringify(origin)} are not allowed. The MCP endpoint answers browsers only on ${allowedOrigin}; other clients send no Origin header.`);
    }
    if (credentialInQuery(request)) {
      throw invalidToken(
        'Keys are never accepted in the URL: send the agent key as Authorization: Bearer svc_agt_…, and remove it from the query string (it may be in logs now: delete that key and create another).',
        { error: 'invalid_request' },
      );
    }
    if (request.headers.authorization === undefined) {
      throw unauthorized(missingCredentials('The MCP endpoint needs authorization: an MCP host signs in with OAuth (docs/mcp.md), a script sends an agent key as Authorization: Bearer svc_agt_… (POST /api/org/agents/{id}/keys).'));
    }
    const token = bearerToken(request);
    if (token === undefined) {
      throw unauthorized(invalidToken('Send the token or agent key as Authorization: Bearer ….'), 'invalid_token');
    }
    if (token.startsWith('svc_mat_')) {
      const principal = await hostTokens.authenticate(token);
      if (!principal) throw unauthorized(invalidToken('The access token is not valid: it expired or was revoked. Authorize again.'), 'invalid_token');
      slot.set(request, { token, principal });
      return;
    }
    try {
      slot.set(request, { token, principal: await agentKeys.authenticate(token) });
    } catch (error) {
      if (error instanceof AppError && error.status === 401) throw unauthorized(error, 'invalid_token');
      throw error;
    }
  };

  /** Streamable HTTP's answer to a method a stateless server does not offer, in the route's JSON-RPC error shape. */
  const notAllowed = (what: string) => async (): Promise<never> => {
    throw new AppError('METHOD_NOT_ALLOWED', `Method not allowed: ${what}`, { headers: { Allow: 'POST' } });
  };

  app.register(async (plugin) => {
    const scope = plugin.withTypeProvider<TypeBoxTypeProvider>();
    scope.removeAllContentTypeParsers();
    addJsonBodyParser(scope, {}, mcpBodyParser);

    scope.post('/mcp', {
      bodyLimit: MCP_BODY_LIMIT,
      onRequest: guard,
      config: errorConfig,
      schema: {
        ...mcpRoute, operationId: 'mcpPost', summary: 'MCP endpoint (Streamable HTTP)',
        description:
          'The Model Context Protocol for one agent, stateless Streamable HTTP: revision 2026-07-28 (`server/discover`, per-request `_meta`) and the 2025 revisions ' +
          '(2025-11-25 down to 2024-11-05, `initialize` without a session). `tools/list` gives the agent\'s tools with `inputSchema`; `tools/call` runs one call and answers ' +
          'the endpoint\'s JSON as `structuredContent` and as a text block, or `isError: true` with the code and message. Auth: `Authorization: Bearer svc_agt_…` only ' +
          '(401 with `WWW-Authenticate`; a key in the query string is refused); a present `Origin` other than the service\'s own is 403. See docs/mcp.md.',
        body: McpMessage,
        response: { 200: McpMessage, 202: McpMessage, 400: McpError, 401: McpError, 403: McpError, 404: McpError, 406: McpError, 413: McpError, 415: McpError, 500: McpError },
      },
    }, async (request, reply) => {
      const { token, principal } = slot.get(request);
      const post = { headers: request.headers, body: request.body, toRequest: () => webRequest(request, publicUrl) };
      return send(reply, await mcp.post(post, agentAuthInfo(token, principal)));
    });

    scope.get('/mcp', {
      config: errorConfig,
      schema: {
        // Not in the API reference (it has no success to document); docs/mcp.md describes it.
        hide: true,
        ...mcpRoute, operationId: 'mcpGet', summary: 'MCP server stream (not offered)',
        description: 'This server is stateless and offers no server-initiated SSE stream: GET answers 405 with `Allow: POST`, as Streamable HTTP says for such a server.',
        response: { 405: McpError },
      },
    }, notAllowed('this MCP server is stateless and offers no SSE stream; send requests with POST.'));

    scope.delete('/mcp', {
      config: errorConfig,
      schema: {
        hide: true,
        ...mcpRoute, operationId: 'mcpDelete', summary: 'End an MCP session (none exist)',
        description: 'This server keeps no sessions, so there is none to end: DELETE answers 405 with `Allow: POST`.',
        response: { 405: McpError },
      },
    }, notAllowed('this MCP server keeps no sessions.'));
  });
}

