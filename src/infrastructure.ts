import type { FastifyBaseLogger } from 'fastify';
import type { Config } from './config.js';
import type { Database } from './db/database.js';
import { createDirectRunner, createGroupCommitRunner, type BindRepos, type Transact } from './db/transaction-runner.js';
import { createRedisInvalidationBus } from './forms/cache-bus.js';
import { createMemoryRateLimitStore } from './http/rate-limit-memory.js';
import { createRedisRateLimitStore, createRedisSlidingStore } from './http/rate-limit-redis.js';
import { createMemorySlidingStore } from './http/rate-limit-sliding.js';
import { createRateLimiter, type RateLimiter, type RateLimitStore, type SlidingWindowStore } from './http/rate-limit.js';
import type { Clock } from './lib/clock.js';
import { closeRedis, createRedisConnection, waitUntilReady, type Redis } from './lib/redis.js';
import { createOrgChangeFeed, type OrgChangeFeed } from './orgs/changes.js';
import { Repos, transactOn } from './repos.js';
import { createToolChangeFeed, type ToolChangeFeed } from './tools/changes.js';

/** A cache whose invalidations travel between nodes: it applies other nodes' messages and publishes its own. */
export interface InvalidatedCache<M extends { all?: boolean }> {
  applyLocally(message: M): void;
  attachBus(bus: { publish(message: M): void }): void;
}

/** What createServices (services.ts) builds once and every feature shares; no feature builds any of it. */
export interface Infrastructure {
  /** Rate limits: in memory, or in Redis shared by every node (counted per node while Redis is unreachable). */
  limiter: RateLimiter;
  /**
   * Form submissions: group commit on SQLite (one writer, so submissions that queue up share a
   * commit), a transaction each on PostgreSQL. Units get every repo bound to their transaction.
   */
  submissions: Transact<Repos>;
  /** Operator writes that belong together: each in a transaction of its own, never batched with submissions. */
  transact: Transact<Repos>;
  /**
   * An org's agents (brand, deletion), custom fields, pipelines and default country changed
   * (orgs/changes.ts): the form cache, the key cache and the tool cache subscribe.
   */
  changes: OrgChangeFeed;
  /** Tool publish, withdrawal and deletion: caches of agents' callable tools subscribe. */
  toolChanges: ToolChangeFeed;
  /**
   * With REDIS_URL, relays a cache's invalidations to every node on a channel of its own named `name`
   * (forms/cache-bus.ts): the form cache, the key cache, the tool cache. Without it, does nothing.
   */
  attachCacheBus<M extends { all?: boolean }>(name: string, cache: InvalidatedCache<M>): Promise<void>;
  /** Closes the Redis connections (last in the services' close, services.ts). */
  close(): Promise<void>;
}

export async function createInfrastructure(deps: {
  config: Config;
  database: Database;
  clock: Clock;
  log: FastifyBaseLogger;
  /** Namespace of Redis keys and pub/sub channels (default `switchboard:`). */
  redisPrefix?: string | undefined;
  /** Told of every request over a rate limit (metrics). */
  onRateLimited?: ((rule: string) => void) | undefined;
}): Promise<Infrastructure> {
  const { config, database, clock, log } = deps;
  const { db } = database;
  const prefix = deps.redisPrefix ?? 'switchboard:';
  const bind: BindRepos<Repos> = (trx) => new Repos(trx);

  const memoryStore = createMemoryRateLimitStore();
  const memorySliding = createMemorySlidingStore();
  let store: RateLimitStore = memoryStore;
  let sliding: SlidingWindowStore = memorySliding;
  let redis: { commands: Redis; subscriber: Redis } | undefined;
  if (config.redisUrl) {
    redis = { commands: createRedisConnection(config.redisUrl, 'forms'), subscriber: createRedisConnection(config.redisUrl, 'forms-invalidation') };
    if (!(await waitUntilReady(redis.commands, 3000))) log.warn('Redis is not reachable yet: rate limits count per node until it is');
    store = createRedisRateLimitStore(redis.commands, { prefix, fallback: memoryStore, log });
    sliding = createRedisSlidingStore(redis.commands, { prefix, fallback: memorySliding, log });
  }

  async function attachCacheBus<M extends { all?: boolean }>(name: string, cache: InvalidatedCache<M>): Promise<void> {
    if (!redis) return;
    cache.attachBus(
      await createRedisInvalidationBus<M>({
        publisher: redis.commands,
        subscriber: redis.subscriber,
        channel: `${prefix}${name}`,
        apply: cache.applyLocally,
        // A node that missed messages drops everything: every cache's messages can say "all".
        resync: () => cache.applyLocally({ all: true } as M),
        log,
      }),
    );
  }

  return {
    limiter: createRateLimiter({ store, sliding, clock, onRefusal: deps.onRateLimited }),
    submissions: (database.dialect === 'sqlite' ? createGroupCommitRunner(db, bind, { maxWaitMs: database.limits.acquireTimeoutMs }) : createDirectRunner(db, bind)).run,
    transact: transactOn(db),
    changes: createOrgChangeFeed(),
    toolChanges: createToolChangeFeed(),
    attachCacheBus,
    close: async () => {
      if (redis) await Promise.all([closeRedis(redis.commands), closeRedis(redis.subscriber)]);
    },
  };
}
