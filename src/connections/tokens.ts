import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import type { FastifyBaseLogger } from 'fastify';
import type { OAuthConnectionsTable } from '../db/tables.js';
import type { Transact } from '../db/transaction-runner.js';
import { AppError } from '../http/errors.js';
import type { Clock } from '../lib/clock.js';
import type { KeyRing } from '../lib/secrets.js';
import { openClientSecret } from '../tools/client-secret.js';
import type { OAuthSettings } from '../tools/oauth-settings.js';
import type { WebhooksRepo } from '../webhooks/repo.js';
import type { OAuthClient, TokenFailure } from './oauth-client.js';
import type { ConnectionOwner, ConnectionsRepo } from './repo.js';
import { openToken, sealToken } from './sealing.js';
import { recordConnectionEvent } from './webhook-events.js';

/**
 * A connection's access token at call time, kept alive without anyone noticing (docs/tool-endpoints.md, "OAuth tools").
 *
 * - Each node keeps the opened token for up to CACHE_MS, so a call costs a map lookup, not a query and a decryption.
 * - A token is refreshed before it expires: from `expires_in` minus a tenth of its lifetime (at most a minute). A
 *   token without `expires_in` is refreshed only when an endpoint refuses it (401: `afterRejection`).
 * - One refresh per connection at a time across every node: the calls of one node share one refresh, and the nodes
 *   take a lease on the connection's row (`lease_owner`, `lease_until`) before asking the provider; the others use
 *   the current token while it has not expired, or wait for the row's `token_version` to move and use the new one. Many providers rotate refresh tokens, and a second
 *   use of the old one revokes the whole grant.
 * - `invalid_grant`: the connection needs reconnecting (`installation.connection_failed` goes out with the change);
 *   calls fail at once with TOOL_CONNECTION_EXPIRED. A timeout or 5xx is retried with backoff (5 s, doubling, at most
 *   10 min) and leaves the connection as it is; meanwhile a token that has not expired is still used.
 */

export interface TokenSource {
  toolId: string;
  settings: OAuthSettings;
  /** The tool's client secret, sealed (tools/client-secret.ts); null when the developer has set none. */
  sealedClientSecret: string | null;
}

export interface BearerToken {
  value: string;
  /** The row's token_version: after a 401, a refresh is needed only if nobody refreshed since. */
  version: number;
}

/** How a failure names what failed, for its message. */
export interface Subject {
  /** The tool's name as the caller knows it. */
  name: string;
}

const CACHE_MS = 30_000;
const MAX_CACHED = 10_000;
const MAX_SKEW_MS = 60_000;
/** Longer than a refresh can take (the call deadline is at most 30 s): a holder that died frees the row after this. */
const LEASE_MS = 60_000;
const LEASE_POLL_MS = 50;
/** How long a call waits for another node's refresh before giving up for now. */
const WAIT_FOR_OTHER_MS = 10_000;
const BACKOFF_BASE_MS = 5_000;
const BACKOFF_MAX_MS = 600_000;

export function refreshBackoffMs(failures: number): number {
  return Math.min(BACKOFF_BASE_MS * 2 ** Math.max(0, failures - 1), BACKOFF_MAX_MS);
}

interface Cached {
  token: BearerToken;
  /** When to refresh (ms); Infinity without an expiry. */
  refreshAt: number;
  /** When to read the row again (another node may have refreshed or disconnected). */
  until: number;
}

export interface TokensDeps {
  repo: ConnectionsRepo;
  /** A connection marked as needing reconnection and its webhook event commit together. */
  transact: Transact<{ connections: ConnectionsRepo; webhooks: WebhooksRepo }>;
  client: Pick<OAuthClient, 'refresh'>;
  keys: KeyRing;
  clock: Clock;
  log: Pick<FastifyBaseLogger, 'warn' | 'info'>;
}

export function ownerKey(owner: ConnectionOwner): string {
  return owner.kind === 'installation' ? `i:${owner.installationId}` : `d:${owner.developerId}:${owner.toolId}`;
}

export function createTokens(deps: TokensDeps) {
  const { repo, transact, client, keys, clock, log } = deps;
  /** This node's name on a lease. */
  const leaseOwner = randomUUID();
  const cache = new Map<string, Cached>();
  const refreshing = new Map<string, Promise<BearerToken>>();

  // ── Failures, in words a model and a person can act on ──

  function notConnected(owner: ConnectionOwner, subject: Subject): AppError {
    return new AppError('TOOL_CREDENTIALS_MISSING', owner.kind === 'installation'
      ? `"${subject.name}" acts on an account at its provider, and none is connected yet. A person in your organization must connect one: Tools → ${subject.name} → Connect in the console (POST /api/org/installations/${owner.installationId}/connection). No request was sent.`
      : `"${subject.name}" acts on an account at its provider: connect a test account first (the tool page's Test → Connect a test account, or POST /api/dev/tools/${owner.toolId}/test-connection). No request was sent.`);
  }

  function expired(owner: ConnectionOwner, subject: Subject, reason: string | null): AppError {
    const why = reason ?? 'the provider refused it.';
    return new AppError('TOOL_CONNECTION_EXPIRED', owner.kind === 'installation'
      ? `The connection of "${subject.name}" to its provider no longer works: ${why} A person in your organization must reconnect it (Tools → ${subject.name} → Reconnect in the console). No request was sent.`
      : `Your test account's connection no longer works: ${why} Connect it again from the tool page's Test. No request was sent.`);
  }

  function unavailable(subject: Subject, message: string, retryAt: Date | undefined): AppError {
    const when = retryAt ? ` Switchboard asks again in ${Math.max(1, Math.ceil((retryAt.getTime() - clock.now().getTime()) / 1000))} s.` : '';
    return new AppError('TOOL_UNREACHABLE', `"${subject.name}"'s access token needs renewing and its provider could not renew it: ${message} No request was sent.${when}`);
  }

  function unreadable(subject: Subject, what: string): AppError {
    return new AppError('TOOL_CREDENTIALS_MISSING', `"${subject.name}"'s ${what} cannot be decrypted with the configured SECRETS_KEY. No request was sent.`);
  }

  // ── The per-node cache ──

  function refreshAtOf(row: OAuthConnectionsTable): number {
    if (row.expires_at === null) return Number.POSITIVE_INFINITY;
    const expires = Date.parse(row.expires_at);
    const lifetime = expires - Date.parse(row.refreshed_at ?? row.connected_at);
    return expires - Math.min(MAX_SKEW_MS, Math.max(0, lifetime / 10));
  }

  /** The row's token, opened and cached. */
  function remember(owner: ConnectionOwner, row: OAuthConnectionsTable, subject: Subject): { token: BearerToken; refreshAt: number } {
    let value: string;
    try {
      value = openToken(keys, row, 'access_token', row.access_token);
    } catch {
      throw unreadable(subject, 'stored access token (reconnect it)');
    }
    const entry: Cached = { token: { value, version: Number(row.token_version) }, refreshAt: refreshAtOf(row), until: clock.now().getTime() + CACHE_MS };
    if (cache.size >= MAX_CACHED) cache.clear();
    cache.set(ownerKey(owner), entry);
    return entry;
  }

  /** Drops what this node holds of a connection (after connect, reconnect or disconnect here). */
  function forget(owner: ConnectionOwner): void {
    cache.delete(ownerKey(owner));
  }

  // ── Refresh ──

  async function markFailed(owner: ConnectionOwner, row: OAuthConnectionsTable, reason: string): Promise<void> {
    forget(owner);
    const now = clock.now().toISOString();
    await transact(async (repos) => {
      const changed = await repos.connections.markNeedsReconnect(row.id, reason);
      if (changed && owner.kind === 'installation') {
        await recordConnectionEvent(repos, 'installation.connection_failed', { orgId: owner.orgId, installationId: owner.installationId, toolId: row.tool_id, reason }, now);
      }
    });
    log.warn({ connectionId: row.id, ...(owner.kind === 'installation' ? { installationId: owner.installationId } : {}), reason }, 'oauth connection needs reconnecting');
  }

  /** Under this node's lease: asks the provider, stores the new tokens, or records why not. */
  async function refreshHeld(owner: ConnectionOwner, row: OAuthConnectionsTable, source: TokenSource, subject: Subject, rejected: boolean): Promise<BearerToken> {
    const giveBack = () => repo.recordRefreshFailure(row.id, leaseOwner, Number(row.refresh_failures), row.retry_refresh_at ?? clock.now().toISOString());
    if (source.sealedClientSecret === null) {
      await giveBack();
      throw new AppError('TOOL_CREDENTIALS_MISSING', `"${subject.name}"'s developer has not set the tool's OAuth client secret, so its access cannot be renewed. No request was sent.`);
    }
    if (source.settings.clientId !== row.client_id) {
      await markFailed(owner, row, 'the tool\'s OAuth client changed since the account was connected.');
      throw expired(owner, subject, 'the tool\'s OAuth client changed since the account was connected.');
    }
    let secret: string;
    let refreshToken: string;
    try {
      secret = openClientSecret(keys, source.toolId, source.sealedClientSecret);
      refreshToken = openToken(keys, row, 'refresh_token', row.refresh_token!);
    } catch {
      await giveBack();
      throw unreadable(subject, 'OAuth client secret or refresh token');
    }

    const result = await client.refresh(source.settings, secret, refreshToken);
    const now = clock.now();
    if (result.ok) {
      const { grant } = result;
      const tokens = {
        access_token: sealToken(keys, row.id, 'access_token', grant.accessToken),
        // Kept when the provider sent none (RFC 6749 §6), sealed again so the row is under one key.
        refresh_token: sealToken(keys, row.id, 'refresh_token', grant.refreshToken ?? refreshToken),
        key_id: keys.current.id,
        expires_at: grant.expiresIn !== undefined ? new Date(now.getTime() + grant.expiresIn * 1000).toISOString() : null,
        scopes: grant.scope ?? row.scopes,
        refreshed_at: now.toISOString(),
      };
      if (!(await repo.storeRefreshed(row.id, leaseOwner, tokens))) {
        log.warn({ connectionId: row.id }, 'oauth refresh outlived its lease; its tokens were kept on this node only');
      }
      return remember(owner, { ...row, ...tokens, token_version: Number(row.token_version) + 1 }, subject).token;
    }

    if (result.failure.kind === 'invalid_grant') {
      await markFailed(owner, row, result.failure.message);
      throw expired(owner, subject, result.failure.message);
    }
    return failedForNow(owner, row, subject, result.failure, rejected);
  }

  /** A timeout, a 5xx, a refusal other than invalid_grant: counted and retried later; the connection stays. */
  async function failedForNow(owner: ConnectionOwner, row: OAuthConnectionsTable, subject: Subject, failure: TokenFailure, rejected: boolean): Promise<BearerToken> {
    const failures = Number(row.refresh_failures) + 1;
    const retryAt = new Date(clock.now().getTime() + refreshBackoffMs(failures));
    await repo.recordRefreshFailure(row.id, leaseOwner, failures, retryAt.toISOString());
    log.warn({ connectionId: row.id, failures, reason: failure.message }, 'oauth refresh failed; retried later');
    if (!rejected && !hasExpired(row)) return remember(owner, row, subject).token;
    throw unavailable(subject, failure.message, retryAt);
  }

  function hasExpired(row: OAuthConnectionsTable): boolean {
    return row.expires_at !== null && row.expires_at <= clock.now().toISOString();
  }

  /**
   * A new token unless someone already made one after version `seen`: takes the lease, or waits for the node that
   * holds it. `rejected`: an endpoint refused the current token, so it is not used again.
   */
  async function leaseAndRefresh(owner: ConnectionOwner, source: TokenSource, subject: Subject, seen: number, rejected: boolean): Promise<BearerToken> {
    const giveUpAt = Date.now() + WAIT_FOR_OTHER_MS;
    for (;;) {
      const row = await repo.find(owner);
      if (!row) throw notConnected(owner, subject);
      if (row.status !== 'connected') throw expired(owner, subject, row.failure_reason);
      if (Number(row.token_version) !== seen) return remember(owner, row, subject).token;
      const now = clock.now();
      if (row.retry_refresh_at !== null && now.toISOString() < row.retry_refresh_at) {
        if (!rejected && !hasExpired(row)) return remember(owner, row, subject).token;
        throw unavailable(subject, 'its last attempts failed.', new Date(row.retry_refresh_at));
      }
      if (row.refresh_token === null) {
        const reason = 'the provider gave no refresh token, and the access token has expired or was refused.';
        await markFailed(owner, row, reason);
        throw expired(owner, subject, reason);
      }
      if (await repo.takeLease(row.id, seen, leaseOwner, now.toISOString(), new Date(now.getTime() + LEASE_MS).toISOString())) {
        return refreshHeld(owner, row, source, subject, rejected);
      }
      // Another node is renewing a token that still works: use it meanwhile rather than wait.
      if (!rejected && !hasExpired(row)) return remember(owner, row, subject).token;
      if (Date.now() > giveUpAt) throw unavailable(subject, 'another server has been renewing it for too long.', undefined);
      await sleep(LEASE_POLL_MS);
    }
  }

  /** One refresh per connection on this node: concurrent callers share it. */
  function refresh(owner: ConnectionOwner, source: TokenSource, subject: Subject, seen: number, rejected: boolean): Promise<BearerToken> {
    const key = ownerKey(owner);
    let running = refreshing.get(key);
    if (!running) {
      running = leaseAndRefresh(owner, source, subject, seen, rejected).finally(() => refreshing.delete(key));
      refreshing.set(key, running);
    }
    return running;
  }

  /** The token a call sends now: cached, read, or refreshed first when it is about to expire. */
  async function accessToken(owner: ConnectionOwner, source: TokenSource, subject: Subject): Promise<BearerToken> {
    const now = clock.now().getTime();
    const cached = cache.get(ownerKey(owner));
    if (cached && now < cached.until && now < cached.refreshAt) return cached.token;
    const running = refreshing.get(ownerKey(owner));
    if (running) return running;
    const row = await repo.find(owner);
    if (!row) throw notConnected(owner, subject);
    if (row.status !== 'connected') {
      forget(owner);
      throw expired(owner, subject, row.failure_reason);
    }
    const entry = remember(owner, row, subject);
    return now < entry.refreshAt ? entry.token : refresh(owner, source, subject, entry.token.version, false);
  }

  /** After an endpoint answered 401 to `used`: a token newer than it (refreshed here or by another node). */
  function afterRejection(owner: ConnectionOwner, source: TokenSource, subject: Subject, used: BearerToken): Promise<BearerToken> {
    forget(owner);
    return refresh(owner, source, subject, used.version, true);
  }

  return { accessToken, afterRejection, forget };
}

export type Tokens = ReturnType<typeof createTokens>;
