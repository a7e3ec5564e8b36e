import type { Clock } from '../lib/clock.js';
import { createTaggedCache, type TagInvalidation } from '../lib/tagged-cache.js';

/**
 * The in-process cache of public forms by slug, shared by the config endpoint and
 * submit: a hot form costs no query at all. Entries are dropped when an operator
 * changes the form, its custom fields, its brand or its org (`invalidate*`), on
 * every node when an invalidation bus (Redis pub/sub) is attached, and after `ttlMs`
 * at the latest, which bounds staleness should an invalidation ever be lost.
 *
 * Missing and inactive slugs are cached too (as null), so a flood of requests for
 * a slug that does not exist costs one query per TTL, not one per request.
 */
export interface CachedForm {
  orgId: string;
  slug: string;
}

export interface InvalidationMessage {
  slugs?: string[];
  orgId?: string;
  all?: boolean;
}

export interface InvalidationBus {
  publish(message: InvalidationMessage): void;
}

export interface FormCacheOptions<T> {
  load(slug: string): Promise<T | null>;
  clock: Clock;
  ttlMs?: number;
  maxEntries?: number;
  /** Each lookup, for /metrics (lib/tagged-cache.ts). */
  onLookup?: ((hit: boolean) => void) | undefined;
}

const slugTag = (slug: string) => `slug:${slug}`;
const orgTag = (orgId: string) => `org:${orgId}`;

/** A form invalidation in the tagged cache's terms: the slugs' entries, and every entry of the org. */
function asTags(message: InvalidationMessage): TagInvalidation {
  if (message.all) return { all: true };
  return { tags: [...(message.slugs ?? []).map(slugTag), ...(message.orgId !== undefined ? [orgTag(message.orgId)] : [])] };
}

/**
 * The tagged cache (lib/tagged-cache.ts: TTL, size bound, one load per key, no storing a load
 * that an invalidation overtook) keyed by slug, each entry tagged with its slug and its org.
 * Invalidations keep their own shape on the bus (slugs, org, all).
 */
export function createFormCache<T extends CachedForm>(options: FormCacheOptions<T>) {
  const { load } = options;
  const cache = createTaggedCache<T | null>(options);
  let bus: InvalidationBus | undefined;

  async function loadTagged(slug: string) {
    const value = await load(slug);
    return { value, tags: value ? [slugTag(slug), orgTag(value.orgId)] : [slugTag(slug)] };
  }

  /** The cached value when fresh (null: known missing), or undefined when it must be loaded: lets hits skip a promise. */
  const peek = (slug: string): T | null | undefined => cache.peek(slug);

  /** One load per slug at a time, however many requests wait for it; a load always answers a value or null. */
  const get = async (slug: string): Promise<T | null> => (await cache.get(slug, () => loadTagged(slug))) ?? null;

  /** Applies an invalidation on this node only (what the bus calls for messages from other nodes). */
  const applyLocally = (message: InvalidationMessage): void => cache.applyLocally(asTags(message));

  function invalidate(message: InvalidationMessage): void {
    applyLocally(message);
    bus?.publish(message);
  }

  return {
    get,
    peek,
    /** Drops these slugs (a form was created, edited, renamed or deleted). */
    invalidateSlugs: (...slugs: string[]) => invalidate({ slugs }),
    /** Drops every form of an org (its custom fields, agents/brands or settings changed). */
    invalidateOrg: (orgId: string) => invalidate({ orgId }),
    invalidateAll: () => invalidate({ all: true }),
    applyLocally,
    attachBus: (next: InvalidationBus) => {
      bus = next;
    },
    size: cache.size,
  };
}

export type FormCache<T extends CachedForm> = ReturnType<typeof createFormCache<T>>;
