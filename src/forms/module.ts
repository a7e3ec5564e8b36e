import type { App } from '../http/app-type.js';
import type { Config } from '../config.js';
import type { CrmService } from '../crm/service.js';
import type { Database } from '../db/database.js';
import { createMemoryRateLimitStore } from '../http/rate-limit-memory.js';
import { createRateLimiter, createRedisRateLimitStore, type RateLimitStore } from '../http/rate-limit.js';
import type { Clock } from '../lib/clock.js';
import { closeRedis, createRedisConnection, waitUntilReady } from '../lib/redis.js';
import type { OrgAuth } from '../orgs/auth.js';
import type { OrgChangeFeed } from '../orgs/changes.js';
import { createRedisInvalidationBus } from './cache-bus.js';
import { createFormCache } from './form-cache.js';
import { createLiveFormLoader, type LiveForm } from './public-form.js';
import { registerPublicFormRoutes } from './public-routes.js';
import { createFormsRepo } from './repo.js';
import { registerFormRoutes } from './routes.js';
import { createFormsService } from './service.js';
import { createSubmitService } from './submit-service.js';
import { createDirectRunner, createGroupCommitRunner } from '../db/transaction-runner.js';
import { insertNewLeadAtOnce, type NewLeadRows } from './new-lead-statement.js';

export interface FormsModuleDeps {
  config: Config;
  database: Database;
  clock: Clock;
  crm: CrmService;
  orgAuth: OrgAuth;
  /** Custom fields, brands and pipelines show on public forms: their changes drop the org's cached forms. */
  changes: OrgChangeFeed;
  /** Namespace of Redis keys and channels (default `switchboard:`). */
  redisPrefix?: string | undefined;
}

/**
 * Wires the forms feature: the public config cache (with Redis pub/sub invalidation
 * when REDIS_URL is set), the rate limiter (memory, or Redis shared by every node),
 * the Operator API and the public Forms API.
 *
 * Returns `invalidateOrg`, for changes the org change feed does not carry
 * (e.g. the org's default country).
 */
export async function registerForms(app: App, deps: FormsModuleDeps) {
  const { config, database, clock, crm, orgAuth } = deps;
  const { db } = database;
  const prefix = deps.redisPrefix ?? 'switchboard:';
  const repo = createFormsRepo(db);
  const cache = createFormCache<LiveForm>({ load: createLiveFormLoader({ db, repo, crm }), clock });
  deps.changes.subscribe(cache.invalidateOrg);

  const memoryStore = createMemoryRateLimitStore();
  let store: RateLimitStore = memoryStore;
  if (config.redisUrl) {
    const redis = createRedisConnection(config.redisUrl, 'forms');
    const subscriber = createRedisConnection(config.redisUrl, 'forms-invalidation');
    app.addHook('onClose', async () => {
      await Promise.all([closeRedis(redis), closeRedis(subscriber)]);
    });
    if (!(await waitUntilReady(redis, 3000))) app.log.warn('Redis is not reachable yet: rate limits count per node until it is');
    store = createRedisRateLimitStore(redis, { prefix, fallback: memoryStore, log: app.log });
    cache.attachBus(
      await createRedisInvalidationBus({
        publisher: redis,
        subscriber,
        channel: `${prefix}form-cache`,
        apply: cache.applyLocally,
        resync: () => cache.applyLocally({ all: true }),
        log: app.log,
      }),
    );
  }
  const limiter = createRateLimiter({ store, clock });

  const forms = createFormsService({ db, repo, crm, cache, clock, publicUrl: config.publicUrl });
  const runner = database.dialect === 'sqlite' ? createGroupCommitRunner(db) : createDirectRunner(db);
  const submit = createSubmitService({
    runner,
    repo,
    crm,
    cache,
    clock,
    log: app.log,
    ...(database.dialect === 'postgres' ? { newLeadAtOnce: (rows: NewLeadRows) => insertNewLeadAtOnce(db, rows) } : {}),
  });
  registerFormRoutes(app, { forms, orgAuth });
  registerPublicFormRoutes(app, { cache, submit, limiter });

  return { invalidateOrg: cache.invalidateOrg };
}
