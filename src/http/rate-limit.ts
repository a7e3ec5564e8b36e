import type { FastifyReply, FastifyRequest, onRequestHookHandler } from 'fastify';
import type { Clock } from '../lib/clock.js';
import { ErrorBody } from './envelope.js';
import { AppError } from './errors.js';

/**
 * Rate limiting, two ways, chosen per rule:
 *
 * - Fixed windows (the default): a window is `windowMs` long and aligned to the epoch, so every node
 *   (and the Redis store) agrees on where a window starts without coordination. Counted in a
 *   count-min sketch in memory (rate-limit-memory.ts), which costs no allocation per request: the
 *   public form routes, on the hot path. Across a window's edge a client can get up to twice the
 *   limit in a moment; for form submissions per address that is harmless.
 * - Sliding windows (`sliding: true`): no span of `windowMs`, wherever it starts, holds more than
 *   `limit` accepted requests (rate-limit-sliding.ts, a log of times per key). For credentials:
 *   sign-in, sign-up, password reset and the account token endpoints, where the fixed window's
 *   double burst would double a guesser's budget.
 *
 * In memory by default; with REDIS_URL the counters live in Redis (rate-limit-redis.ts), so any
 * number of app nodes share one budget per key. If Redis fails, the node falls back to its own
 * memory counters (still limiting, per node) instead of failing requests.
 */
export interface RateLimitRule {
  /** Part of the key, so rules never share counters. */
  name: string;
  limit: number;
  windowMs: number;
  /** Message of the 429 ("… Try again in N seconds." is appended). */
  message: string;
  /** A sliding window instead of a fixed one (see above). */
  sliding?: boolean;
}

/** The headers `hook` sets on every answer, for the API reference of rate-limited routes. */
export const RATE_LIMIT_HEADERS = {
  'RateLimit-Limit': { type: 'integer', description: 'Requests allowed per window.' },
  'RateLimit-Remaining': { type: 'integer', description: 'Requests left in the current window.' },
  'RateLimit-Reset': { type: 'integer', description: 'Seconds until the window resets: on a sliding limit, until the oldest counted request leaves it and a slot frees.' },
} as const;

/** The 429 of a rate-limited route, with its headers, for the route's response schema. */
export const RateLimitedResponse = {
  ...ErrorBody,
  headers: {
    'Retry-After': { type: 'integer', description: 'Seconds to wait before trying again: when the window resets, or on a sliding limit when a slot frees.' },
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

/** What a sliding-window store answers for one request. */
export interface SlidingTake {
  allowed: boolean;
  /** Accepted requests in the window now, this one included when it was accepted. */
  count: number;
  /** When (epoch ms) the oldest of them leaves the window and a slot frees. */
  freesAt: number;
}

export interface SlidingWindowStore {
  /** Accepts a request of `key` at `now` (and records it) if fewer than `limit` were accepted in the `windowMs` before. */
  take(key: string, limit: number, windowMs: number, now: number): SlidingTake | Promise<SlidingTake>;
}

export interface RateLimitDecision {
  allowed: boolean;
  limit: number;
  remaining: number;
  /** Seconds until the window resets, or on a sliding limit until a slot frees (at least 1). */
  resetSeconds: number;
}

/**
 * The 429 of a refused decision: the rule's message, when to try again, Retry-After, and the RateLimit-*
 * headers of the rule that refused (a limit checked in a service, like sign-in per account, replaces
 * those the route's per-address hook set, which would not say why the answer is a 429).
 */
export function rateLimitExceeded(rule: RateLimitRule, decision: RateLimitDecision): AppError {
  const seconds = decision.resetSeconds;
  return new AppError('RATE_LIMIT_EXCEEDED', `${rule.message} Try again in ${seconds} second${seconds === 1 ? '' : 's'}.`, {
    headers: { 'Retry-After': String(seconds), 'RateLimit-Limit': String(decision.limit), 'RateLimit-Remaining': String(decision.remaining), 'RateLimit-Reset': String(seconds) },
  });
}

export function createRateLimiter(deps: {
  store: RateLimitStore;
  sliding: SlidingWindowStore;
  clock: Clock;
  /** Told of every request over a limit (the rule's name), for /metrics. */
  onRefusal?: ((rule: string) => void) | undefined;
}) {
  const { store, sliding, clock } = deps;
  const onRefusal = deps.onRefusal ?? (() => {});

  const secondsUntil = (at: number, now: number) => Math.max(1, Math.ceil((at - now) / 1000));

  function decide(rule: RateLimitRule, count: number, windowEnd: number, now: number): RateLimitDecision {
    if (count > rule.limit) onRefusal(rule.name);
    return { allowed: count <= rule.limit, limit: rule.limit, remaining: Math.max(0, rule.limit - count), resetSeconds: secondsUntil(windowEnd, now) };
  }

  function decideSliding(rule: RateLimitRule, taken: SlidingTake, now: number): RateLimitDecision {
    if (!taken.allowed) onRefusal(rule.name);
    return { allowed: taken.allowed, limit: rule.limit, remaining: Math.max(0, rule.limit - taken.count), resetSeconds: secondsUntil(taken.freesAt, now) };
  }

  /** Counts one request against `key`; synchronous with the memory stores. */
  function check(rule: RateLimitRule, key: string): RateLimitDecision | Promise<RateLimitDecision> {
    const now = clock.now().getTime();
    if (rule.sliding) {
      const taken = sliding.take(`${rule.name}:${key}`, rule.limit, rule.windowMs, now);
      return taken instanceof Promise ? taken.then((t) => decideSliding(rule, t, now)) : decideSliding(rule, taken, now);
    }
    const windowEnd = (Math.floor(now / rule.windowMs) + 1) * rule.windowMs;
    const count = store.increment(`${rule.name}:${key}`, windowEnd, now);
    return typeof count === 'number' ? decide(rule, count, windowEnd, now) : count.then((n) => decide(rule, n, windowEnd, now));
  }

  function apply(rule: RateLimitRule, decision: RateLimitDecision, reply: FastifyReply): AppError | undefined {
    // Lower-case names: Fastify lower-cases each name it is given, per request (see app.ts).
    reply.header('ratelimit-limit', decision.limit);
    reply.header('ratelimit-remaining', decision.remaining);
    reply.header('ratelimit-reset', decision.resetSeconds);
    return decision.allowed ? undefined : rateLimitExceeded(rule, decision);
  }

  /**
   * An onRequest hook: runs before the body is read, so a client over its budget
   * costs no parsing. Sets RateLimit-Limit/-Remaining/-Reset (draft-ietf-httpapi-ratelimit-headers)
   * on every answer, and Retry-After on a 429. Callback style: no promise on the hot path.
   */
  function hook(rule: RateLimitRule, keyOf: (request: FastifyRequest) => string): onRequestHookHandler {
    return function rateLimit(request, reply, done) {
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
