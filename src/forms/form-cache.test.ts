import { describe, expect, it } from 'vitest';
import { TestClock } from '../../test/support/context.js';
import { createFormCache } from './form-cache.js';

interface Item {
  orgId: string;
  slug: string;
  version: number;
}

function setup(options: { ttlMs?: number; maxEntries?: number } = {}) {
  const clock = new TestClock();
  const store = new Map<string, Item>();
  let loads = 0;
  let gate: Promise<void> | undefined;
  const cache = createFormCache<Item>({
    clock,
    ...options,
    load: async (slug) => {
      loads++;
      const value = store.get(slug);
      if (gate) await gate;
      return value ? { ...value } : null;
    },
  });
  return {
    clock,
    store,
    cache,
    loads: () => loads,
    hold: () => {
      let release!: () => void;
      gate = new Promise((resolve) => (release = resolve));
      return () => {
        gate = undefined;
        release();
      };
    },
  };
}

describe('form cache', () => {
  it('loads once per slug, caches misses too, and expires after the TTL', async () => {
    const { cache, store, clock, loads } = setup({ ttlMs: 1000 });
    store.set('a', { orgId: 'o1', slug: 'a', version: 1 });
    const [x, y] = await Promise.all([cache.get('a'), cache.get('a')]);
    expect(x).toEqual(y);
    expect(await cache.get('missing')).toBeNull();
    expect(await cache.get('missing')).toBeNull();
    expect(loads()).toBe(2);
    expect(cache.peek('a')).toMatchObject({ version: 1 });
    store.set('a', { orgId: 'o1', slug: 'a', version: 2 });
    expect((await cache.get('a'))!.version).toBe(1);
    clock.advance(1001);
    expect(cache.peek('a')).toBeUndefined();
    expect((await cache.get('a'))!.version).toBe(2);
  });

  it('drops by slug, by org and entirely', async () => {
    const { cache, store } = setup();
    store.set('a', { orgId: 'o1', slug: 'a', version: 1 });
    store.set('b', { orgId: 'o1', slug: 'b', version: 1 });
    store.set('c', { orgId: 'o2', slug: 'c', version: 1 });
    await Promise.all(['a', 'b', 'c', 'new'].map((slug) => cache.get(slug)));
    expect(cache.size()).toBe(4);
    cache.invalidateSlugs('a');
    expect(cache.peek('a')).toBeUndefined();
    cache.invalidateOrg('o1');
    expect(cache.peek('b')).toBeUndefined();
    expect(cache.peek('c')).toBeDefined();
    cache.invalidateAll();
    expect(cache.size()).toBe(0);
  });

  it('never stores what a load read before an invalidation that happened during it', async () => {
    const { cache, store, hold, loads } = setup();
    store.set('a', { orgId: 'o1', slug: 'a', version: 1 });
    const release = hold();
    const stale = cache.get('a');
    store.set('a', { orgId: 'o1', slug: 'a', version: 2 });
    cache.invalidateSlugs('a');
    // A request after the invalidation does not join the stale load.
    const fresh = cache.get('a');
    release();
    expect((await stale)!.version).toBe(1);
    expect((await fresh)!.version).toBe(2);
    expect(loads()).toBe(2);
    expect((await cache.get('a'))!.version).toBe(2);
  });

  it('publishes invalidations to the bus and applies received ones without echo', async () => {
    const { cache, store } = setup();
    const published: unknown[] = [];
    cache.attachBus({ publish: (message) => published.push(message) });
    store.set('a', { orgId: 'o1', slug: 'a', version: 1 });
    await cache.get('a');
    cache.invalidateOrg('o1');
    expect(published).toEqual([{ orgId: 'o1' }]);
    await cache.get('a');
    cache.applyLocally({ slugs: ['a'] });
    expect(cache.peek('a')).toBeUndefined();
    expect(published).toHaveLength(1);
  });

  it('holds at most maxEntries, serving the newest from memory and loading the dropped ones again', async () => {
    const { cache, store, loads } = setup({ maxEntries: 10 });
    for (let i = 0; i < 50; i++) store.set(`slug-${i}`, { orgId: 'o1', slug: `slug-${i}`, version: 1 });
    for (let i = 0; i < 50; i++) await cache.get(`slug-${i}`);
    expect(loads()).toBe(50);
    expect(cache.size()).toBe(10);
    // The ten newest are held: served without a load.
    for (let i = 40; i < 50; i++) expect(await cache.get(`slug-${i}`)).toMatchObject({ slug: `slug-${i}` });
    expect(loads()).toBe(50);
    // The oldest made room for them: asking again loads it, and it takes the place of the oldest held.
    expect(cache.peek('slug-0')).toBeUndefined();
    expect(await cache.get('slug-0')).toMatchObject({ slug: 'slug-0' });
    expect(loads()).toBe(51);
    expect(cache.size()).toBe(10);
    expect(cache.peek('slug-40')).toBeUndefined();
    expect(cache.peek('slug-0')).toMatchObject({ slug: 'slug-0' });
  });
});
