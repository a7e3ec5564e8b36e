import type { AppsTable } from '../db/tables.js';
import { AppError } from '../http/errors.js';
import { hashSecret } from '../lib/hashing.js';
import { newId, newSecret } from '../lib/ids.js';
import { refuseAtDeveloperLimit, type LimitLock } from '../http/tenant-limits.js';
import { SCOPES, formatScopes, isScope, type Scope } from '../oauth/scopes.js';
import type { AppsRepo } from './apps-repo.js';

/**
 * The rules of an app, one copy for every way one is made or changed: the CLI's `app create`
 * (service.ts) and the portal's `/api/dev/apps` (apps-service.ts).
 */

export const APP_NAME_MAX_LENGTH = 100;

/** The longest rotation grace a client may ask for: 24 hours, in seconds (issue 20). */
export const MAX_SECRET_GRACE_SECONDS = 86_400;

/** An app's name, trimmed: 1 to 100 characters. */
export function appName(input: string): string {
  const name = input.trim();
  if (name === '' || name.length > APP_NAME_MAX_LENGTH) {
    throw new AppError('VALIDATION_ERROR', `Enter an app name of 1 to ${APP_NAME_MAX_LENGTH} characters.`, { field: 'name' });
  }
  return name;
}

/** The scopes an app may be granted: at least one, each among SCOPES; duplicates dropped, in SCOPES' order. */
export function appScopes(requested: readonly string[]): Scope[] {
  if (requested.length === 0 || !requested.every(isScope)) {
    throw new AppError('VALIDATION_ERROR', `Scopes must be among: ${SCOPES.join(' ')} (at least one).`, { field: 'scopes' });
  }
  return SCOPES.filter((scope) => requested.includes(scope));
}

/** A new app's row and its client secret, which is shown once: only its hash is stored. */
export function newAppRow(input: { developerId: string; name: string; scopes: readonly Scope[]; now: string }): { row: AppsTable; clientSecret: string } {
  const clientSecret = newSecret('svc_cs');
  return {
    clientSecret,
    row: {
      id: newId('app'),
      developer_id: input.developerId,
      name: input.name,
      client_secret_hash: hashSecret(clientSecret),
      scopes: formatScopes(input.scopes),
      created_at: input.now,
      secret_rotated_at: null,
      disabled_at: null,
      previous_secret_hash: null,
      previous_secret_expires_at: null,
      last_token_at: null,
    },
  };
}

/**
 * Inserts a new app in the caller's unit of work, counted against its developer's limit first (`developers`
 * locks the developer's row): 409 LIMIT_REACHED when they have as many apps as it allows.
 */
export async function insertNewApp(repos: { apps: Pick<AppsRepo, 'countApps' | 'insertApp'>; developers: LimitLock }, row: AppsTable): Promise<void> {
  await refuseAtDeveloperLimit(repos, row.developer_id, 'apps', () => repos.apps.countApps(row.developer_id));
  await repos.apps.insertApp(row);
}
