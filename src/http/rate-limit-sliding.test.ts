import pino from 'pino';
import { afterAll, describe, expect, it } from 'vitest';
import { TestClock } from '../../test/support/context.js';
import { freePort } from '../../test/support/net.js';
import { randomBase62 } from '../lib/ids.js';
import { closeRedis, createRedisConnection, waitUntilReady, type Redis } from '../lib/redis.js';
import { createMemoryRateLimitStore } from './rate-limit-memory.js';
import { createRedisRateLimitStore, createRedisSlidingStore } from './rate-limit-redis.js';
import { createMemorySlidingStore } from './rate-limit-sliding.js';
import { createRateLimiter, type RateLimitDecision, type RateLimitRule, type SlidingWindowStore } from './rate-limit.js';

const MINUTE = 60_000;
const WINDOW = 15 * MINUTE;
const RULE: RateLimitRule = { name: 'signin', limit: 10, windowMs: WINDOW, message: 'Too many tries.', sliding: true };
const silent = pino({ level: 'silent' });

/** A clock `before` ms before the edge of a fixed window of `windowMs` (epoch-aligned, as fixed windows are). */
function clockBeforeEdge(before: number, windowMs = WINDOW): TestClock {
  const now = Date.now();
  return new TestClock(now - (now % windowMs) + 2 * windowMs - before);
}

/** A small seeded generator (mulberry32), so a failing pattern is the same on every run. */
function random(seed: number): () => number {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 2 ** 32;
  };
}

/** The rule itself, by definition: a try at `t` is allowed when fewer than `limit` allowed tries lie in (t − window, t]. */
function allowedByDefinition(times: readonly number[], limit: number, windowMs: number): boolean[] {
  const allowed: number[] = [];
  return times.map((t) => {
    const inWindow = allowed.filter((a) => a > t - windowMs).length;
    if (inWindow >= limit) return false;
    allowed.push(t);
    return true;
  });
}

/** The most allowed tries any span of `windowMs` holds. */
function busiestWindow(allowedTimes: readonly number[], windowMs: number): number {
  let most = 0;
  for (let i = 0, start = 0; i < allowedTimes.length; i++) {
    while (allowedTimes[start]! <= allowedTimes[i]! - windowMs) start++;
    most = Math.max(most, i - start + 1);
  }
  return most;
}

interface StoreUnderTest {
  name: string;
  /** A store of its own, not sharing keys with any other test's. */
  make(): Promise<SlidingWindowStore>;
}

const stores: StoreUnderTest[] = [{ name: 'memory', make: async () => createMemorySlidingStore() }];
const redisUrl = process.env.TEST_REDIS_URL;
const connections: Redis[] = [];
afterAll(async () => {
  await Promise.all(connections.map(closeRedis));
});
async function connect(): Promise<Redis> {
  const redis = createRedisConnection(redisUrl!, 'test');
  connections.push(redis);
  await waitUntilReady(redis, 3000);
  return redis;
}
if (redisUrl) {
  stores.push({ name: 'redis', make: async () => createRedisSlidingStore(await connect(), { prefix: `test:${randomBase62(8)}:`, fallback: createMemorySlidingStore(), log: silent }) });
}

describe.each(stores)('sliding-window limits in $name', ({ make }) => {
  it('refuses 10 tries just after a window edge when 10 came just before it, and says when a slot frees', async () => {
    const clock = clockBeforeEdge(5_000);
    const limiter = createRateLimiter({ store: createMemoryRateLimitStore(), sliding: await make(), clock });
    const first = clock.now().getTime();
    const before: RateLimitDecision[] = [];
    for (let i = 0; i < 10; i++) {
      before.push(await limiter.check(RULE, 'account'));
      clock.advance(100);
    }
    expect(before.map((d) => d.allowed)).toEqual(Array(10).fill(true));
    expect(before.map((d) => d.remaining)).toEqual([9, 8, 7, 6, 5, 4, 3, 2, 1, 0]);
    // Across the edge of the fixed window the old limiter used: a new fixed window would start from zero here.
    clock.advance(10_000 - 1000);
    const after: RateLimitDecision[] = [];
    for (let i = 0; i < 10; i++) {
      after.push(await limiter.check(RULE, 'account'));
      clock.advance(100);
    }
    expect(after.map((d) => d.allowed)).toEqual(Array(10).fill(false));
    // Retry-After: until the first try leaves the window, rounded up to whole seconds.
    const now = clock.now().getTime() - 100;
    expect(after.at(-1)!).toMatchObject({ remaining: 0, limit: 10, resetSeconds: Math.ceil((first + WINDOW - now) / 1000) });
    // Another key is counted apart.
    expect((await limiter.check(RULE, 'other account')).allowed).toBe(true);
  });

  it('frees exactly one slot when the oldest try leaves the window, not a second earlier', async () => {
    const clock = clockBeforeEdge(5_000);
    const limiter = createRateLimiter({ store: createMemoryRateLimitStore(), sliding: await make(), clock });
    for (let i = 0; i < 10; i++) {
      await limiter.check(RULE, 'account');
      clock.advance(60_000);
    }
    // The tries were at 0, 1, …, 9 minutes; it is now 10 minutes: the first frees at 15.
    const refused = await limiter.check(RULE, 'account');
    expect(refused).toMatchObject({ allowed: false, resetSeconds: 5 * 60 });
    clock.advance(refused.resetSeconds * 1000 - 1000);
    expect(await limiter.check(RULE, 'account')).toMatchObject({ allowed: false, resetSeconds: 1 });
    clock.advance(1000);
    expect(await limiter.check(RULE, 'account')).toMatchObject({ allowed: true, remaining: 0 });
    // One slot, not the window's worth: the next frees a minute later, when the second try leaves.
    expect(await limiter.check(RULE, 'account')).toMatchObject({ allowed: false, resetSeconds: 60 });
  });

  it('allows exactly what the definition allows for tries spread over hours, so no span of 15 minutes holds more than 10', async () => {
    const clock = clockBeforeEdge(0);
    const store = await make();
    const limiter = createRateLimiter({ store: createMemoryRateLimitStore(), sliding: store, clock });
    const next = random(18);
    const start = clock.now().getTime();
    const times: number[] = [];
    const decisions: boolean[] = [];
    // 600 tries, in bursts and lulls: gaps from a millisecond to 4 minutes, often landing on window edges.
    for (let i = 0; i < 600; i++) {
      const gap = next() < 0.5 ? Math.floor(next() * 3000) : Math.floor(next() * 4 * MINUTE);
      clock.advance(gap);
      times.push(clock.now().getTime());
      decisions.push((await limiter.check(RULE, 'spread')).allowed);
    }
    expect(times.at(-1)! - start).toBeGreaterThan(6 * WINDOW);
    expect(decisions).toEqual(allowedByDefinition(times, RULE.limit, WINDOW));
    const allowedTimes = times.filter((_t, i) => decisions[i]);
    expect(busiestWindow(allowedTimes, WINDOW)).toBe(RULE.limit);
    expect(decisions.filter((d) => !d).length).toBeGreaterThan(50);
  });
});

describe('sliding-window limits in memory: bounded', () => {
  it('keeps at most maxKeys logs; a flood of new keys neither grows it nor buys back a counted key\'s budget', () => {
    const store = createMemorySlidingStore({ maxKeys: 100, overflowWidth: 1 << 12 });
    const clock = clockBeforeEdge(5_000);
    const now = () => clock.now().getTime();
    for (let i = 0; i < 10; i++) expect(store.take('watched', 10, WINDOW, now()).allowed).toBe(true);
    for (let i = 0; i < 5000; i++) {
      store.take(`flood-${i}`, 10, WINDOW, now());
      clock.advance(10);
    }
    expect(store.keys()).toBe(100);
    expect(store.take('watched', 10, WINDOW, now()).allowed).toBe(false);
    // A key past the bound is limited too: never more than its limit in a window (fewer when the
    // crowded sketch counts another key's tries as its own: it may over-count, never under-count).
    let allowed = 0;
    for (let i = 0; i < 30; i++) if (store.take('overflowing', 10, WINDOW, now()).allowed) allowed++;
    expect(allowed).toBeLessThanOrEqual(10);
    expect(allowed).toBeGreaterThan(5);
  });

  it('never lets a key past the bound take more than the limit in any window, across fixed-window edges', () => {
    const store = createMemorySlidingStore({ maxKeys: 1 });
    const clock = clockBeforeEdge(0);
    store.take('holds the only log', 10, 100 * WINDOW, clock.now().getTime());
    const next = random(7);
    const allowedTimes: number[] = [];
    for (let i = 0; i < 2000; i++) {
      clock.advance(Math.floor(next() * 20_000));
      if (store.take('overflowing', 10, WINDOW, clock.now().getTime()).allowed) allowedTimes.push(clock.now().getTime());
    }
    expect(busiestWindow(allowedTimes, WINDOW)).toBeLessThanOrEqual(10);
    // Stricter than the log, not useless: it still lets through a fair share (at least the limit per two windows).
    expect(allowedTimes.length).toBeGreaterThanOrEqual(Math.floor((2000 * 10_000) / (2 * WINDOW)) * 10 - 10);
  });

  it('keeps counting a key in the overflow until it forgets its tries there, so a freed log slot restarts nobody from zero', () => {
    const store = createMemorySlidingStore({ maxKeys: 1 });
    const clock = clockBeforeEdge(60_000);
    const now = () => clock.now().getTime();
    store.take('holds the only log', 10, WINDOW, now());
    clock.advance(1000);
    for (let i = 0; i < 10; i++) expect(store.take('x', 10, WINDOW, now()).allowed).toBe(true);
    expect(store.take('x', 10, WINDOW, now()).allowed).toBe(false);
    // The only log expires: a slot is free, yet x's ten tries are still in its window.
    clock.advance(WINDOW - 500);
    expect(store.take('x', 10, WINDOW, now()).allowed).toBe(false);
    expect(store.keys()).toBe(0);
    // Two windows on, the overflow has forgotten x: x gets an exact log again.
    clock.advance(2 * WINDOW);
    expect(store.take('x', 10, WINDOW, now())).toMatchObject({ allowed: true, count: 1 });
    expect(store.keys()).toBe(1);
  });

  it('drops the logs of keys whose tries have all left the window as requests come', () => {
    const store = createMemorySlidingStore();
    const clock = new TestClock(0);
    for (let i = 0; i < 1000; i++) store.take(`k${i}`, 10, WINDOW, clock.now().getTime());
    expect(store.keys()).toBe(1000);
    clock.advance(WINDOW);
    for (let i = 0; i < 600; i++) store.take('steady', 10, WINDOW, clock.now().getTime());
    expect(store.keys()).toBe(1);
  });
});

describe('sliding-window limits over Redis', () => {
  it('fall back to per-node memory while Redis is unreachable, answering without waiting', async () => {
    const redis = createRedisConnection(`redis://127.0.0.1:${await freePort()}`, 'test-down');
    try {
      const clock = clockBeforeEdge(5_000);
      const store = createRedisSlidingStore(redis, { prefix: 'x:', fallback: createMemorySlidingStore(), log: silent });
      const limiter = createRateLimiter({ store: createMemoryRateLimitStore(), sliding: store, clock });
      const nextTurn = () => new Promise<'waited'>((resolve) => setImmediate(() => resolve('waited')));
      const decisions: Array<RateLimitDecision | 'waited'> = [];
      for (let i = 0; i < 11; i++) decisions.push(await Promise.race([limiter.check(RULE, 'a'), nextTurn()]));
      expect(decisions.map((d) => d !== 'waited' && d.allowed)).toEqual([...Array(10).fill(true), false]);
    } finally {
      redis.disconnect();
    }
  });

  describe.skipIf(!redisUrl)('with a Redis server', () => {
    it('two nodes share one budget per key, and a key expires a window after its newest try', async () => {
      const prefix = `test:${randomBase62(8)}:`;
      const clock = clockBeforeEdge(5_000);
      const [a, b] = [await connect(), await connect()];
      const node = (redis: Redis) => createRateLimiter({ store: createRedisRateLimitStore(redis, { prefix, fallback: createMemoryRateLimitStore(), log: silent }), sliding: createRedisSlidingStore(redis, { prefix, fallback: createMemorySlidingStore(), log: silent }), clock });
      const [nodeA, nodeB] = [node(a), node(b)];
      for (let i = 0; i < 5; i++) {
        expect((await nodeA.check(RULE, 'shared')).allowed).toBe(true);
        expect((await nodeB.check(RULE, 'shared')).allowed).toBe(true);
      }
      clock.advance(10_000);
      expect((await nodeA.check(RULE, 'shared')).allowed).toBe(false);
      expect((await nodeB.check(RULE, 'shared')).allowed).toBe(false);
      const keys = await a.keys(`${prefix}sl:*`);
      expect(keys).toEqual([`${prefix}sl:signin:shared`]);
      // Only accepted tries are kept: ten entries, and a TTL of a window and a second at most.
      expect(await a.zcard(keys[0]!)).toBe(10);
      const ttl = await a.pttl(keys[0]!);
      expect(ttl).toBeGreaterThan(WINDOW - 60_000);
      expect(ttl).toBeLessThanOrEqual(WINDOW + 1000);
    });
  });
});
