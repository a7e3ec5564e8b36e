import { createRequire } from 'node:module';
import type { Redis } from 'ioredis';

// Loaded on first use: a node without REDIS_URL never pays for the client's code in memory.
const require = createRequire(import.meta.url);
let RedisClient: typeof import('ioredis').Redis | undefined;

/**
 * Redis connections for state shared between app nodes (rate-limit counters,
 * config-cache invalidation). Only used when REDIS_URL is set.
 *
 * While Redis is away, commands wait in ioredis's offline queue, but not for long: with
 * maxRetriesPerRequest 1 the queue is failed every second unsuccessful reconnection attempt
 * (each at most connectTimeout plus the back-off). The queue is what lets a subscription made
 * before the first connection go through once Redis answers. Requests never wait on it: the
 * rate limiter checks the connection's status and counts in memory while it is not ready,
 * and cache invalidations are published without being awaited.
 */
export function createRedisConnection(url: string, name: string): Redis {
  RedisClient ??= (require('ioredis') as typeof import('ioredis')).Redis;
  const redis = new RedisClient(url, {
    connectionName: `switchboard:${name}`,
    maxRetriesPerRequest: 1,
    connectTimeout: 2000,
    enableOfflineQueue: true,
    // Reconnect with a capped back-off, forever: a restarted Redis is picked up again.
    retryStrategy: (attempt) => Math.min(attempt * 200, 2000),
  });
  // Without a listener ioredis prints every connection error; callers log what matters.
  redis.on('error', () => undefined);
  return redis;
}

/** Resolves when the connection is ready, or after `ms` (callers then work without Redis until it connects). */
export async function waitUntilReady(redis: Redis, ms: number): Promise<boolean> {
  if (redis.status === 'ready') return true;
  return new Promise((resolve) => {
    const timer = setTimeout(() => {
      redis.off('ready', onReady);
      resolve(false);
    }, ms);
    timer.unref();
    function onReady() {
      clearTimeout(timer);
      resolve(true);
    }
    redis.once('ready', onReady);
  });
}

/** Closes a connection, waiting for in-flight replies; never throws during shutdown. */
export async function closeRedis(redis: Redis): Promise<void> {
  try {
    await redis.quit();
  } catch {
    redis.disconnect();
  }
}

export type { Redis };
