import { randomBytes } from 'node:crypto';
import * as oauth from 'oauth4webapi';
import type { ExpiryPurge } from '../db/expiry-purger.js';
import type { OAuthConnectionsTable } from '../db/tables.js';
import type { Transact } from '../db/transaction-runner.js';
import { AppError } from '../http/errors.js';
import type { Clock } from '../lib/clock.js';
import { hashSecret } from '../lib/hashing.js';
import { newId } from '../lib/ids.js';
import type { KeyRing } from '../lib/secrets.js';
import type { EndpointPolicy } from '../net/endpoint-check.js';
import { openClientSecret } from '../tools/client-secret.js';
import { checkOAuthUrls } from '../tools/oauth-settings.js';
import type { WebhooksRepo } from '../webhooks/repo.js';
import type { OAuthClient } from './oauth-client.js';
import type { ConnectionOwner, ConnectionsRepo } from './repo.js';
import { openToken, openVerifier, sealToken, sealVerifier } from './sealing.js';
import type { ConnectionStatus } from './schema.js';
import type { TokenSource, Tokens } from './tokens.js';
import { recordConnectionEvent } from './webhook-events.js';

/**
 * Connecting an account (authorization code with PKCE, RFC 6749 §4.1 and RFC 7636), and disconnecting it.
 *
 * `start` makes a `state` (32 random bytes) stored only as its SHA-256, single-use, bound to the owner (the
 * organization and installation, or the developer and tool) and to the person's console session, expiring in ten
 * minutes; and a PKCE verifier, sealed. The provider sends the browser to `/oauth/callback`; `complete` takes the
 * state out (whoever deletes it uses it), checks it, exchanges the code through the address-checked client and
 * stores the tokens sealed. Anything wrong (denied, unknown, expired, reused, another session's, a token endpoint
 * error) stores nothing and says so on a page.
 */

export const STATE_TTL_MS = 10 * 60 * 1000;

/** What a connection is made for, as its owner's feature resolves it (the installation's live revision, or the developer's working copy). */
export interface ConnectionTarget extends TokenSource {
  /** The tool's name, for messages. */
  name: string;
}

export interface ConnectionTargets {
  installation(orgId: string, installationId: string): Promise<ConnectionTarget>;
  developerTool(developerId: string, toolId: string): Promise<ConnectionTarget>;
}

/** Where the person lands: the console page they started from, or a page that says what went wrong. */
export type CallbackOutcome =
  | { ok: true; location: string }
  | { ok: false; status: number; title: string; message: string; back: { href: string; label: string } | undefined };

export interface ConnectionsServiceDeps {
  repo: ConnectionsRepo;
  transact: Transact<{ connections: ConnectionsRepo; webhooks: WebhooksRepo }>;
  client: Pick<OAuthClient, 'authorizationUrl' | 'exchangeCode' | 'revoke'>;
  tokens: Pick<Tokens, 'forget'>;
  targets: ConnectionTargets;
  keys: KeyRing;
  clock: Clock;
  endpointPolicy: EndpointPolicy;
  redirectUri: string;
}

/** The console page an owner's connection is shown on. */
export function consolePage(owner: ConnectionOwner): string {
  return owner.kind === 'installation' ? `/app/tools/${owner.installationId}` : `/app/developer/tools/${owner.toolId}`;
}

export function presentStatus(row: Pick<OAuthConnectionsTable, 'status' | 'scopes' | 'account_label' | 'connected_at' | 'refreshed_at' | 'expires_at' | 'failure_reason'> | undefined): ConnectionStatus {
  if (!row) return { status: 'not_connected', accountLabel: null, scopes: [], connectedAt: null, refreshedAt: null, expiresAt: null, reason: null };
  return {
    status: row.status === 'connected' ? 'connected' : 'needs_reconnect',
    accountLabel: row.account_label,
    scopes: row.scopes === '' ? [] : row.scopes.split(' '),
    connectedAt: row.connected_at,
    refreshedAt: row.refreshed_at,
    expiresAt: row.expires_at,
    reason: row.status === 'connected' ? null : row.failure_reason,
  };
}

function failure(title: string, message: string, back?: { href: string; label: string }, status = 400): CallbackOutcome {
  return { ok: false, status, title, message, back };
}

export function createConnectionsService(deps: ConnectionsServiceDeps) {
  const { repo, transact, client, tokens, targets, keys, clock, endpointPolicy, redirectUri } = deps;

  const targetOf = (owner: ConnectionOwner): Promise<ConnectionTarget> =>
    owner.kind === 'installation' ? targets.installation(owner.orgId, owner.installationId) : targets.developerTool(owner.developerId, owner.toolId);

  function clientSecretOf(target: ConnectionTarget): string {
    if (target.sealedClientSecret === null) {
      throw new AppError('CONFLICT', `"${target.name}" has no OAuth client secret yet: its developer must set one before an account can be connected.`);
    }
    try {
      return openClientSecret(keys, target.toolId, target.sealedClientSecret);
    } catch {
      throw new AppError('CONFLICT', `"${target.name}"'s OAuth client secret cannot be decrypted with the configured SECRETS_KEY: its developer must set it again.`);
    }
  }

  /**
   * Starts an authorization for `owner`, bound to the person's console session: the URL to send their browser to.
   * A connection is a person's consent at the provider, finished in the browser that started it: without a session
   * (an API key, an access token) there is no browser to send, and a link someone else opened would connect their
   * account to this owner. 404 for an unknown owner comes first.
   */
  async function start(owner: ConnectionOwner, sessionId: string | undefined): Promise<{ authorizationUrl: string; expiresAt: string }> {
    const target = await targetOf(owner);
    if (sessionId === undefined) {
      throw new AppError('FORBIDDEN', 'Connecting an account needs a person signed in to the console: the provider shows them its sign-in and consent pages, and the connection is finished in that browser. Use the console.');
    }
    clientSecretOf(target);
    // At connect time too: DNS may have changed since the tool was published.
    await checkOAuthUrls(target.settings, endpointPolicy, 'publish');

    const state = randomBytes(32).toString('base64url');
    const stateHash = hashSecret(state);
    const verifier = oauth.generateRandomCodeVerifier();
    const now = clock.now();
    const expiresAt = new Date(now.getTime() + STATE_TTL_MS).toISOString();
    await repo.insertState({
      state_hash: stateHash,
      tool_id: target.toolId,
      org_id: owner.kind === 'installation' ? owner.orgId : null,
      installation_id: owner.kind === 'installation' ? owner.installationId : null,
      developer_id: owner.kind === 'developer' ? owner.developerId : null,
      session_id: sessionId,
      client_id: target.settings.clientId,
      code_verifier: sealVerifier(keys, stateHash, verifier),
      key_id: keys.current.id,
      scopes: target.settings.scopes.join(' '),
      expires_at: expiresAt,
      created_at: now.toISOString(),
    });
    const codeChallenge = await oauth.calculatePKCECodeChallenge(verifier);
    return { authorizationUrl: client.authorizationUrl(target.settings, { redirectUri, state, codeChallenge }), expiresAt };
  }

  /** The provider's redirect back: `query` as it came, `sessionId` the browser's console session if any. */
  async function complete(query: Record<string, string | undefined>, sessionId: string | undefined): Promise<CallbackOutcome> {
    const startAgain = 'Start again from the console: open the tool and choose Connect.';
    const state = query['state'];
    if (state === undefined || state === '') return failure('This link is not a connection', `The provider's answer carries no state, so it cannot be matched to a connection you started. ${startAgain}`);
    const row = await repo.takeState(hashSecret(state));
    if (!row) return failure('This connection link is no longer valid', `It was already used, or it was not made by Switchboard. ${startAgain}`);

    const owner: ConnectionOwner = row.installation_id !== null && row.org_id !== null
      ? { kind: 'installation', orgId: row.org_id, installationId: row.installation_id }
      : { kind: 'developer', developerId: row.developer_id!, toolId: row.tool_id };
    const back = { href: consolePage(owner), label: owner.kind === 'installation' ? 'Back to the tool' : 'Back to your tool' };
    if (row.expires_at <= clock.now().toISOString()) return failure('This connection took too long', `Connecting must be finished within ten minutes of starting it. ${startAgain}`, back);
    if (sessionId === undefined || sessionId !== row.session_id) {
      return failure('Sign in with the account that started this connection', 'A connection is finished only in the browser session that started it, so nobody can make you connect an account on their behalf. Sign in to the console and start again.', back, 403);
    }
    const error = query['error'];
    if (error !== undefined) {
      const code = error.replace(/[^\x21-\x7E]/g, '').slice(0, 64);
      return code === 'access_denied'
        ? failure('The connection was not approved', 'The provider says access was denied, so nothing was connected. You can connect again at any time.', back)
        : failure('The provider did not connect the account', `It answered “${code}”, so nothing was connected. Try again; if it happens again, tell the tool's developer.`, back, 502);
    }
    if (!query['code']) return failure('The provider sent no code', `Nothing was connected. ${startAgain}`, back);

    let target: ConnectionTarget;
    try {
      target = await targetOf(owner);
    } catch (caught) {
      if (caught instanceof AppError && caught.status < 500) return failure('This tool can no longer be connected', `${caught.message} Nothing was connected.`, back, 409);
      throw caught;
    }
    if (target.settings.clientId !== row.client_id) return failure('The tool changed while you were connecting', `Its OAuth client is not the one this connection started with. ${startAgain}`, back, 409);
    let secret: string;
    try {
      secret = clientSecretOf(target);
      await checkOAuthUrls(target.settings, endpointPolicy, 'publish');
    } catch (caught) {
      if (caught instanceof AppError && caught.status < 500) return failure('This tool cannot be connected now', `${caught.message} Nothing was connected.`, back, 409);
      throw caught;
    }

    const params = new URLSearchParams(Object.entries(query).filter((entry): entry is [string, string] => entry[1] !== undefined));
    const result = await client.exchangeCode(target.settings, secret, params, state, redirectUri, openVerifier(keys, row.state_hash, row.code_verifier));
    if (!result.ok) return failure('The provider did not connect the account', `${result.failure.message} Nothing was connected. Try again; if it happens again, tell the tool's developer.`, back, 502);

    const { grant } = result;
    const now = clock.now();
    const id = newId('oac');
    const connection: OAuthConnectionsTable = {
      id,
      tool_id: target.toolId,
      org_id: owner.kind === 'installation' ? owner.orgId : null,
      installation_id: owner.kind === 'installation' ? owner.installationId : null,
      developer_id: owner.kind === 'developer' ? owner.developerId : null,
      status: 'connected',
      client_id: target.settings.clientId,
      access_token: sealToken(keys, id, 'access_token', grant.accessToken),
      refresh_token: grant.refreshToken !== undefined ? sealToken(keys, id, 'refresh_token', grant.refreshToken) : null,
      key_id: keys.current.id,
      token_version: 1,
      expires_at: grant.expiresIn !== undefined ? new Date(now.getTime() + grant.expiresIn * 1000).toISOString() : null,
      // RFC 6749 §5.1: no scope in the answer means the scopes asked for were granted.
      scopes: grant.scope ?? row.scopes,
      account_label: grant.accountLabel ?? null,
      connected_at: now.toISOString(),
      refreshed_at: null,
      refresh_failures: 0,
      retry_refresh_at: null,
      lease_owner: null,
      lease_until: null,
      failure_reason: null,
    };
    await transact(async (repos) => {
      const before = await repos.connections.find(owner);
      await repos.connections.replace(owner, connection);
      if (before?.status === 'needs_reconnect' && owner.kind === 'installation') {
        await recordConnectionEvent(repos, 'installation.connection_restored', { orgId: owner.orgId, installationId: owner.installationId, toolId: target.toolId }, connection.connected_at);
      }
    });
    tokens.forget(owner);
    return { ok: true, location: `${consolePage(owner)}?connection=connected` };
  }

  /** Wipes the owner's tokens, revoking them at the provider first when it has a revocation URL (RFC 7009). */
  async function disconnectOwned(owner: ConnectionOwner): Promise<{ disconnected: boolean; revoked: boolean }> {
    // An unknown installation or tool is 404; one whose tool was withdrawn or changed still disconnects (without revoking).
    const target = await targetOf(owner).catch((error: unknown) => {
      if (error instanceof AppError && (error.code === 'NOT_FOUND' || error.code === 'TOOL_NOT_FOUND')) throw error;
      return undefined;
    });
    const row = await repo.remove(owner);
    tokens.forget(owner);
    if (!row) return { disconnected: false, revoked: false };
    let revoked = false;
    if (target && target.settings.revocationUrl !== null && target.sealedClientSecret !== null && row.client_id === target.settings.clientId) {
      try {
        const secret = openClientSecret(keys, target.toolId, target.sealedClientSecret);
        // The refresh token first: revoking it ends the grant (RFC 7009 §2.1), then the access token for providers that do not.
        const refresh = row.refresh_token !== null ? await client.revoke(target.settings, secret, openToken(keys, row, 'refresh_token', row.refresh_token), 'refresh_token') : false;
        const access = await client.revoke(target.settings, secret, openToken(keys, row, 'access_token', row.access_token), 'access_token');
        revoked = refresh || access;
      } catch {
        revoked = false;
      }
    }
    return { disconnected: true, revoked };
  }

  /** The owner's connection: 404 for an unknown owner, 409 for a tool that does not connect accounts. */
  async function statusOf(owner: ConnectionOwner): Promise<ConnectionStatus> {
    await targetOf(owner);
    return presentStatus(await repo.find(owner));
  }

  /** The connection of each of these installations, by installation id (the console's list and page). */
  async function statuses(orgId: string, installationIds: readonly string[]): Promise<Map<string, ConnectionStatus>> {
    const rows = await repo.ofInstallations(orgId, installationIds);
    return new Map(rows.map((row) => [row.installation_id!, presentStatus(row)]));
  }

  return { start, complete, disconnectOwned, statusOf, statuses };
}

export type ConnectionsService = ReturnType<typeof createConnectionsService>;

/** Authorizations never finished: their state expired ten minutes after it was made (db/expiry-purger.ts). */
export function expiredOAuthStates(repo: Pick<ConnectionsRepo, 'deleteExpiredStates'>): ExpiryPurge {
  return { name: 'oauth_states', purgeBatch: (now, limit) => repo.deleteExpiredStates(now.toISOString(), limit) };
}
