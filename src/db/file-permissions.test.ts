import { chmodSync, mkdirSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import SQLite from 'better-sqlite3';
import { sql } from 'kysely';
import { afterAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../config.js';
import { openDatabase, type Database } from './database.js';

const modeOf = (path: string) => statSync(path).mode & 0o777;

/** The database holds contacts' personal data: only the service's own user may read it. */
describe.skipIf(process.platform === 'win32')('data files on disk', () => {
  const base = mkdtempSync(join(tmpdir(), 'switchboard-perms-'));
  afterAll(() => rmSync(base, { recursive: true, force: true }));

  const write = async (database: Database) => {
    await sql`create table if not exists t (x integer)`.execute(database.db);
    await sql`insert into t values (1)`.execute(database.db);
  };

  it('creates DATA_DIR 0700 and the database, its -wal and -shm files 0600', async () => {
    const dataDir = join(base, 'fresh', 'data');
    const database = openDatabase({ dataDir });
    try {
      await write(database);
      const file = join(dataDir, 'switchboard.db');
      expect(modeOf(file).toString(8)).toBe('600');
      expect(modeOf(`${file}-wal`).toString(8)).toBe('600');
      expect(modeOf(`${file}-shm`).toString(8)).toBe('600');
      expect(modeOf(dataDir).toString(8)).toBe('700');
      expect(modeOf(join(base, 'fresh')).toString(8)).toBe('700');
    } finally {
      await database.close();
    }
  });

  it('creates DATA_DIR 0700 for the development secrets.key too', () => {
    const dataDir = join(base, 'config', 'data');
    loadConfig({ DATA_DIR: dataDir });
    expect(modeOf(dataDir).toString(8)).toBe('700');
    expect(modeOf(join(dataDir, 'secrets.key')).toString(8)).toBe('600');
  });

  it('leaves a DATA_DIR the operator made as they made it', async () => {
    const dataDir = join(base, 'operator');
    mkdirSync(dataDir, { mode: 0o750 });
    const database = openDatabase({ dataDir });
    await write(database);
    await database.close();
    loadConfig({ DATA_DIR: dataDir });
    expect(modeOf(dataDir).toString(8)).toBe('750');
    expect(modeOf(join(dataDir, 'switchboard.db')).toString(8)).toBe('600');
  });

  it('tightens files an earlier version left readable to others', async () => {
    const dataDir = join(base, 'upgraded');
    mkdirSync(dataDir);
    const file = join(dataDir, 'switchboard.db');
    // An earlier version's database, still open (say its node is draining): -wal and -shm exist and are not empty.
    const earlier = new SQLite(file);
    earlier.pragma('journal_mode = WAL');
    earlier.exec('create table t (x integer); insert into t values (1);');
    for (const path of [file, `${file}-wal`, `${file}-shm`]) chmodSync(path, 0o644);
    const database = openDatabase({ dataDir });
    try {
      await write(database);
      for (const path of [file, `${file}-wal`, `${file}-shm`]) expect(modeOf(path).toString(8), path).toBe('600');
    } finally {
      await database.close();
      earlier.close();
    }
  });
});
