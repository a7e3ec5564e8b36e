import type { FastifyBaseLogger } from 'fastify';
import type { Redis } from 'ioredis';
import { randomBase62 } from '../lib/ids.js';
import type { RateLimitStore, SlidingTake, SlidingWindowStore } from './rate-limit.js';

/**
 * The rate limiter's stores in Redis (REDIS_URL), so every node shares one budget per key. Each
 * store answers from its memory fallback at once while the connection is not ready, and when a
 * command fails: a node keeps limiting on its own while Redis is away, instead of failing
 * requests or making them wait for a reconnect. The warning is logged at most once a minute.
 */
function redisOrMemory(redis: Redis, log: FastifyBaseLogger) {
  let lastWarning = 0;
  function warn(now: number, error: unknown): void {
    if (now - lastWarning <= 60_000) return;
    lastWarning = now;
    log.warn({ err: error }, 'rate limiter: Redis unavailable, counting in memory on this node');
  }
  return async <T>(now: number, viaRedis: () => Promise<T>, inMemory: () => T | Promise<T>): Promise<T> => {
    if (redis.status !== 'ready') {
      warn(now, new Error(`Redis connection is ${redis.status}`));
      return inMemory();
    }
    try {
      return await viaRedis();
    } catch (error) {
      warn(now, error);
      return inMemory();
    }
  };
}

// INCR and the expiry in one atomic step: a crash between them can never leave a counter without a TTL.
const INCREMENT_SCRIPT = `
local count = redis.call('INCR', KEYS[1])
if count == 1 then redis.call('PEXPIRE', KEYS[1], ARGV[1]) end
return count`;

/**
 * The sliding log of one key, a sorted set of its accepted requests' times, trimmed, counted and
 * added to in one atomic step, so two nodes can never both take the last slot. ARGV: now, the
 * window's start (times at or before it have left), the limit, a unique member, the TTL. Answers
 * {accepted 0/1, count, the oldest time left in the log}. The TTL is renewed on every accepted
 * request: the key disappears once its newest request has left the window.
 */
const SLIDING_SCRIPT = `
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', ARGV[2])
local count = redis.call('ZCARD', KEYS[1])
local accepted = 0
if count < tonumber(ARGV[3]) then
  redis.call('ZADD', KEYS[1], ARGV[1], ARGV[4])
  redis.call('PEXPIRE', KEYS[1], ARGV[5])
  count = count + 1
  accepted = 1
end
local oldest = redis.call('ZRANGE', KEYS[1], 0, 0, 'WITHSCORES')
return {accepted, count, oldest[2] or ARGV[1]}`;

type RedisWithScripts = Redis & {
  switchboardRateIncrement(key: string, ttlMs: number): Promise<number>;
  switchboardSlidingTake(key: string, now: number, windowStart: number, limit: number, member: string, ttlMs: number): Promise<[number, number, string]>;
};

function withScripts(redis: Redis): RedisWithScripts {
  if (!('switchboardRateIncrement' in redis)) redis.defineCommand('switchboardRateIncrement', { numberOfKeys: 1, lua: INCREMENT_SCRIPT });
  if (!('switchboardSlidingTake' in redis)) redis.defineCommand('switchboardSlidingTake', { numberOfKeys: 1, lua: SLIDING_SCRIPT });
  return redis as RedisWithScripts;
}

interface StoreOptions<S> {
  prefix: string;
  fallback: S;
  log: FastifyBaseLogger;
}

/** Fixed windows: counters in Redis, one key per window (`<prefix>rl:<key>:<windowEnd>`), expiring shortly after the window. */
export function createRedisRateLimitStore(redis: Redis, options: StoreOptions<RateLimitStore>): RateLimitStore {
  const client = withScripts(redis);
  const run = redisOrMemory(redis, options.log);
  return {
    increment: (key, windowEnd, now) =>
      run(
        now,
        // A second of slack so a counter never expires while its window is still open on a node with a slow clock.
        async () => Number(await client.switchboardRateIncrement(`${options.prefix}rl:${key}:${windowEnd}`, windowEnd - now + 1000)),
        () => options.fallback.increment(key, windowEnd, now),
      ),
  };
}

/**
 * Sliding windows: a sorted set per key (`<prefix>sl:<key>`) holding at most `limit` times, expiring a
 * window (and a second of slack for a node with a slow clock) after its newest request. Redis's own
 * memory bounds the number of keys; every key lives at most one window after its last accepted request.
 */
export function createRedisSlidingStore(redis: Redis, options: StoreOptions<SlidingWindowStore>): SlidingWindowStore {
  const client = withScripts(redis);
  const run = redisOrMemory(redis, options.log);
  return {
    take: (key, limit, windowMs, now) =>
      run(
        now,
        async (): Promise<SlidingTake> => {
          // The member only has to be unique: two requests in the same millisecond are two entries.
          const [accepted, count, oldest] = await client.switchboardSlidingTake(`${options.prefix}sl:${key}`, now, now - windowMs, limit, `${now}:${randomBase62(8)}`, windowMs + 1000);
          return { allowed: accepted === 1, count: Number(count), freesAt: Number(oldest) + windowMs };
        },
        () => options.fallback.take(key, limit, windowMs, now),
      ),
  };
}
