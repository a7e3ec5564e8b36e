import type { Clock } from '../lib/clock.js';
import { createTaggedCache, type CacheOptions, type TaggedCache } from '../lib/tagged-cache.js';
import type { OrgChangeFeed } from './changes.js';

/**
 * Org API keys and agent keys that were found valid, by the SHA-256 of the presented key
 * (never the key itself), so an authenticated request costs no query. Only valid keys are
 * cached: an unknown or revoked key is read again each time, and a key created a moment ago
 * is found at once. Revoking or deleting a key drops it at once on this node (the key
 * services invalidate `keyTag`) and on the others through the invalidation bus; deleting an
 * agent drops its org's keys (the org change feed). The TTL bounds staleness should an
 * invalidation be lost.
 */
export interface CachedKey {
  id: string;
  orgId: string;
  /** Agent keys only. */
  agentId?: string;
  /** The key's last four characters: how the audit log names it (never more of it). */
  lastFour: string;
  /** Refreshed here when the key's `last_used_at` is written (at most once a minute). */
  lastUsedAt: string | null;
}

export type KeyCache = TaggedCache<CachedKey>;

export const keyTag = (keyId: string) => `key:${keyId}`;
export const keyOrgTag = (orgId: string) => `org:${orgId}`;

export function createKeyCache(deps: { clock: Clock; orgChanges: Pick<OrgChangeFeed, 'subscribe'>; ttlMs?: number; onLookup?: CacheOptions['onLookup'] }): KeyCache {
  const cache = createTaggedCache<CachedKey>({ clock: deps.clock, onLookup: deps.onLookup, ...(deps.ttlMs !== undefined ? { ttlMs: deps.ttlMs } : {}) });
  deps.orgChanges.subscribe((orgId) => cache.invalidate(keyOrgTag(orgId)));
  return cache;
}

/**
 * A key by its hash through the cache (when there is one). `find` reads the row; a row
 * that is missing or revoked answers undefined and is not cached.
 */
export async function lookupKey(
  cache: KeyCache | undefined,
  hash: string,
  find: () => Promise<(CachedKey & { revoked: boolean }) | undefined>,
): Promise<CachedKey | undefined> {
  // A cached key (nearly every request) costs a lookup and nothing else.
  const cached = cache?.peek(hash);
  if (cached !== undefined) return cached;
  const load = async () => {
    const row = await find();
    if (!row || row.revoked) return undefined;
    const { revoked: _revoked, ...key } = row;
    return { value: key, tags: [keyTag(key.id), keyOrgTag(key.orgId)] };
  };
  if (!cache) return (await load())?.value;
  return cache.get(hash, load);
}
