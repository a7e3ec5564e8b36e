import type { FastifyBaseLogger, FastifyRequest, onRequestAsyncHookHandler } from 'fastify';
import type { Redis } from 'ioredis';
import type { Clock } from '../lib/clock.js';
import { AppError } from './errors.js';

/**
 * Fixed-window rate limiting. A window is `windowMs` long and aligned to the epoch,
 * so every node (and the Redis store) agrees on where a window starts without
 * coordination, and a client's budget resets at the same instant everywhere.
 *
 * In memory by default; with REDIS_URL the counters live in Redis, so any number
 * of app nodes share one budget per key. If Redis fails, the node falls back to its
 * own memory counters (still limiting, per node) instead of failing requests.
 */
export interface RateLimitRule {
  /** Part of the key, so rules never share counters. */
  name: string;
  limit: number;
  windowMs: number;
  /** Message of the 429 ("… Try again in N seconds." is appended). */
  message: string;
}

export interface RateLimitStore {
  /** Adds one hit to `key` in the window ending at `windowEnd` (epoch ms) and returns the window's count. */
  increment(key: string, windowEnd: number, now: number): Promise<number>;
}

export interface RateLimitDecision {
  allowed: boolean;
  limit: number;
  remaining: number;
  /** Seconds until the window resets (at least 1). */
  resetSeconds: number;
}

interface MemoryEntry {
  count: number;
  windowEnd: number;
}

/**
 * Counters in a Map, bounded: entries are (re)inserted when their window starts, so
 * the Map's insertion order is window order and expired entries sit at the front,
 * where a sweep finds them without scanning the rest. Past `maxKeys`, the oldest
 * entries go first even if live: under a flood of distinct clients, memory wins over
 * precision for the least recent ones.
 */
export function createMemoryRateLimitStore(options: { maxKeys?: number } = {}): RateLimitStore & { size(): number } {
  const maxKeys = options.maxKeys ?? 100_000;
  const entries = new Map<string, MemoryEntry>();
  let insertsSinceSweep = 0;

  function sweep(now: number): void {
    for (const [key, entry] of entries) {
      if (entry.windowEnd > now && entries.size <= maxKeys) break;
      entries.delete(key);
    }
  }

  return {
    size: () => entries.size,
    increment: async (key, windowEnd, now) => {
      const entry = entries.get(key);
      if (entry && entry.windowEnd === windowEnd) return ++entry.count;
      if (entry) entries.delete(key);
      entries.set(key, { count: 1, windowEnd });
      if (++insertsSinceSweep >= 1000 || entries.size > maxKeys) {
        insertsSinceSweep = 0;
        sweep(now);
      }
      return 1;
    },
  };
}

// INCR and the expiry in one atomic step: a crash between them can never leave a counter without a TTL.
const INCREMENT_SCRIPT = `
local count = redis.call('INCR', KEYS[1])
if count == 1 then redis.call('PEXPIRE', KEYS[1], ARGV[1]) end
return count`;

type RedisWithIncrement = Redis & { switchboardRateIncrement(key: string, ttlMs: number): Promise<number> };

/** Counters in Redis, one key per window (`<prefix>rl:<key>:<windowEnd>`), expiring shortly after the window. */
export function createRedisRateLimitStore(redis: Redis, options: { prefix: string; fallback: RateLimitStore; log: FastifyBaseLogger }): RateLimitStore {
  if (!('switchboardRateIncrement' in redis)) {
    redis.defineCommand('switchboardRateIncrement', { numberOfKeys: 1, lua: INCREMENT_SCRIPT });
  }
  const client = redis as RedisWithIncrement;
  let lastWarning = 0;
  return {
    increment: async (key, windowEnd, now) => {
      try {
        // A second of slack so a counter never expires while its window is still open on a node with a slow clock.
        return Number(await client.switchboardRateIncrement(`${options.prefix}rl:${key}:${windowEnd}`, windowEnd - now + 1000));
      } catch (error) {
        if (now - lastWarning > 60_000) {
          lastWarning = now;
          options.log.warn({ err: error }, 'rate limiter: Redis unavailable, counting in memory on this node');
        }
        return options.fallback.increment(key, windowEnd, now);
      }
    },
  };
}

export function createRateLimiter(deps: { store: RateLimitStore; clock: Clock }) {
  const { store, clock } = deps;

  async function check(rule: RateLimitRule, key: string): Promise<RateLimitDecision> {
    const now = clock.now().getTime();
    const windowEnd = (Math.floor(now / rule.windowMs) + 1) * rule.windowMs;
    const count = await store.increment(`${rule.name}:${key}`, windowEnd, now);
    return {
      allowed: count <= rule.limit,
      limit: rule.limit,
      remaining: Math.max(0, rule.limit - count),
      resetSeconds: Math.max(1, Math.ceil((windowEnd - now) / 1000)),
    };
  }

  /**
   * An onRequest hook: runs before the body is read, so a client over its budget
   * costs no parsing. Sets the RateLimit-* headers on every answer, and Retry-After on 429.
   */
  function hook(rule: RateLimitRule, keyOf: (request: FastifyRequest) => string): onRequestAsyncHookHandler {
    const policy = `${rule.limit};w=${Math.round(rule.windowMs / 1000)}`;
    return async (request, reply) => {
      const decision = await check(rule, keyOf(request));
      const headers: Record<string, string> = {
        'RateLimit-Policy': policy,
        'RateLimit-Limit': String(decision.limit),
        'RateLimit-Remaining': String(decision.remaining),
        'RateLimit-Reset': String(decision.resetSeconds),
      };
      if (decision.allowed) {
        reply.headers(headers);
        return;
      }
      const seconds = decision.resetSeconds;
      throw new AppError('RATE_LIMIT_EXCEEDED', `${rule.message} Try again in ${seconds} second${seconds === 1 ? '' : 's'}.`, {
        headers: { ...headers, 'Retry-After': String(seconds) },
      });
    };
  }

  return { check, hook };
}

export type RateLimiter = ReturnType<typeof createRateLimiter>;
