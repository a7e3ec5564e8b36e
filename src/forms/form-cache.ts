import type { Clock } from '../lib/clock.js';

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

interface Entry<T> {
  value: T | null;
  orgId: string | null;
  expiresAt: number;
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
}

export function createFormCache<T extends CachedForm>(options: FormCacheOptions<T>) {
  const { load, clock } = options;
  const ttlMs = options.ttlMs ?? 60_000;
  const maxEntries = options.maxEntries ?? 10_000;
  const entries = new Map<string, Entry<T>>();
  const loading = new Map<string, Promise<T | null>>();
  /** Bumped by every invalidation: a load that started before one must not store what it read. */
  let generation = 0;
  let bus: InvalidationBus | undefined;

  async function loadAndStore(slug: string): Promise<T | null> {
    const startedAt = generation;
    const value = await load(slug);
    if (generation === startedAt) {
      if (entries.size >= maxEntries) {
        const oldest = entries.keys().next();
        if (!oldest.done) entries.delete(oldest.value);
      }
      entries.set(slug, { value, orgId: value?.orgId ?? null, expiresAt: clock.now().getTime() + ttlMs });
    }
    return value;
  }

  /** The cached value when fresh (null: known missing), or undefined when it must be loaded: lets hits skip a promise. */
  function peek(slug: string): T | null | undefined {
    const entry = entries.get(slug);
    return entry && entry.expiresAt > clock.now().getTime() ? entry.value : undefined;
  }

  function get(slug: string): Promise<T | null> {
    const hit = peek(slug);
    if (hit !== undefined) return Promise.resolve(hit);
    // One load per slug at a time, however many requests wait for it.
    let pending = loading.get(slug);
    if (!pending) {
      const started = loadAndStore(slug);
      pending = started.finally(() => {
        if (loading.get(slug) === pending) loading.delete(slug);
      });
      loading.set(slug, pending);
    }
    return pending;
  }

  /** Applies an invalidation on this node only (what the bus calls for messages from other nodes). */
  function applyLocally(message: InvalidationMessage): void {
    generation++;
    // Requests arriving from now on must not join a load that may have read the old state.
    loading.clear();
    if (message.all) {
      entries.clear();
      return;
    }
    for (const slug of message.slugs ?? []) entries.delete(slug);
    if (message.orgId !== undefined) {
      for (const [slug, entry] of entries) if (entry.orgId === message.orgId) entries.delete(slug);
    }
  }

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
    size: () => entries.size,
  };
}

export type FormCache<T extends CachedForm> = ReturnType<typeof createFormCache<T>>;
