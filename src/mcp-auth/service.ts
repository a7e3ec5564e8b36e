import { createHash } from 'node:crypto';
import type { ExpiryPurge } from '../db/expiry-purger.js';
import type { McpGrantsTable, McpTokensTable } from '../db/tables.js';
import { AppError } from '../http/errors.js';
import type { Clock } from '../lib/clock.js';
import { hashSecret, safeEqual } from '../lib/hashing.js';
import { newId, newSecret } from '../lib/ids.js';
import { redirectUriMatches, redirectUriProblem, type McpClient, type McpClients } from './clients.js';
import type { McpAuthRepo } from './repo.js';

/**
 * Switchboard as the OAuth 2.1 authorization server of its own `/mcp` (MCP authorization, 2025-11-25): an MCP host
 * asks for access to one agent; a person of the organization approves it in the console; the host gets an access
 * token (an hour) bound to the organization, the agent, the client and the resource, and a refresh token rotated on
 * every use. Codes and tokens are stored only as SHA-256 hashes. A replayed code or refresh token revokes the whole
 * grant (OAuth 2.1 §4.1.2, §4.3.1): whoever holds the other copy loses it too.
 */

export const MCP_SCOPE = 'mcp:tools';
export const ACCESS_TOKEN_SECONDS = 3600;
export const REFRESH_TOKEN_SECONDS = 30 * 24 * 3600;
const CODE_SECONDS = 120;
/** A never-used registration is purged after this (RFC 7591 leaves it to the server; hosts register again). */
const UNUSED_CLIENT_MS = 24 * 3600 * 1000;
/** `last_used_at` is written at most this often per grant. */
const TOUCH_MS = 60_000;

/** The parameters of an authorization request, as they came (the consent page sends them back with the decision). */
export interface AuthorizationParams {
  response_type?: string | undefined;
  client_id?: string | undefined;
  redirect_uri?: string | undefined;
  code_challenge?: string | undefined;
  code_challenge_method?: string | undefined;
  state?: string | undefined;
  scope?: string | undefined;
  resource?: string | undefined;
}

/** An authorization request checked: the client and where to send the answer. */
export interface CheckedRequest {
  client: McpClient;
  redirectUri: string;
  state: string | undefined;
  codeChallenge: string;
}

/** An error to send back to the client's redirect URI (RFC 6749 §4.1.2.1), once the client and redirect URI are trusted. */
export class RedirectableError extends Error {
  constructor(readonly error: string, readonly description: string, readonly redirectTo: string) {
    super(description);
  }
}

export interface McpPrincipal {
  orgId: string;
  agentId: string;
  grantId: string;
  clientName: string;
}

export interface TokenAnswer {
  access_token: string;
  token_type: 'Bearer';
  expires_in: number;
  refresh_token: string;
  scope: string;
}

const sha256base64url = (value: string) => createHash('sha256').update(value).digest('base64url');

export interface McpAuthServiceDeps {
  repo: McpAuthRepo;
  clients: Pick<McpClients, 'resolve'>;
  clock: Clock;
  /** The issuer (PUBLIC_URL) and the one resource it grants: `{PUBLIC_URL}/mcp`. */
  issuer: string;
  resource: string;
}

export function createMcpAuthService(deps: McpAuthServiceDeps) {
  const { repo, clients, clock, issuer, resource } = deps;
  const iso = () => clock.now().toISOString();
  const later = (seconds: number) => new Date(clock.now().getTime() + seconds * 1000).toISOString();

  /**
   * Checks an authorization request. The client and redirect URI first: when either cannot be trusted this throws
   * INVALID_CLIENT and the caller shows a page (never a redirect). Anything else throws a RedirectableError.
   */
  async function check(params: AuthorizationParams): Promise<CheckedRequest> {
    const client = await clients.resolve(params.client_id);
    const redirectUri = params.redirect_uri;
    if (redirectUri === undefined || redirectUriProblem(redirectUri) !== undefined || !redirectUriMatches(client.redirectUris, redirectUri)) {
      throw new AppError('INVALID_CLIENT', `The redirect_uri is not one that ${client.name} registered, so Switchboard will not send your browser there.`);
    }
    const fail = (error: string, description: string) =>
      new RedirectableError(error, description, answerUrl(redirectUri, { error, error_description: description, state: params.state }));
    if (params.response_type !== 'code') throw fail('unsupported_response_type', 'response_type must be code.');
    if (!params.code_challenge || !/^[A-Za-z0-9._~-]{43,128}$/.test(params.code_challenge)) throw fail('invalid_request', 'PKCE is required: send code_challenge (S256).');
    if (params.code_challenge_method !== 'S256') throw fail('invalid_request', 'code_challenge_method must be S256.');
    if (params.resource !== resource) throw fail('invalid_target', `resource must be this server's MCP endpoint, ${resource}.`);
    if (params.scope !== undefined && params.scope.split(' ').some((scope) => scope !== '' && scope !== MCP_SCOPE)) throw fail('invalid_scope', `The only scope is ${MCP_SCOPE}.`);
    if (params.state !== undefined && params.state.length > 1024) throw fail('invalid_request', 'state is longer than 1024 characters.');
    return { client, redirectUri, state: params.state, codeChallenge: params.code_challenge };
  }

  /** Where the browser goes with the answer: the redirect URI with `code` or `error`, `state` and `iss` (RFC 9207). */
  function answerUrl(redirectUri: string, params: Record<string, string | undefined>): string {
    const url = new URL(redirectUri);
    for (const [name, value] of Object.entries(params)) if (value !== undefined) url.searchParams.set(name, value);
    url.searchParams.set('iss', issuer);
    return url.href;
  }

  /** A person's decision. `agentId` has been checked by the caller to be one they may manage. */
  async function decide(params: AuthorizationParams, decision: { approve: false } | { approve: true; orgId: string; agentId: string; userId: string }): Promise<string> {
    const checked = await check(params);
    if (!decision.approve) return answerUrl(checked.redirectUri, { error: 'access_denied', error_description: 'The person denied access.', state: checked.state });
    const now = iso();
    const grant: McpGrantsTable = {
      id: newId('mgr'), org_id: decision.orgId, agent_id: decision.agentId, client_id: checked.client.id, client_name: checked.client.name,
      user_id: decision.userId, created_at: now, last_used_at: null, revoked_at: null,
    };
    const code = newSecret('svc_mac');
    await repo.insertGrant(grant);
    await repo.insertCode({ code_hash: hashSecret(code), grant_id: grant.id, client_id: checked.client.id, redirect_uri: checked.redirectUri, code_challenge: checked.codeChallenge, expires_at: later(CODE_SECONDS), used_at: null });
    if (checked.client.id.startsWith('mcpc_')) await repo.markClientUsed(checked.client.id, now);
    return answerUrl(checked.redirectUri, { code, state: checked.state });
  }

  async function issue(grantId: string): Promise<TokenAnswer> {
    const access = newSecret('svc_mat');
    const refresh = newSecret('svc_mrt');
    const now = iso();
    const rows: McpTokensTable[] = [
      { token_hash: hashSecret(access), grant_id: grantId, kind: 'access', expires_at: later(ACCESS_TOKEN_SECONDS), used_at: null, created_at: now },
      { token_hash: hashSecret(refresh), grant_id: grantId, kind: 'refresh', expires_at: later(REFRESH_TOKEN_SECONDS), used_at: null, created_at: now },
    ];
    await repo.insertTokens(rows);
    return { access_token: access, token_type: 'Bearer', expires_in: ACCESS_TOKEN_SECONDS, refresh_token: refresh, scope: MCP_SCOPE };
  }

  const invalidGrant = (message: string) => new AppError('INVALID_GRANT', message);

  function checkResource(given: string | undefined): void {
    if (given !== undefined && given !== resource) throw new AppError('INVALID_REQUEST', `resource must be ${resource}.`);
  }

  /** `grant_type=authorization_code` (public clients: `client_id`, no secret; PKCE proves the caller). */
  async function exchangeCode(body: { code?: string | undefined; client_id?: string | undefined; redirect_uri?: string | undefined; code_verifier?: string | undefined; resource?: string | undefined }): Promise<TokenAnswer> {
    if (!body.code || !body.client_id || !body.redirect_uri || !body.code_verifier) throw new AppError('INVALID_REQUEST', 'Send code, client_id, redirect_uri and code_verifier.');
    checkResource(body.resource);
    const hash = hashSecret(body.code);
    const row = await repo.findCode(hash);
    if (!row) throw invalidGrant('The code is not valid.');
    if (row.used_at !== null || !(await repo.useCode(hash, iso()))) {
      // A replay: whoever has the other copy of the code lost it, and what it issued is revoked.
      await repo.revokeGrant(row.grant_id, iso());
      throw invalidGrant('The code was already used; the access it gave is revoked.');
    }
    if (row.expires_at <= iso()) throw invalidGrant('The code has expired.');
    if (row.client_id !== body.client_id) throw invalidGrant('The code was issued to another client.');
    if (row.redirect_uri !== body.redirect_uri) throw invalidGrant('redirect_uri is not the one the code was issued for.');
    if (!safeEqual(sha256base64url(body.code_verifier), row.code_challenge)) throw invalidGrant('code_verifier does not match the code_challenge.');
    const grant = await repo.findGrant(row.grant_id);
    if (!grant || grant.revoked_at !== null) throw invalidGrant('The access was revoked.');
    return issue(grant.id);
  }

  /** `grant_type=refresh_token`: rotated on every use; a used one coming back revokes the grant. */
  async function refresh(body: { refresh_token?: string | undefined; client_id?: string | undefined; resource?: string | undefined }): Promise<TokenAnswer> {
    if (!body.refresh_token || !body.client_id) throw new AppError('INVALID_REQUEST', 'Send refresh_token and client_id.');
    checkResource(body.resource);
    const hash = hashSecret(body.refresh_token);
    const row = await repo.findToken(hash);
    if (!row || row.kind !== 'refresh' || row.revoked_at !== null) throw invalidGrant('The refresh token is not valid.');
    if (row.client_id !== body.client_id) throw invalidGrant('The refresh token was issued to another client.');
    if (row.used_at !== null || !(await repo.useToken(hash, iso()))) {
      await repo.revokeGrant(row.grant_id, iso());
      throw invalidGrant('The refresh token was already used; the access it gave is revoked.');
    }
    if (row.expires_at <= iso()) throw invalidGrant('The refresh token has expired.');
    return issue(row.grant_id);
  }

  /** RFC 7009: a client's access or refresh token ends its grant. Unknown tokens are answered the same. */
  async function revoke(token: string, clientId: string | undefined): Promise<void> {
    const row = await repo.findToken(hashSecret(token));
    if (row && (clientId === undefined || row.client_id === clientId)) await repo.revokeGrant(row.grant_id, iso());
  }

  const touched = new Map<string, number>();

  /** The agent an access token speaks for, or undefined. */
  async function authenticate(token: string): Promise<McpPrincipal | undefined> {
    const row = await repo.findToken(hashSecret(token));
    if (!row || row.kind !== 'access' || row.revoked_at !== null || row.expires_at <= iso()) return undefined;
    const now = clock.now().getTime();
    if ((touched.get(row.grant_id) ?? 0) + TOUCH_MS <= now) {
      if (touched.size > 10_000) touched.clear();
      touched.set(row.grant_id, now);
      await repo.touchGrant(row.grant_id, iso());
    }
    return { orgId: row.org_id, agentId: row.agent_id, grantId: row.grant_id, clientName: row.client_name };
  }

  async function agentGrants(orgId: string, agentId: string) {
    const rows = await repo.agentGrants(orgId, agentId);
    return rows.map((row) => ({
      id: row.id,
      client: { id: row.client_id, name: row.client_name },
      approvedBy: row.user_id !== null ? { id: row.user_id, name: row.user_name ?? '' } : null,
      createdAt: row.created_at,
      lastUsedAt: row.last_used_at,
    }));
  }

  async function revokeGrant(orgId: string, agentId: string, grantId: string): Promise<{ id: string; revoked: true }> {
    const grant = await repo.findGrant(grantId);
    if (!grant || grant.org_id !== orgId || grant.agent_id !== agentId || grant.revoked_at !== null) throw new AppError('NOT_FOUND', 'No connected app has that id for this agent.');
    await repo.revokeGrant(grantId, iso(), orgId);
    return { id: grantId, revoked: true };
  }

  return { check, decide, exchangeCode, refresh, revoke, authenticate, agentGrants, revokeGrant };
}

export type McpAuthService = ReturnType<typeof createMcpAuthService>;

/** Dynamic Client Registration (RFC 7591), public clients only. */
export async function registerClient(repo: Pick<McpAuthRepo, 'insertClient'>, clock: Clock, body: Record<string, unknown>) {
  const uris = body.redirect_uris;
  if (!Array.isArray(uris) || uris.length === 0 || uris.length > 10) throw new AppError('INVALID_REQUEST', 'redirect_uris must list 1 to 10 redirect URIs.', { extra: { error: 'invalid_redirect_uri' } });
  for (const uri of uris) {
    const problem = redirectUriProblem(uri);
    if (problem) throw new AppError('INVALID_REQUEST', `Each redirect URI ${problem}.`, { extra: { error: 'invalid_redirect_uri' } });
  }
  const method = body.token_endpoint_auth_method ?? 'none';
  if (method !== 'none') throw new AppError('INVALID_REQUEST', 'Only public clients register here: token_endpoint_auth_method must be none (PKCE protects the code).', { extra: { error: 'invalid_client_metadata' } });
  const name = typeof body.client_name === 'string' && body.client_name.trim() !== '' ? body.client_name.trim().slice(0, 100) : 'An MCP client';
  const now = clock.now();
  const id = newId('mcpc');
  await repo.insertClient({ id, client_name: name, redirect_uris: JSON.stringify(uris), created_at: now.toISOString(), used_at: null });
  return {
    client_id: id,
    client_id_issued_at: Math.floor(now.getTime() / 1000),
    client_name: name,
    redirect_uris: uris as string[],
    token_endpoint_auth_method: 'none',
    grant_types: ['authorization_code', 'refresh_token'],
    response_types: ['code'],
  };
}

/** Expired tokens, and registrations never used by a grant within a day (db/expiry-purger.ts). */
export function mcpAuthPurges(repo: Pick<McpAuthRepo, 'deleteExpiredTokens' | 'deleteUnusedClients'>): ExpiryPurge[] {
  return [
    { name: 'mcp_tokens', purgeBatch: (now, limit) => repo.deleteExpiredTokens(now.toISOString(), limit) },
    { name: 'mcp_clients', purgeBatch: (now, limit) => repo.deleteUnusedClients(new Date(now.getTime() - UNUSED_CLIENT_MS).toISOString(), limit) },
  ];
}
