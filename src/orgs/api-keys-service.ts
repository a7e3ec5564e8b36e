import type { OrgApiKeysTable } from '../db/tables.js';
import type { Transact } from '../db/transaction-runner.js';
import { decodeCursor, toPage } from '../http/cursor.js';
import { isoNow, type Clock } from '../lib/clock.js';
import { hashSecret } from '../lib/hashing.js';
import { apiKeyNotFound } from './errors.js';
import { newId, newSecret } from '../lib/ids.js';
import { keyTag, type KeyCache } from './key-cache.js';
import type { OrgsRepo } from './repo.js';
import type { ApiKey, CreatedApiKey } from './schema.js';
import { requiredText } from '../http/required-text.js';
import { refuseAtOrgLimit } from '../http/tenant-limits.js';
import type { AuditContext } from '../audit/context.js';
import type { AuditRepo } from '../audit/repo.js';
import type { AuditLog } from '../audit/service.js';

/** An org API key as the API shows it: never the secret, only its last four characters. */
export function presentApiKey(row: OrgApiKeysTable): ApiKey {
  return { id: row.id, name: row.name, lastFour: row.last_four, createdAt: row.created_at, lastUsedAt: row.last_used_at, revokedAt: row.revoked_at };
}

/** Makes a key and stores only its SHA-256: the caller shows `key` once. */
export async function issueApiKey(repo: Pick<OrgsRepo, 'insertApiKey'>, orgId: string, name: string, now: string): Promise<CreatedApiKey> {
  const key = newSecret('svc_org');
  const row: OrgApiKeysTable = {
    id: newId('key'),
    org_id: orgId,
    name,
    key_hash: hashSecret(key),
    last_four: key.slice(-4),
    created_at: now,
    last_used_at: null,
    revoked_at: null,
  };
  await repo.insertApiKey(row);
  return { ...presentApiKey(row), key };
}

/** An org's API keys. A new one is counted against the org's limit of active keys and inserted in one transaction. */
export function createApiKeysService(deps: { repo: OrgsRepo; transact: Transact<{ orgs: OrgsRepo; audit: AuditRepo }>; clock: Clock; keyCache?: KeyCache | undefined; audit: AuditLog }) {
  const { repo, transact, clock, keyCache, audit } = deps;

  async function get(orgId: string, id: string): Promise<ApiKey> {
    const row = await repo.findApiKey(orgId, id);
    if (!row) throw apiKeyNotFound();
    return presentApiKey(row);
  }

  return {
    create: (orgId: string, input: { name: string }, context: AuditContext) => {
      const name = requiredText(input.name, 'name', 'a name for the key');
      return transact(async (repos) => {
        await refuseAtOrgLimit(repos, orgId, 'apiKeys', () => repos.orgs.countActiveApiKeys(orgId));
        const created = await issueApiKey(repos.orgs, orgId, name, isoNow(clock));
        await audit.record(context, { action: 'api_key.created', orgId, target: created.id, details: { name, lastFour: created.lastFour } }, repos);
        return created;
      });
    },

    list: async (orgId: string, query: { limit?: number | undefined; cursor?: string | undefined }) => {
      const limit = query.limit ?? 20;
      return toPage(
        (await repo.listApiKeys(orgId, limit, decodeCursor(query.cursor))).map((row) => ({ ...row, createdAt: row.created_at })),
        limit,
        presentApiKey,
      );
    },

    get,

    /** Idempotent: revoking a revoked key keeps its first revocation time. */
    revoke: async (orgId: string, id: string, context: AuditContext): Promise<ApiKey> => {
      const before = await get(orgId, id);
      await repo.revokeApiKey(orgId, id, isoNow(clock));
      // Refused from the next request on, on every node.
      keyCache?.invalidate(keyTag(id));
      if (before.revokedAt === null) await audit.record(context, { action: 'api_key.revoked', orgId, target: id, details: { name: before.name, lastFour: before.lastFour } });
      return get(orgId, id);
    },

    remove: async (orgId: string, id: string, context: AuditContext): Promise<{ id: string; deleted: true }> => {
      const before = await repo.findApiKey(orgId, id);
      const result = await repo.deleteApiKey(orgId, id);
      if (!before || Number(result.numDeletedRows) === 0) throw apiKeyNotFound();
      keyCache?.invalidate(keyTag(id));
      await audit.record(context, { action: 'api_key.revoked', orgId, target: id, details: { name: before.name, lastFour: before.last_four, deleted: true } });
      return { id, deleted: true };
    },
  };
}

export type ApiKeysService = ReturnType<typeof createApiKeysService>;
