import { api } from '../../api/client';

/**
 * The consent page of OAuth 2.1 for `/mcp` (issue 34): an MCP host sends the browser to
 * `GET /oauth/authorize?…`, which checks the request and sends it on to `/app/authorize?` + the same query.
 * The page reads the request back from `GET /api/auth/mcp-authorization` and answers it with
 * `POST /api/auth/mcp-authorization` (the session's CSRF token), whose `redirectTo` the tab then follows.
 *
 * The wire shapes are declared here until the routes are in the OpenAPI document; then they become aliases
 * into schema.d.ts in api/types.ts.
 */

/** What the server says about the request (GET /api/auth/mcp-authorization). */
export interface McpAuthorizationRequest {
  /** The client as it describes itself (its metadata document or its registration): never verified. */
  client: { id: string; name: string; logoUri: string | null; verified: false };
  /** The host of the redirect URI: where the tab goes after Approve or Deny. */
  redirectHost: string;
  organization: { id: string; name: string };
  /** The agents this person may manage, one of which the client may use. */
  agents: { id: string; name: string }[];
  /** What the client may do, in words ("List this agent's tools"). */
  permissions: string[];
  /** The MCP URL the token will be for. */
  resource: string;
}

/** The answer to Approve or Deny: where to send the tab (the redirect URI with `code` or `error`, and `state`). */
export interface McpAuthorizationDecision {
  redirectTo: string;
}

/** The parameters of the authorization request, as the authorization endpoint passed them on. */
export const AUTHORIZATION_PARAMS = [
  'response_type',
  'client_id',
  'redirect_uri',
  'code_challenge',
  'code_challenge_method',
  'state',
  'scope',
  'resource',
] as const;

export type AuthorizationParam = (typeof AUTHORIZATION_PARAMS)[number];
export type AuthorizationQuery = Partial<Record<AuthorizationParam, string>>;

export type ParsedRequest = { ok: true; query: AuthorizationQuery } | { ok: false; message: string };

export const MISSING_REQUEST =
  'This page opens when an app, such as Claude or ChatGPT, asks to connect to one of your agents. Start again from the app: it makes the link.';

/**
 * The request in the page's address: the known parameters only, each as written (absent ones left out), so the
 * server checks on approval exactly what it showed. A parameter given twice is refused, as OAuth asks
 * (RFC 6749 §3.1): the page could not tell which one the server checked. Without `client_id` or `redirect_uri`
 * there is no request to show, and nothing is asked of the server.
 */
export function parseAuthorizationQuery(search: string): ParsedRequest {
  const params = new URLSearchParams(search);
  const query: AuthorizationQuery = {};
  for (const name of AUTHORIZATION_PARAMS) {
    const values = params.getAll(name);
    if (values.length > 1) return { ok: false, message: `This link from the app is not valid: it gives ${name} more than once. Start again from the app.` };
    if (values.length === 1) query[name] = values[0]!;
  }
  if (!query.client_id || !query.redirect_uri) return { ok: false, message: MISSING_REQUEST };
  return { ok: true, query };
}

export type Decision = 'approve' | 'deny';

export type DecisionBody = AuthorizationQuery & { agentId?: string; decision: Decision };

/**
 * The body of Approve or Deny: the request's parameters as strings, the agent chosen and the decision.
 * Deny without a chosen agent leaves `agentId` out (nothing is granted, so nothing names an agent).
 */
export function decisionBody(query: AuthorizationQuery, agentId: string | null, decision: Decision): DecisionBody {
  const body: DecisionBody = { decision };
  for (const name of AUTHORIZATION_PARAMS) {
    const value = query[name];
    if (typeof value === 'string') body[name] = value;
  }
  if (agentId) body.agentId = agentId;
  return body;
}

/** The agent chosen before the person chooses: the only one, when there is only one. */
export function initialAgent(agents: readonly { id: string }[]): string | null {
  return agents.length === 1 ? agents[0]!.id : null;
}

/** Schemes that would run script or show content in the console's own page: never followed. */
const UNSAFE_SCHEME = /^(?:(?:java|vb)script|data|blob|file|about|filesystem):$/;

/**
 * Where the tab may go after a decision: an absolute URL that leaves the console (the client's redirect URI:
 * `https:`, a loopback `http:`, or a native app's own scheme if the server allows one), never one that runs in
 * this page. Null otherwise. The server chose it from the registered redirect URIs; this is a second guard.
 */
export function safeRedirect(redirectTo: unknown): string | null {
  if (typeof redirectTo !== 'string' || !redirectTo) return null;
  let url: URL;
  try {
    url = new URL(redirectTo);
  } catch {
    return null;
  }
  if (UNSAFE_SCHEME.test(url.protocol)) return null;
  return url.href;
}

/** The client's logo, when it is an `https:` image (what the console's CSP loads); null otherwise. */
export function safeLogo(logoUri: string | null | undefined): string | null {
  if (!logoUri) return null;
  try {
    const url = new URL(logoUri);
    return url.protocol === 'https:' ? url.href : null;
  } catch {
    return null;
  }
}

/**
 * The host a client's id names, when the id is an `https:` URL (a Client ID Metadata Document): the server
 * fetched the app's description from there, so unlike the name and logo it is not the app's own claim.
 * Null for a registered client's opaque id.
 */
export function clientIdHost(clientId: string): string | null {
  try {
    const url = new URL(clientId);
    return url.protocol === 'https:' && url.hostname ? url.host : null;
  } catch {
    return null;
  }
}

export const oauthKeys = {
  request: (query: AuthorizationQuery) => ['mcp-authorization', query] as const,
};

/** The request's query string as the page has it (every parameter, an empty one too: the client's query helper leaves those out). */
export function requestPath(query: AuthorizationQuery): string {
  const params = new URLSearchParams();
  for (const name of AUTHORIZATION_PARAMS) {
    const value = query[name];
    if (typeof value === 'string') params.set(name, value);
  }
  return `/api/auth/mcp-authorization?${params.toString()}`;
}

export const fetchAuthorizationRequest = (query: AuthorizationQuery, signal?: AbortSignal) =>
  api.get<McpAuthorizationRequest>(requestPath(query), signal ? { signal } : {});

export const sendDecision = (body: DecisionBody) => api.post<McpAuthorizationDecision>('/api/auth/mcp-authorization', body);
