import type { AppsTable } from '../db/tables.js';
import type { AuditContext } from '../audit/context.js';
import type { AuditRepo } from '../audit/repo.js';
import type { AuditLog } from '../audit/service.js';
import type { Transact } from '../db/transaction-runner.js';
import { decodeCursor, toPage } from '../http/cursor.js';
import { AppError } from '../http/errors.js';
import type { Clock } from '../lib/clock.js';
import { hashSecret } from '../lib/hashing.js';
import { newSecret } from '../lib/ids.js';
import type { OAuthRepo } from '../oauth/repo.js';
import { formatScopes, parseScopeList, type Scope } from '../oauth/scopes.js';
import { appName, appScopes, insertNewApp, MAX_SECRET_GRACE_SECONDS, newAppRow } from './app-rules.js';
import type { AppsRepo } from './apps-repo.js';
import type { LimitLock } from '../http/tenant-limits.js';
import { appNotFound } from './errors.js';

/** An app as its developer sees it: never a secret or a hash. `id` is also its OAuth `client_id`. */
export interface AppRecord {
  id: string;
  clientId: string;
  name: string;
  scopes: Scope[];
  createdAt: string;
  /** When the token endpoint last issued it a token (to the minute: written at most once a minute). */
  lastTokenAt: string | null;
  secretRotatedAt: string | null;
  /** Until when the secret before the last rotation still works; null when it no longer does. */
  previousSecretExpiresAt: string | null;
}

/** An app with its new client secret: the only time the secret is shown. */
export type AppWithSecret = AppRecord & { clientSecret: string };

export interface AppChanges {
  name?: string;
  scopes?: string[];
}

/**
 * The developer portal's apps (`/api/dev/apps`, issue 20): register, list, rename, change scopes,
 * rotate the secret (with an optional grace for the old one), delete. Every function takes the
 * signed-in developer's id: another developer's app is APP_NOT_FOUND, like a missing one.
 * Tokens belong to oauth/: revoking or deleting them goes through its repo, in the same transaction.
 */
export function createAppsService(deps: { repo: AppsRepo; transact: Transact<{ apps: AppsRepo; oauth: OAuthRepo; developers: LimitLock; audit: AuditRepo }>; clock: Clock; audit: AuditLog }) {
  const { repo, transact, clock, audit } = deps;

  function present(row: AppsTable, now: string): AppRecord {
    const graceLeft = row.previous_secret_expires_at !== null && now < row.previous_secret_expires_at;
    return {
      id: row.id,
      clientId: row.id,
      name: row.name,
      scopes: parseScopeList(row.scopes) as Scope[],
      createdAt: row.created_at,
      lastTokenAt: row.last_token_at,
      secretRotatedAt: row.secret_rotated_at,
      previousSecretExpiresAt: graceLeft ? row.previous_secret_expires_at : null,
    };
  }

  async function owned(apps: AppsRepo, developerId: string, appId: string): Promise<AppsTable> {
    const row = await apps.findApp(developerId, appId);
    if (!row) throw appNotFound();
    return row;
  }

  async function list(developerId: string, query: { limit?: number | undefined; cursor?: string | undefined }) {
    const limit = query.limit ?? 20;
    const rows = await repo.listApps(developerId, { limit, after: decodeCursor(query.cursor) });
    const now = clock.now().toISOString();
    return toPage(rows.map((row) => ({ row, createdAt: row.created_at, id: row.id })), limit, ({ row }) => present(row, now));
  }

  async function get(developerId: string, appId: string): Promise<AppRecord> {
    return present(await owned(repo, developerId, appId), clock.now().toISOString());
  }

  async function create(developerId: string, input: { name: string; scopes: string[] }): Promise<AppWithSecret> {
    const scopes = appScopes(input.scopes);
    const name = appName(input.name);
    const now = clock.now().toISOString();
    const { row, clientSecret } = newAppRow({ developerId, name, scopes, now });
    await transact((repos) => insertNewApp(repos, row));
    return { ...present(row, now), clientSecret };
  }

  /**
   * Renames and/or changes scopes. Narrowing revokes, in the same transaction, every live token that
   * holds a scope the app no longer has: from the next request no token does more than the app may.
   * Tokens within the new scopes keep working; widening changes no token (new ones get the new scopes).
   */
  async function update(developerId: string, appId: string, changes: AppChanges): Promise<AppRecord> {
    const name = changes.name === undefined ? undefined : appName(changes.name);
    const scopes = changes.scopes === undefined ? undefined : appScopes(changes.scopes);
    const now = clock.now().toISOString();
    return transact(async ({ apps, oauth }) => {
      const row = await owned(apps, developerId, appId);
      const next = { ...row, ...(name !== undefined ? { name } : {}), ...(scopes !== undefined ? { scopes: formatScopes(scopes) } : {}) };
      await apps.updateApp(developerId, appId, { name: next.name, scopes: next.scopes });
      const removed = parseScopeList(row.scopes).filter((scope) => !(scopes ?? []).includes(scope as Scope));
      if (scopes !== undefined && removed.length > 0) await oauth.revokeTokensOfApp(appId, now, removed);
      return present(next, now);
    });
  }

  /**
   * A new secret, shown once. Without grace (`previousSecretExpiresIn` 0 or absent) the old secret stops
   * at once and so do the app's tokens (revoked in the same transaction): an immediate rotation is the
   * answer to a secret that may have leaked, and a token got with it must stop too. With grace the old
   * secret works strictly before now + grace (at most 24 h) and tokens live out their hour, so a deployment
   * can roll. Only one previous secret is kept: rotating again ends the earlier one's grace at once.
   */
  async function rotateSecret(developerId: string, appId: string, input: { previousSecretExpiresIn?: number | undefined }, context: AuditContext): Promise<AppWithSecret> {
    const grace = input.previousSecretExpiresIn ?? 0;
    if (!Number.isInteger(grace) || grace < 0 || grace > MAX_SECRET_GRACE_SECONDS) {
      throw new AppError('VALIDATION_ERROR', `previousSecretExpiresIn must be a whole number of seconds from 0 to ${MAX_SECRET_GRACE_SECONDS} (24 hours).`, { field: 'previousSecretExpiresIn' });
    }
    const clientSecret = newSecret('svc_cs');
    const at = clock.now();
    const now = at.toISOString();
    return transact(async ({ apps, oauth, audit: auditRepo }) => {
      const row = await owned(apps, developerId, appId);
      const rotation = {
        secretHash: hashSecret(clientSecret),
        previousHash: grace > 0 ? row.client_secret_hash : null,
        previousExpiresAt: grace > 0 ? new Date(at.getTime() + grace * 1000).toISOString() : null,
        rotatedAt: now,
      };
      if (!(await apps.rotateSecret(developerId, appId, row.client_secret_hash, rotation))) {
        throw new AppError('CONFLICT', 'The secret was rotated by another request at the same time. Rotate again if you still need a new one.');
      }
      if (grace === 0) await oauth.revokeTokensOfApp(appId, now);
      await audit.record(context, { action: 'app.secret_rotated', developerId, target: appId, details: { name: row.name, graceSeconds: grace } }, { audit: auditRepo });
      const next: AppsTable = {
        ...row,
        client_secret_hash: rotation.secretHash,
        previous_secret_hash: rotation.previousHash,
        previous_secret_expires_at: rotation.previousExpiresAt,
        secret_rotated_at: now,
      };
      return { ...present(next, now), clientSecret };
    });
  }

  /** Deletes the app and its access tokens in one transaction: a token of the app is refused from the next request. */
  async function remove(developerId: string, appId: string): Promise<{ id: string; deleted: true }> {
    return transact(async ({ apps, oauth }) => {
      await owned(apps, developerId, appId);
      await oauth.deleteTokensOfApp(appId);
      if (!(await apps.deleteApp(developerId, appId))) throw appNotFound();
      return { id: appId, deleted: true as const };
    });
  }

  return { list, get, create, update, rotateSecret, remove };
}

export type AppsService = ReturnType<typeof createAppsService>;
