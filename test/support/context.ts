import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { buildApp, type AppDeps } from '../../src/app.js';
import type { App } from '../../src/http/app-type.js';
import { loadConfig, type Config } from '../../src/config.js';
import { openDatabase, type Database, type Dialect } from '../../src/db/database.js';
import type { DatabaseLimits } from '../../src/db/limits.js';
import { migrateToLatest } from '../../src/db/migrate.js';
import { freePort } from './net.js';
import { randomBase62 } from '../../src/lib/ids.js';
import type { Clock } from '../../src/lib/clock.js';
import { createBackgroundQueue, type BackgroundQueue } from '../../src/lib/background-queue.js';
import { TEST_PASSWORD_HASH_COST } from './password-cost.js';

/**
 * Every integration suite runs once per dialect: SQLite always, PostgreSQL when
 * TEST_DATABASE_URL is set (npm run test:all starts a server and sets it).
 */
export function testDialects(): Dialect[] {
  return process.env.TEST_DATABASE_URL ? ['sqlite', 'postgres'] : ['sqlite'];
}

/** A clock tests can move forward. */
export class TestClock implements Clock {
  private current: number;
  constructor(start = Date.now()) {
    this.current = start;
  }
  now(): Date {
    return new Date(this.current);
  }
  advance(ms: number): void {
    this.current += ms;
  }
}

export interface TestContext {
  dialect: Dialect;
  config: Config;
  database: Database;
  app: App;
  clock: TestClock;
  /** What the app does after answering (password-reset emails): `await t.background.idle()` before looking for its effects. */
  background: BackgroundQueue;
  /** PostgreSQL: a URL that reaches this test's schema, for a second node with a pool of its own. */
  databaseUrl?: string;
  close(): Promise<void>;
}

export { TEST_PASSWORD_HASH_COST };

export const TEST_ENV: Record<string, string> = {
  NODE_ENV: 'test',
  PASSWORD_HASH_COST: String(TEST_PASSWORD_HASH_COST),
  SECRETS_KEY: '0'.repeat(64),
  PUBLIC_URL: 'http://localhost:3000',
  LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'silent',
};

/**
 * The database of a server a test runs as a child process (test/support/server-process.ts): the SQLite file in
 * `dataDir` (`url` empty: the server opens DATA_DIR's file), or a fresh PostgreSQL schema (`url` its DATABASE_URL).
 * The test fills it through `database` first; on SQLite it closes it before the server starts (its only user then).
 */
export async function createServerDatabase(dialect: Dialect, dataDir: string): Promise<{ database: Database; url: string; dispose(): Promise<void> }> {
  if (dialect === 'sqlite') {
    const database = openDatabase({ dataDir });
    await migrateToLatest(database.db);
    return { database, url: '', dispose: async () => undefined };
  }
  const created = await createTestDatabase('postgres');
  return { database: created.database, url: created.url!, dispose: created.dispose };
}

/**
 * An isolated, migrated database: a temp SQLite file, or a fresh PostgreSQL schema (`url` then
 * reaches that schema, as a DATABASE_URL for a server run as a child process).
 */
export async function createTestDatabase(dialect: Dialect, limits?: DatabaseLimits): Promise<{ database: Database; url?: string; dispose(): Promise<void> }> {
  if (dialect === 'sqlite') {
    const dir = mkdtempSync(join(tmpdir(), 'switchboard-test-'));
    const database = openDatabase({ sqliteFile: join(dir, 'test.db'), ...(limits ? { limits } : {}) });
    await migrateToLatest(database.db);
    return { database, dispose: async () => { await database.close(); rmSync(dir, { recursive: true, force: true }); } };
  }
  const url = process.env.TEST_DATABASE_URL;
  if (!url) throw new Error('TEST_DATABASE_URL is not set');
  const schema = `t_${randomBase62(12).toLowerCase()}`;
  const admin = new pg.Client({ connectionString: url });
  await admin.connect();
  await admin.query(`create schema ${schema}`);
  await admin.end();
  const database = openDatabase({ databaseUrl: url, pgSchema: schema, pgPoolSize: 5, ...(limits ? { limits } : {}) });
  await migrateToLatest(database.db);
  const scoped = new URL(url);
  scoped.searchParams.set('options', `-c search_path=${schema}`);
  return {
    database,
    url: scoped.toString(),
    dispose: async () => {
      await database.close();
      const cleanup = new pg.Client({ connectionString: url });
      await cleanup.connect();
      await cleanup.query(`drop schema ${schema} cascade`);
      await cleanup.end();
    },
  };
}

export interface TestContextOptions {
  env?: Record<string, string>;
  /** The database's waits (default: DEFAULT_DATABASE_LIMITS). */
  limits?: DatabaseLimits;
  deps?: Partial<Omit<AppDeps, 'config' | 'database' | 'clock'>>;
}

export async function createTestContext(dialect: Dialect, options: TestContextOptions = {}): Promise<TestContext> {
  const { database, url, dispose } = await createTestDatabase(dialect, options.limits);
  const dataDir = mkdtempSync(join(tmpdir(), 'switchboard-data-'));
  const env: Record<string, string | undefined> = { ...TEST_ENV, DATA_DIR: dataDir, ...options.env };
  // A production configuration keeps production's password cost (config.ts refuses a lower one there).
  if (env.NODE_ENV === 'production' && options.env?.PASSWORD_HASH_COST === undefined) delete env.PASSWORD_HASH_COST;
  const config = loadConfig(env);
  const clock = new TestClock();
  // A failed background job fails loudly in a test run rather than in a silent log.
  const background = options.deps?.background ?? createBackgroundQueue({ log: { error: (object, message) => console.error(message, object.err) } });
  // The background purger runs on real time while tests move a TestClock: tests that purge ask for it.
  // So does the webhook delivery worker: tests that deliver call the services' webhookWorker.
  // So do the notification worker and the hand-off deadline worker: tests that send or pass call them by hand.
  const app = await buildApp({ expiryPurge: false, webhookDelivery: false, notificationDelivery: false, handoffDeadlines: false, ...options.deps, config, database, clock, background });
  await app.ready();
  return {
    dialect,
    config,
    database,
    app,
    clock,
    background,
    ...(url === undefined ? {} : { databaseUrl: url }),
    close: async () => {
      await app.close();
      await dispose();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/**
 * A test context serving on a free loopback port, with PUBLIC_URL its own address so the links and
 * snippets it gives point at it (browser tests, real OAuth clients). `url` is that address.
 * `publicUrl` makes PUBLIC_URL another address of it (`http://localhost:…`, say), for a test that the
 * console gives PUBLIC_URL, not the address it was opened at.
 */
export async function createServingTestContext(
  dialect: Dialect,
  options: TestContextOptions & { publicUrl?: (url: string) => string } = {},
): Promise<TestContext & { url: string }> {
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const t = await createTestContext(dialect, { ...options, env: { ...options.env, PUBLIC_URL: options.publicUrl?.(url) ?? url } });
  await t.app.listen({ port, host: '127.0.0.1' });
  return Object.assign(t, { url });
}
