import type { Clock } from './clock.js';

/**
 * A per-node cache of values read from the database, each entry labelled with tags
 * (`org:<id>`, `tool:<id>`, `key:<id>`…) naming what it was built from. A write that
 * changes one of those things invalidates its tag after it commits: on this node at
 * once, and on every other node through the invalidation bus (Redis pub/sub,
 * forms/cache-bus.ts) when one is attached. The key cache, the tool cache and the public
 * form cache (forms/form-cache.ts, by slug) are all built on it. `ttlMs` bounds how
 * long an entry can live should an invalidation ever be lost (a node that reconnects to
 * Redis drops everything instead: `resync`).
 *
 * Every invalidation bumps a generation, and a load that started before it does not
 * store what it read (it may have read the old state).
 * Loads that answer `undefined` (unknown key, missing agent) are not cached: a value that
 * appears later needs no invalidation to be seen.
 */
export interface TagInvalidation {
  tags?: string[];
  all?: boolean;
}

export interface TagInvalidationBus {
  publish(message: TagInvalidation): void;
}

export interface Loaded<V> {
  value: V;
  tags: readonly string[];
}

interface Entry<V> {
  value: V;
  tags: readonly string[];
  expiresAt: number;
}

export interface CacheOptions {
  clock: Clock;
  ttlMs?: number;
  maxEntries?: number;
  /** Told of each lookup, for /metrics: a hit when `peek` finds a fresh value, a miss when `get` loads (or joins a load). */
  onLookup?: ((hit: boolean) => void) | undefined;
}

export function createTaggedCache<V>(options: CacheOptions) {
  const onLookup = options.onLookup ?? (() => {});
  const { clock } = options;
  const ttlMs = options.ttlMs ?? 60_000;
  const maxEntries = options.maxEntries ?? 10_000;
  const entries = new Map<string, Entry<V>>();
  /** Which keys carry a tag: an invalidation touches only them. */
  const byTag = new Map<string, Set<string>>();
  const loading = new Map<string, Promise<V | undefined>>();
  let generation = 0;
  let bus: TagInvalidationBus | undefined;

  function drop(key: string): void {
    const entry = entries.get(key);
    if (!entry) return;
    entries.delete(key);
    for (const tag of entry.tags) {
      const keys = byTag.get(tag);
      keys?.delete(key);
      if (keys?.size === 0) byTag.delete(tag);
    }
  }

  function store(key: string, loaded: Loaded<V>): void {
    drop(key);
    if (entries.size >= maxEntries) {
      const oldest = entries.keys().next();
      if (!oldest.done) drop(oldest.value);
    }
    entries.set(key, { value: loaded.value, tags: loaded.tags, expiresAt: clock.now().getTime() + ttlMs });
    for (const tag of loaded.tags) {
      let keys = byTag.get(tag);
      if (!keys) byTag.set(tag, (keys = new Set()));
      keys.add(key);
    }
  }

  /** The fresh cached value, or undefined: lets a hit skip a promise. */
  function peek(key: string): V | undefined {
    const entry = entries.get(key);
    if (!entry) return undefined;
    if (entry.expiresAt > clock.now().getTime()) {
      onLookup(true);
      return entry.value;
    }
    drop(key);
    return undefined;
  }

  async function loadAndStore(key: string, load: () => Promise<Loaded<V> | undefined>): Promise<V | undefined> {
    const startedAt = generation;
    const loaded = await load();
    if (loaded === undefined) return undefined;
    if (generation === startedAt) store(key, loaded);
    return loaded.value;
  }

  /** The cached value, or what `load` answers (stored unless undefined or invalidated meanwhile); one load per key at a time. */
  function get(key: string, load: () => Promise<Loaded<V> | undefined>): Promise<V | undefined> {
    const hit = peek(key);
    if (hit !== undefined) return Promise.resolve(hit);
    onLookup(false);
    let pending = loading.get(key);
    if (!pending) {
      const started = loadAndStore(key, load);
      pending = started.finally(() => {
        if (loading.get(key) === pending) loading.delete(key);
      });
      loading.set(key, pending);
    }
    return pending;
  }

  /** Applies an invalidation on this node only (what the bus calls for other nodes' messages). */
  function applyLocally(message: TagInvalidation): void {
    generation++;
    // Requests from now on must not join a load that may have read the old state.
    loading.clear();
    if (message.all) {
      entries.clear();
      byTag.clear();
      return;
    }
    for (const tag of message.tags ?? []) {
      const keys = byTag.get(tag);
      if (keys) for (const key of [...keys]) drop(key);
    }
  }

  function invalidate(...tags: string[]): void {
    if (tags.length === 0) return;
    applyLocally({ tags });
    bus?.publish({ tags });
  }

  return {
    get,
    peek,
    invalidate,
    invalidateAll: () => {
      applyLocally({ all: true });
      bus?.publish({ all: true });
    },
    applyLocally,
    attachBus: (next: TagInvalidationBus) => {
      bus = next;
    },
    size: () => entries.size,
  };
}

export type TaggedCache<V> = ReturnType<typeof createTaggedCache<V>>;
