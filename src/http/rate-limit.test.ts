import { createServer } from 'node:net';
import pino from 'pino';
import { afterAll, describe, expect, it } from 'vitest';
import { TestClock } from '../../test/support/context.js';
import { randomBase62 } from '../lib/ids.js';
import { closeRedis, createRedisConnection, waitUntilReady, type Redis } from '../lib/redis.js';
import { createMemoryRateLimitStore, createRateLimiter, createRedisRateLimitStore, type RateLimitRule } from './rate-limit.js';

const RULE: RateLimitRule = { name: 'test', limit: 3, windowMs: 60_000, message: 'Slow down.' };
const silent = pino({ level: 'silent' });

/** A clock at the start of a window, so counts never straddle two. */
function windowStartClock(): TestClock {
  const now = Date.now();
  return new TestClock(now - (now % 60_000) + 60_000);
}

async function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const server = createServer().listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => resolve(typeof address === 'object' && address ? address.port : 0));
    });
  });
}

describe('rate limiter, in memory', () => {
  it('counts per key in fixed windows aligned to the epoch', async () => {
    const clock = windowStartClock();
    const limiter = createRateLimiter({ store: createMemoryRateLimitStore(), clock });
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

  it('keeps memory bounded: expired windows are swept, and past maxKeys the oldest entries go', async () => {
    const clock = windowStartClock();
    const store = createMemoryRateLimitStore({ maxKeys: 500 });
    const limiter = createRateLimiter({ store, clock });
    for (let i = 0; i < 5000; i++) await limiter.check(RULE, `client-${i}`);
    expect(store.size()).toBeLessThanOrEqual(500);
    // The newest clients keep their counts.
    expect((await limiter.check(RULE, 'client-4999')).remaining).toBe(1);
    clock.advance(120_000);
    for (let i = 0; i < 1000; i++) await limiter.check(RULE, `later-${i}`);
    expect(store.size()).toBeLessThanOrEqual(500);
    expect((await limiter.check(RULE, 'client-4999')).remaining).toBe(2);
  });

  it('answers synchronously, so the hot path needs no promise', () => {
    const limiter = createRateLimiter({ store: createMemoryRateLimitStore(), clock: windowStartClock() });
    const decision = limiter.check(RULE, 'sync');
    expect(decision).not.toBeInstanceOf(Promise);
  });
});

describe('rate limiter over Redis', () => {
  it('falls back to per-node memory counting while Redis is unreachable', async () => {
    const redis = createRedisConnection(`redis://127.0.0.1:${await freePort()}`, 'test-down');
    try {
      const clock = windowStartClock();
      const limiter = createRateLimiter({ store: createRedisRateLimitStore(redis, { prefix: 'x:', fallback: createMemoryRateLimitStore(), log: silent }), clock });
      const started = Date.now();
      const decisions = [];
      for (let i = 0; i < 4; i++) decisions.push(await limiter.check(RULE, 'a'));
      expect(decisions.map((d) => d.allowed)).toEqual([true, true, true, false]);
      expect(Date.now() - started).toBeLessThan(1000);
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
      const nodeA = createRateLimiter({ store: createRedisRateLimitStore(a, { prefix, fallback: createMemoryRateLimitStore(), log: silent }), clock });
      const nodeB = createRateLimiter({ store: createRedisRateLimitStore(b, { prefix, fallback: createMemoryRateLimitStore(), log: silent }), clock });
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
