import { describe, expect, it } from 'vitest';
import { TestClock } from '../../test/support/context.js';
import { createTaggedCache, type Loaded } from './tagged-cache.js';

function deferred<T>() {
  let resolve!: (value: T) => void;
  const promise = new Promise<T>((r) => (resolve = r));
  return { promise, resolve };
}

describe('tagged cache', () => {
  const loaded = (value: string, ...tags: string[]): Loaded<string> => ({ value, tags });

  it('loads once, then answers from memory until a tag it carries is invalidated', async () => {
    const cache = createTaggedCache<string>({ clock: new TestClock() });
    let loads = 0;
    const load = async () => loaded(`v${++loads}`, 'org:a', 'tool:t1');
    expect(await cache.get('k', load)).toBe('v1');
    expect(await cache.get('k', load)).toBe('v1');
    expect(cache.peek('k')).toBe('v1');
    cache.invalidate('tool:other');
    expect(await cache.get('k', load)).toBe('v1');
    cache.invalidate('tool:t1');
    expect(cache.peek('k')).toBeUndefined();
    expect(await cache.get('k', load)).toBe('v2');
    cache.invalidate('org:a');
    expect(await cache.get('k', load)).toBe('v3');
    cache.invalidateAll();
    expect(cache.size()).toBe(0);
  });

  it('shares one load between concurrent callers', async () => {
    const cache = createTaggedCache<string>({ clock: new TestClock() });
    const gate = deferred<Loaded<string>>();
    let loads = 0;
    const load = () => {
      loads++;
      return gate.promise;
    };
    const both = Promise.all([cache.get('k', load), cache.get('k', load)]);
    gate.resolve(loaded('v', 'x'));
    expect(await both).toEqual(['v', 'v']);
    expect(loads).toBe(1);
  });

  it('does not store what a load read before an invalidation, and does not let new callers join it', async () => {
    const cache = createTaggedCache<string>({ clock: new TestClock() });
    const stale = deferred<Loaded<string>>();
    const first = cache.get('k', () => stale.promise);
    cache.invalidate('org:a');
    // A caller arriving after the invalidation starts its own load.
    const second = cache.get('k', async () => loaded('fresh', 'org:a'));
    stale.resolve(loaded('stale', 'org:a'));
    expect(await first).toBe('stale');
    expect(await second).toBe('fresh');
    expect(cache.peek('k')).toBe('fresh');
  });

  it('does not cache a load that answers undefined, nor a failed one', async () => {
    const cache = createTaggedCache<string>({ clock: new TestClock() });
    expect(await cache.get('k', async () => undefined)).toBeUndefined();
    await expect(cache.get('k', async () => { throw new Error('boom'); })).rejects.toThrow('boom');
    expect(await cache.get('k', async () => loaded('now', 'x'))).toBe('now');
  });

  it('drops an entry after its TTL and the oldest entry past maxEntries', async () => {
    const clock = new TestClock();
    const cache = createTaggedCache<string>({ clock, ttlMs: 1000, maxEntries: 2 });
    await cache.get('a', async () => loaded('A', 'x'));
    clock.advance(1000);
    expect(cache.peek('a')).toBeUndefined();
    await cache.get('a', async () => loaded('A2', 'x'));
    await cache.get('b', async () => loaded('B', 'x'));
    await cache.get('c', async () => loaded('C', 'x'));
    expect(cache.peek('a')).toBeUndefined();
    expect(cache.size()).toBe(2);
    // The evicted entry's tags no longer point at it: invalidating them drops only the others.
    cache.invalidate('x');
    expect(cache.size()).toBe(0);
  });

  it('publishes its invalidations on an attached bus, and applies others\' without publishing them back', async () => {
    const cache = createTaggedCache<string>({ clock: new TestClock() });
    const published: unknown[] = [];
    cache.attachBus({ publish: (message) => published.push(message) });
    await cache.get('k', async () => loaded('v', 'key:1'));
    cache.applyLocally({ tags: ['key:1'] });
    expect(cache.peek('k')).toBeUndefined();
    expect(published).toEqual([]);
    cache.invalidate('key:2');
    cache.invalidateAll();
    expect(published).toEqual([{ tags: ['key:2'] }, { all: true }]);
  });
});
