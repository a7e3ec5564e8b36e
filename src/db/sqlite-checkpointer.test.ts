import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import SQLite from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { openDatabase } from './database.js';
import { migrateToLatest } from './migrate.js';
import { SQLITE_DEFAULT_AUTOCHECKPOINT, startCheckpointer, type CheckpointerLog, type CheckpointerOptions } from './sqlite-checkpointer.js';
import { FifoLock } from './sqlite-driver.js';

interface LogLine {
  level: 'warn' | 'error';
  details: Record<string, unknown>;
  message: string;
}

function recordingLog(): CheckpointerLog & { lines: LogLine[] } {
  const lines: LogLine[] = [];
  return {
    lines,
    warn: (details, message) => lines.push({ level: 'warn', details: details as Record<string, unknown>, message }),
    error: (details, message) => lines.push({ level: 'error', details: details as Record<string, unknown>, message }),
  };
}

/** Waits until `condition` holds, checking every few milliseconds; fails after `ms`. */
async function until(condition: () => boolean, what: string, ms = 10_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`gave up waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

/** `promise`, or a failure naming `what` if it has not settled after `ms`. */
async function within<T>(promise: Promise<T>, what: string, ms = 5000): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(`gave up waiting for ${what}`)), ms)));
  try {
    return await Promise.race([promise, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

describe('SQLite WAL checkpoints on a worker thread', () => {
  it('move committed pages into the database file without the writer doing it', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'switchboard-wal-'));
    const file = join(dir, 'switchboard.db');
    const log = recordingLog();
    const database = openDatabase({ sqliteFile: file, log });
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
      await until(() => statSync(file).size > before, 'the database file to grow');
      expect(await database.db.selectFrom('contacts').select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow()).toEqual({ n: 100 });
      expect(log.lines).toEqual([]);
    } finally {
      await database.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

type FixtureOptions = Omit<CheckpointerOptions, 'holdWrites' | 'setAutocheckpoint' | 'log'> & {
  /** The file the worker is told to open, when not the fixture's database. */
  checkpointFile?: string;
};

/**
 * A WAL database written by a plain better-sqlite3 connection whose writes take `lock`, as
 * the app's do, and a checkpointer that holds writes through the same lock (counted), sets the
 * writer's autocheckpoint, and logs to `log`.
 */
function walFixture(name: string, options: FixtureOptions = {}) {
  const dir = mkdtempSync(join(tmpdir(), `switchboard-${name}-`));
  const file = join(dir, `${name}.db`);
  const writer = new SQLite(file);
  writer.pragma('journal_mode = WAL');
  writer.pragma('synchronous = NORMAL');
  writer.exec('create table t (id integer primary key, body text)');
  const insert = writer.prepare('insert into t (body) values (?)');
  const lock = new FifoLock();
  const log = recordingLog();
  let holds = 0;
  const { checkpointFile, ...checkpointerOptions } = options;
  const checkpointer = startCheckpointer(checkpointFile ?? file, {
    ...checkpointerOptions,
    log,
    setAutocheckpoint: (frames) => void writer.pragma(`wal_autocheckpoint = ${frames}`),
    holdWrites: async () => {
      holds++;
      await lock.lock();
      return () => lock.unlock();
    },
  });
  /** One transaction of `rows` rows of `size` characters. */
  const write = (rows: number, size: number) =>
    writer.transaction(() => {
      for (let i = 0; i < rows; i++) insert.run('x'.repeat(size));
    })();
  return {
    lock,
    log,
    checkpointer,
    holds: () => holds,
    write,
    /** A write that waits its turn for the connection, as the app's queries do. */
    commit: async (rows: number, size: number) => {
      await lock.lock();
      try {
        write(rows, size);
      } finally {
        lock.unlock();
      }
    },
    autocheckpoint: () => writer.pragma('wal_autocheckpoint', { simple: true }) as number,
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
      // A writer that never pauses on its own (a commit of a few pages, again and again, waiting only
      // for its turn at the connection) until the worker has had it hold off three times.
      const deadline = Date.now() + 20_000;
      let commits = 0;
      while (wal.holds() < 3) {
        if (Date.now() > deadline) throw new Error(`the worker asked for ${wal.holds()} holds in ${commits} commits`);
        await wal.commit(5, 2000);
        commits++;
        await new Promise((resolve) => setImmediate(resolve));
      }
      // The next commit waits for the third catch-up, then starts the log over: the log holds that commit
      // alone (a few frames), where without restarts it would hold every commit, three frames each or more.
      await wal.commit(5, 2000);
      expect(commits).toBeGreaterThan(50);
      expect(wal.logFrames()).toBeLessThan(20);
      expect(wal.log.lines).toEqual([]);
    } finally {
      await wal.close();
    }
  });

  it('hold the writer once per restart, not again while the copied log waits for its next write', async () => {
    const wal = walFixture('wal-once', { manualTicks: true, restartFrames: 100 });
    try {
      // About 250 frames, then silence: the log is long but, once copied, only a write can restart it.
      wal.write(300, 3000);
      await wal.checkpointer.tick();
      expect(wal.holds()).toBe(1);
      // Our turn at the connection comes once the hold has ended.
      await within(wal.commit(0, 0), 'the hold to end');
      for (let i = 0; i < 5; i++) await wal.checkpointer.tick();
      expect(wal.holds()).toBe(1);
      // The next write starts the log over: short again, nothing to hold for.
      wal.write(1, 10);
      await wal.checkpointer.tick();
      expect(wal.holds()).toBe(1);
      expect(wal.logFrames()).toBeLessThan(10);
    } finally {
      await wal.close();
    }
  });
});

describe('SQLite checkpointer failures', () => {
  it('a worker that cannot open the database: logged once, and SQLite checkpoints the log itself', async () => {
    // A file that does not exist: the worker opens only existing databases, so it fails as it starts.
    const wal = walFixture('wal-no-worker', { checkpointFile: join(tmpdir(), `switchboard-missing-${process.pid}-${Date.now()}.db`) });
    try {
      await until(() => wal.log.lines.length > 0, 'the failure to be logged');
      await until(() => wal.autocheckpoint() === SQLITE_DEFAULT_AUTOCHECKPOINT, 'the fallback autocheckpoint');
      // About 1,500 frames in commits of 25: well past SQLite's threshold of 1,000, but short of the 16,000
      // the main connection is left at while the worker runs. Only SQLite's own checkpoints can have restarted the log.
      for (let i = 0; i < 60; i++) await within(wal.commit(50, 2000), 'a write');
      expect(wal.logFrames()).toBeLessThan(SQLITE_DEFAULT_AUTOCHECKPOINT);
      await within(wal.checkpointer.stop(), 'stop');
      await expect(wal.checkpointer.tick()).rejects.toThrow(/not running/);
      expect(wal.log.lines).toHaveLength(1);
      expect(wal.log.lines[0]).toMatchObject({ level: 'error', message: expect.stringContaining('checkpoint worker failed') });
      expect(String(wal.log.lines[0]!.details.err)).toMatch(/cannot open .*missing.*unable to open database file/);
    } finally {
      await wal.close();
    }
  });

  it('a worker that never finishes its catch-up has the writer back after the hold limit', async () => {
    const wal = walFixture('wal-stuck', {
      workerUrl: new URL('../../test/support/stuck-checkpoint-worker.js', import.meta.url),
      holdLimitMs: 100,
    });
    try {
      await until(() => wal.holds() === 1, 'the hold request');
      await within(wal.commit(1, 10), 'the writer to be released', 5000);
      expect(wal.log.lines).toEqual([
        { level: 'warn', details: expect.objectContaining({ holdLimitMs: 100 }), message: expect.stringContaining('did not catch up within the hold limit') },
      ]);
    } finally {
      await wal.close();
    }
  });
});
