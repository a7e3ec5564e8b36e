import pino from 'pino';
import { afterAll, describe, expect, it } from 'vitest';
import { TestClock } from '../../test/support/context.js';
import { freePort } from '../../test/support/net.js';
import { randomBase62 } from '../lib/ids.js';
import { closeRedis, createRedisConnection, waitUntilReady, type Redis } from '../lib/redis.js';
import { createMemoryRateLimitStore } from './rate-limit-memory.js';
import { createRedisRateLimitStore } from './rate-limit-redis.js';
import { createMemorySlidingStore } from './rate-limit-sliding.js';
import { createRateLimiter, type RateLimitDecision, type RateLimitRule } from './rate-limit.js';

const RULE: RateLimitRule = { name: 'test', limit: 3, windowMs: 60_000, message: 'Slow down.' };
const silent = pino({ level: 'silent' });
/** Fixed hash seeds, so the sketch's collisions are the same on every run. */
const SEEDS = [0x2f6b1c3d, 0x51a7e94b] as const;

/** A clock at the start of a window, so counts never straddle two. */
function windowStartClock(): TestClock {
  const now = Date.now();
  return new TestClock(now - (now % 60_000) + 60_000);
}

describe('rate limiter, in memory', () => {
  it('counts per key in fixed windows aligned to the epoch', async () => {
    const clock = windowStartClock();
    const limiter = createRateLimiter({ store: createMemoryRateLimitStore(), sliding: createMemorySlidingStore(), clock });
    const decisions = [];
    for (let i = 0; i < 4; i++) decisions.push(await limiter.check(RULE, 'a'));
    expect(decisions.map((d) => [d.allowed, d.remaining])).toEqual([[true, 2], [true, 1], [true, 0], [false, 0]]);
    expect(decisions[0]!.resetSeconds).toBe(60);
    expect((await limiter.check(RULE, 'b')).allowed).toBe(true);
    expect((await limiter.check({ ...RULE, name: 'other' }, 'a')).allowed).toBe(true);
    clock.advance(59_500);
    const late = await limiter.check(RULE, 'a');
    expect(late).toMatchObject({ allowed: false, resetSeconds: 1 });
    clock.advance(500);
    expect(await limiter.check(RULE, 'a')).toMatchObject({ allowed: true, remaining: 2, resetSeconds: 60 });
  });

  it('keeps a fixed size under a flood of distinct clients, and never lets a counted client back under its limit', async () => {
    const clock = windowStartClock();
    const store = createMemoryRateLimitStore({ width: 1 << 17, seeds: SEEDS });
    const limiter = createRateLimiter({ store, sliding: createMemorySlidingStore(), clock });
    for (let i = 0; i < 3; i++) await limiter.check(RULE, 'watched');
    const bytes = store.bytes();
    for (let i = 0; i < 20_000; i++) await limiter.check(RULE, `flood-${i}`);
    expect(store.bytes()).toBe(bytes);
    // Still over its limit: a flood cannot make the store forget a client.
    expect((await limiter.check(RULE, 'watched')).allowed).toBe(false);
    // Over-counting stays rare: with 20,000 keys in 131,072 slots per row, a newcomer shares both
    // of its slots with probability (1 − e^(−20000/131072))² ≈ 2%. (With these seeds, 985 of 1,000 are counted exactly.)
    let exact = 0;
    for (let i = 0; i < 1000; i++) if ((await limiter.check(RULE, `newcomer-${i}`)).remaining === 2) exact++;
    expect(exact).toBeGreaterThan(950);
  });

  it('starts every window from zero and reuses the memory of closed ones', async () => {
    const clock = windowStartClock();
    const store = createMemoryRateLimitStore({ width: 1 << 10 });
    const limiter = createRateLimiter({ store, sliding: createMemorySlidingStore(), clock });
    for (let i = 0; i < 4; i++) await limiter.check(RULE, 'a');
    expect((await limiter.check(RULE, 'a')).allowed).toBe(false);
    const bytes = store.bytes();
    for (let window = 1; window <= 5; window++) {
      clock.advance(60_000);
      expect(await limiter.check(RULE, 'a')).toMatchObject({ allowed: true, remaining: 2 });
    }
    expect(store.bytes()).toBe(bytes);
  });

  it('puts collisions where its seeds say, so stores seeded apart collide apart, and never counts a key below its hits when all collide', () => {
    const windowEnd = 60_000;
    const a = createMemoryRateLimitStore({ width: 1 << 4, seeds: SEEDS });
    const b = createMemoryRateLimitStore({ width: 1 << 4, seeds: [SEEDS[1], SEEDS[0]] });
    const again = createMemoryRateLimitStore({ width: 1 << 4, seeds: SEEDS });
    // With 16 slots per row, 40 keys must collide somewhere; where depends on the seeds alone.
    const counts = (store: typeof a) => Array.from({ length: 40 }, (_, i) => store.increment(`k${i}`, windowEnd, 0));
    const seen = counts(a);
    expect(counts(b)).not.toEqual(seen);
    expect(counts(again)).toEqual(seen);
    expect(a.increment('k0', windowEnd, 0)).toBeGreaterThanOrEqual(2);
    // Every key was counted once before: however crowded the 16 slots are, a second hit reads at least 2.
    for (let i = 1; i < 40; i++) expect(a.increment(`k${i}`, windowEnd, 0)).toBeGreaterThanOrEqual(2);
  });

  it('answers synchronously, so the hot path needs no promise', () => {
    const limiter = createRateLimiter({ store: createMemoryRateLimitStore(), sliding: createMemorySlidingStore(), clock: windowStartClock() });
    const decision = limiter.check(RULE, 'sync');
    expect(decision).not.toBeInstanceOf(Promise);
  });
});

describe('rate limiter over Redis', () => {
  it('falls back to per-node memory counting while Redis is unreachable', async () => {
    const redis = createRedisConnection(`redis://127.0.0.1:${await freePort()}`, 'test-down');
    try {
      const clock = windowStartClock();
      const limiter = createRateLimiter({ store: createRedisRateLimitStore(redis, { prefix: 'x:', fallback: createMemoryRateLimitStore(), log: silent }), sliding: createMemorySlidingStore(), clock });
      // Each answer comes without waiting for any I/O (a reconnect, a queued command): before the event loop's next turn.
      const nextTurn = () => new Promise<'waited'>((resolve) => setImmediate(() => resolve('waited')));
      const decisions: Array<RateLimitDecision | 'waited'> = [];
      for (let i = 0; i < 4; i++) decisions.push(await Promise.race([limiter.check(RULE, 'a'), nextTurn()]));
      expect(decisions.map((d) => d !== 'waited' && d.allowed)).toEqual([true, true, true, false]);
    } finally {
      redis.disconnect();
    }
  });

  const url = process.env.TEST_REDIS_URL;
  describe.skipIf(!url)('with a Redis server', () => {
    const connections: Redis[] = [];
    afterAll(async () => {
      await Promise.all(connections.map(closeRedis));
    });
    const connect = async () => {
      const redis = createRedisConnection(url!, 'test');
      connections.push(redis);
      await waitUntilReady(redis, 3000);
      return redis;
    };

    it('two nodes share one budget per key, and counters expire after their window', async () => {
      const prefix = `test:${randomBase62(8)}:`;
      const clock = windowStartClock();
      const [a, b] = [await connect(), await connect()];
      const nodeA = createRateLimiter({ store: createRedisRateLimitStore(a, { prefix, fallback: createMemoryRateLimitStore(), log: silent }), sliding: createMemorySlidingStore(), clock });
      const nodeB = createRateLimiter({ store: createRedisRateLimitStore(b, { prefix, fallback: createMemoryRateLimitStore(), log: silent }), sliding: createMemorySlidingStore(), clock });
      expect((await nodeA.check(RULE, 'shared')).remaining).toBe(2);
      expect((await nodeB.check(RULE, 'shared')).remaining).toBe(1);
      expect((await nodeA.check(RULE, 'shared')).allowed).toBe(true);
      expect((await nodeB.check(RULE, 'shared')).allowed).toBe(false);
      const keys = await a.keys(`${prefix}rl:*`);
      expect(keys).toHaveLength(1);
      const ttl = await a.pttl(keys[0]!);
      expect(ttl).toBeGreaterThan(0);
      expect(ttl).toBeLessThanOrEqual(61_000);
      clock.advance(60_000);
      expect((await nodeB.check(RULE, 'shared')).allowed).toBe(true);
    });
  });
});
