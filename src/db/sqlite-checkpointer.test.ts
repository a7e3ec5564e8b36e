import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import SQLite from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { openDatabase } from './database.js';
import { migrateToLatest } from './migrate.js';
import { startCheckpointer } from './sqlite-checkpointer.js';
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

describe('SQLite WAL restarts under a steady writer', () => {
  it('keep the log short: the writer holds off while the worker catches up, then the log starts over', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'switchboard-wal-restart-'));
    const file = join(dir, 'steady.db');
    const writer = new SQLite(file);
    writer.pragma('journal_mode = WAL');
    writer.pragma('synchronous = NORMAL');
    // The fallback out of the way, so only the worker keeps the log in check.
    writer.pragma('wal_autocheckpoint = 0');
    writer.exec('create table t (id integer primary key, body text)');
    const lock = new FifoLock();
    let holds = 0;
    const checkpointer = startCheckpointer(file, {
      holdWrites: async () => {
        holds++;
        await lock.lock();
        return () => lock.unlock();
      },
      busyIntervalMs: 5,
      restartFrames: 100,
    });
    try {
      const insert = writer.prepare('insert into t (body) values (?)');
      const started = Date.now();
      let commits = 0;
      // A writer that never pauses on its own: a commit of a few pages, again and again, for a second.
      while (Date.now() - started < 1000) {
        commits++;
        await lock.lock();
        writer.transaction(() => {
          for (let i = 0; i < 5; i++) insert.run('x'.repeat(2000));
        })();
        lock.unlock();
        await new Promise((resolve) => setImmediate(resolve));
      }
      expect(holds).toBeGreaterThan(0);
      // Every commit adds at least three frames (10 KB of rows): without restarts the log would hold them all.
      const frames = (writer.pragma('wal_checkpoint(PASSIVE)') as Array<{ log: number }>)[0]!.log;
      expect(commits).toBeGreaterThan(100);
      expect(frames).toBeLessThan(Math.min(400, commits));
    } finally {
      await checkpointer.stop();
      writer.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('SQLite WAL catch-ups', () => {
  it('hold the writer once per restart, not again while the copied log waits for its next write', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'switchboard-wal-once-'));
    const file = join(dir, 'once.db');
    const writer = new SQLite(file);
    writer.pragma('journal_mode = WAL');
    writer.pragma('wal_autocheckpoint = 0');
    writer.exec('create table t (id integer primary key, body text)');
    const insert = writer.prepare('insert into t (body) values (?)');
    // About 300 frames, then silence: the log is long but, once copied, only a write can restart it.
    writer.transaction(() => {
      for (let i = 0; i < 300; i++) insert.run('x'.repeat(3000));
    })();
    const lock = new FifoLock();
    let holds = 0;
    const checkpointer = startCheckpointer(file, {
      holdWrites: async () => {
        holds++;
        await lock.lock();
        return () => lock.unlock();
      },
      busyIntervalMs: 5,
      idleIntervalMs: 5,
      restartFrames: 100,
    });
    try {
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(holds).toBe(1);
    } finally {
      await checkpointer.stop();
      writer.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
