import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { openDatabase, type Database, type SqliteSynchronous } from './database.js';
import { DEFAULT_DATABASE_LIMITS } from './limits.js';
import { DatabaseUnavailableError, isDatabaseUnavailable } from './unavailable.js';

describe('openDatabase on SQLite', () => {
  // PRAGMA synchronous reads 1 for NORMAL and 2 for FULL.
  it.each([
    [undefined, 1],
    ['normal', 1],
    ['full', 2],
  ] as const)('sets synchronous from sqliteSynchronous=%s', async (sqliteSynchronous: SqliteSynchronous | undefined, expected) => {
    const dir = mkdtempSync(join(tmpdir(), 'switchboard-sync-'));
    const database = openDatabase({ sqliteFile: join(dir, 'switchboard.db'), ...(sqliteSynchronous ? { sqliteSynchronous } : {}) });
    try {
      const { rows } = await sql<{ synchronous: number }>`pragma synchronous`.execute(database.db);
      expect(rows[0]?.synchronous).toBe(expected);
    } finally {
      await database.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('SQLite when the database is unavailable', () => {
  const limits = { ...DEFAULT_DATABASE_LIMITS, acquireTimeoutMs: 300, sqliteBusyTimeoutMs: 250 };
  async function withDatabase(test: (database: Database) => Promise<void>): Promise<void> {
    const dir = mkdtempSync(join(tmpdir(), 'switchboard-unavailable-'));
    const database = openDatabase({ sqliteFile: join(dir, 'switchboard.db'), limits });
    try {
      await test(database);
    } finally {
      await database.close();
      rmSync(dir, { recursive: true, force: true });
    }
  }

  it('waits SQLITE_BUSY_TIMEOUT_MS for another connection\'s lock', () =>
    withDatabase(async (database) => {
      const { rows } = await sql<{ timeout: number }>`pragma busy_timeout`.execute(database.db);
      expect(rows[0]?.timeout).toBe(250);
    }));

  it('a transaction SQLite ended itself (SQLITE_FULL) fails with SQLITE_FULL, not with "cannot rollback"', () =>
    withDatabase(async (database) => {
      await sql`create table probe (x text)`.execute(database.db);
      const pages = Number((await sql<{ page_count: number }>`pragma page_count`.execute(database.db)).rows[0]!.page_count);
      await sql.raw(`pragma max_page_count = ${pages + 2}`).execute(database.db);
      const failure = await database.db
        .transaction()
        .execute(async (trx) => {
          for (let i = 0; i < 100; i++) await sql`insert into probe values (${'x'.repeat(1000)})`.execute(trx);
        })
        .then(() => undefined, (error: unknown) => error);
      expect((failure as { code?: string }).code).toBe('SQLITE_FULL');
      expect(isDatabaseUnavailable(failure)).toBe(true);
      await sql.raw('pragma max_page_count = 1073741823').execute(database.db);
      expect((await sql<{ n: number }>`select count(*) as n from probe`.execute(database.db)).rows[0]?.n).toBe(0);
    }));

  it('waiting for the connection is bounded by DATABASE_ACQUIRE_TIMEOUT_MS, and so is a ping; the queue goes on after', () =>
    withDatabase(async (database) => {
      let release!: () => void;
      const holding = database.db.transaction().execute(() => new Promise<void>((resolve) => (release = resolve)));
      await new Promise((resolve) => setImmediate(resolve));
      const started = performance.now();
      const [query, ping] = await Promise.allSettled([sql`select 1`.execute(database.db), database.ping(200)]);
      const waited = performance.now() - started;
      expect((query as PromiseRejectedResult).reason).toBeInstanceOf(DatabaseUnavailableError);
      expect((ping as PromiseRejectedResult).reason).toBeInstanceOf(DatabaseUnavailableError);
      expect(waited).toBeGreaterThanOrEqual(290);
      expect(waited).toBeLessThan(1000);
      release();
      await holding;
      // The waiters that gave up left the queue: the connection is handed on as before.
      expect((await sql<{ one: number }>`select 1 as one`.execute(database.db)).rows).toEqual([{ one: 1 }]);
      await database.ping(200);
    }));
});
