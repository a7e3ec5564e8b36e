import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import SQLite from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { openDatabase } from './database.js';
import { migrateToLatest } from './migrate.js';
import { startCheckpointer, type CheckpointerOptions } from './sqlite-checkpointer.js';
import { FifoLock } from './sqlite-driver.js';

describe('SQLite WAL checkpoints on a worker thread', () => {
  it('move committed pages into the database file without the writer doing it', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'switchboard-wal-'));
    const file = join(dir, 'switchboard.db');
    const database = openDatabase({ sqliteFile: file });
    try {
      await migrateToLatest(database.db);
      const now = new Date().toISOString();
      await database.db.insertInto('orgs').values({ id: 'org_wal', name: 'WAL', default_country: 'US', created_at: now }).execute();
      const before = statSync(file).size;
      // About 500 WAL frames: under SQLite's default autocheckpoint (1,000 pages), so only the
      // worker can have moved them into the database file.
      for (let i = 0; i < 100; i++) {
        await database.db
          .insertInto('contacts')
          .values({ id: `ct_wal${i}`, org_id: 'org_wal', email: `p${i}@example.com`, phone: null, name: 'x'.repeat(500), company: null, source: 'api', custom: '{}', created_at: now, updated_at: now })
          .execute();
      }
      let after = statSync(file).size;
      for (let waited = 0; after <= before && waited < 5000; waited += 100) {
        await new Promise((resolve) => setTimeout(resolve, 100));
        after = statSync(file).size;
      }
      expect(after).toBeGreaterThan(before);
      expect(await database.db.selectFrom('contacts').select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow()).toEqual({ n: 100 });
    } finally {
      await database.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

/**
 * A WAL database written by a plain better-sqlite3 connection (the fallback checkpoint off, so
 * only the worker keeps the log in check), and a checkpointer whose requests to hold writes
 * take `lock` and are counted.
 */
function walFixture(name: string, options: Omit<CheckpointerOptions, 'holdWrites'>) {
  const dir = mkdtempSync(join(tmpdir(), `switchboard-${name}-`));
  const file = join(dir, `${name}.db`);
  const writer = new SQLite(file);
  writer.pragma('journal_mode = WAL');
  writer.pragma('synchronous = NORMAL');
  writer.pragma('wal_autocheckpoint = 0');
  writer.exec('create table t (id integer primary key, body text)');
  const insert = writer.prepare('insert into t (body) values (?)');
  const lock = new FifoLock();
  let holds = 0;
  const checkpointer = startCheckpointer(file, {
    ...options,
    holdWrites: async () => {
      holds++;
      await lock.lock();
      return () => lock.unlock();
    },
  });
  return {
    lock,
    holds: () => holds,
    /** One transaction of `rows` rows of `size` characters. */
    write: (rows: number, size: number) =>
      writer.transaction(() => {
        for (let i = 0; i < rows; i++) insert.run('x'.repeat(size));
      })(),
    logFrames: () => (writer.pragma('wal_checkpoint(PASSIVE)') as Array<{ log: number }>)[0]!.log,
    close: async () => {
      await checkpointer.stop();
      writer.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

describe('SQLite WAL restarts under a steady writer', () => {
  it('keep the log short: the writer holds off while the worker catches up, then the log starts over', async () => {
    const wal = walFixture('wal-restart', { busyIntervalMs: 5, restartFrames: 100 });
    try {
      const started = Date.now();
      let commits = 0;
      // A writer that never pauses on its own: a commit of a few pages, again and again, for a second.
      while (Date.now() - started < 1000) {
        commits++;
        await wal.lock.lock();
        wal.write(5, 2000);
        wal.lock.unlock();
        await new Promise((resolve) => setImmediate(resolve));
      }
      expect(wal.holds()).toBeGreaterThan(0);
      // Every commit adds at least three frames (10 KB of rows): without restarts the log would hold
      // them all, three times the commits or more; with them it holds only what came since the last one.
      expect(commits).toBeGreaterThan(100);
      expect(wal.logFrames()).toBeLessThan(commits);
    } finally {
      await wal.close();
    }
  });

  it('hold the writer once per restart, not again while the copied log waits for its next write', async () => {
    const wal = walFixture('wal-once', { busyIntervalMs: 5, idleIntervalMs: 5, restartFrames: 100 });
    try {
      // About 300 frames, then silence: the log is long but, once copied, only a write can restart it.
      wal.write(300, 3000);
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(wal.holds()).toBe(1);
    } finally {
      await wal.close();
    }
  });
});
