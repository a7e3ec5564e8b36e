import type { FastifyBaseLogger, FastifyReply, FastifyRequest, onRequestHookHandler } from 'fastify';
import type { Redis } from 'ioredis';
import type { Clock } from '../lib/clock.js';
import { ErrorBody } from './envelope.js';
import { AppError } from './errors.js';

/**
 * Fixed-window rate limiting. A window is `windowMs` long and aligned to the epoch,
 * so every node (and the Redis store) agrees on where a window starts without
 * coordination, and a client's budget resets at the same instant everywhere.
 *
 * In memory by default (rate-limit-memory.ts); with REDIS_URL the counters live in Redis, so any number
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

/** The headers `hook` sets on every answer, for the API reference of rate-limited routes. */
export const RATE_LIMIT_HEADERS = {
  'RateLimit-Limit': { type: 'integer', description: 'Requests allowed per window.' },
  'RateLimit-Remaining': { type: 'integer', description: 'Requests left in the current window.' },
  'RateLimit-Reset': { type: 'integer', description: 'Seconds until the window resets.' },
} as const;

/** The 429 of a rate-limited route, with its headers, for the route's response schema. */
export const RateLimitedResponse = {
  ...ErrorBody,
  headers: {
    'Retry-After': { type: 'integer', description: 'Seconds to wait before trying again: when the window resets.' },
    ...RATE_LIMIT_HEADERS,
  },
};

export interface RateLimitStore {
  /**
   * Adds one hit to `key` in the window ending at `windowEnd` (epoch ms) and returns the window's count.
   * The memory store answers synchronously, so the hot path pays for no promise.
   */
  increment(key: string, windowEnd: number, now: number): number | Promise<number>;
}

export interface RateLimitDecision {
  allowed: boolean;
  limit: number;
  remaining: number;
  /** Seconds until the window resets (at least 1). */
  resetSeconds: number;
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
  function fallback(key: string, windowEnd: number, now: number, error: unknown): number | Promise<number> {
    if (now - lastWarning > 60_000) {
      lastWarning = now;
      options.log.warn({ err: error }, 'rate limiter: Redis unavailable, counting in memory on this node');
    }
    return options.fallback.increment(key, windowEnd, now);
  }
  return {
    increment: async (key, windowEnd, now) => {
      // While disconnected, count locally at once rather than make every request wait for a reconnect.
      if (client.status !== 'ready') return fallback(key, windowEnd, now, new Error(`Redis connection is ${client.status}`));
      try {
        // A second of slack so a counter never expires while its window is still open on a node with a slow clock.
        return Number(await client.switchboardRateIncrement(`${options.prefix}rl:${key}:${windowEnd}`, windowEnd - now + 1000));
      } catch (error) {
        return fallback(key, windowEnd, now, error);
      }
    },
  };
}

/** The 429 of a refused decision: the rule's message, when to try again, and Retry-After. */
export function rateLimitExceeded(rule: RateLimitRule, decision: RateLimitDecision): AppError {
  const seconds = decision.resetSeconds;
  return new AppError('RATE_LIMIT_EXCEEDED', `${rule.message} Try again in ${seconds} second${seconds === 1 ? '' : 's'}.`, {
    headers: { 'Retry-After': String(seconds) },
  });
}

export function createRateLimiter(deps: { store: RateLimitStore; clock: Clock }) {
  const { store, clock } = deps;

  function decide(rule: RateLimitRule, count: number, windowEnd: number, now: number): RateLimitDecision {
    return {
      allowed: count <= rule.limit,
      limit: rule.limit,
      remaining: Math.max(0, rule.limit - count),
      resetSeconds: Math.max(1, Math.ceil((windowEnd - now) / 1000)),
    };
  }

  /** Counts one request against `key`; synchronous with the memory store. */
  function check(rule: RateLimitRule, key: string): RateLimitDecision | Promise<RateLimitDecision> {
    const now = clock.now().getTime();
    const windowEnd = (Math.floor(now / rule.windowMs) + 1) * rule.windowMs;
    const count = store.increment(`${rule.name}:${key}`, windowEnd, now);
    return typeof count === 'number' ? decide(rule, count, windowEnd, now) : count.then((n) => decide(rule, n, windowEnd, now));
  }

  function apply(rule: RateLimitRule, decision: RateLimitDecision, reply: FastifyReply): AppError | undefined {
    reply.header('RateLimit-Limit', decision.limit);
    reply.header('RateLimit-Remaining', decision.remaining);
    reply.header('RateLimit-Reset', decision.resetSeconds);
    return decision.allowed ? undefined : rateLimitExceeded(rule, decision);
  }

  /**
   * An onRequest hook: runs before the body is read, so a client over its budget
   * costs no parsing. Sets RateLimit-Limit/-Remaining/-Reset (draft-ietf-httpapi-ratelimit-headers)
   * on every answer, and Retry-After on a 429. Callback style: no promise on the hot path.
   */
  function hook(rule: RateLimitRule, keyOf: (request: FastifyRequest) => string): onRequestHookHandler {
    return (request, reply, done) => {
      let decision: RateLimitDecision | Promise<RateLimitDecision>;
      try {
        decision = check(rule, keyOf(request));
      } catch (error) {
        done(error as Error);
        return;
      }
      if (decision instanceof Promise) decision.then((d) => done(apply(rule, d, reply)), done);
      else done(apply(rule, decision, reply));
    };
  }

  return { check, hook };
}

export type RateLimiter = ReturnType<typeof createRateLimiter>;
