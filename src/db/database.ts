import { chmodSync, closeSync, openSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import SQLite from 'better-sqlite3';
import { Kysely, PostgresDialect, sql, type SqliteDatabase } from 'kysely';
import { makeDataDir } from '../lib/data-dir.js';
import { withPreparedTemplates } from './pg-prepared.js';
import { consoleLog, startCheckpointer, type CheckpointerLog } from './sqlite-checkpointer.js';
import { FifoLock, FifoSqliteDialect } from './sqlite-driver.js';
import type { Pool } from 'pg';
import type { DB } from './tables.js';

export type Dialect = 'sqlite' | 'postgres';

export interface Database {
  db: Kysely<DB>;
  dialect: Dialect;
  /** One round trip to the database (readiness checks); rejects when it does not answer. */
  ping(): Promise<void>;
  close(): Promise<void>;
}

function ping(db: Kysely<DB>): Promise<void> {
  return sql`select 1`.execute(db).then(() => undefined);
}

export interface DatabaseOptions {
  /** A `postgres://` URL, or undefined for SQLite. */
  databaseUrl?: string | undefined;
  /** Where the SQLite file lives; `:memory:` for a throwaway database. */
  sqliteFile?: string;
  dataDir?: string;
  /** PostgreSQL schema to use instead of `public` (tests isolate each file in its own). */
  pgSchema?: string;
  pgPoolSize?: number;
  /** SQLite's `synchronous` (default `normal`); the server passes SQLITE_SYNCHRONOUS. */
  sqliteSynchronous?: SqliteSynchronous;
  /** Where background work (the SQLite checkpointer) reports failures; default: stderr. */
  log?: CheckpointerLog;
}

/**
 * In WAL mode, `normal` syncs the log only at checkpoints: a commit survives the process
 * crashing but an OS crash or power loss may lose the last ones. `full` syncs the log at
 * every commit (once per group-committed batch of submissions), so a commit survives both.
 */
export type SqliteSynchronous = 'normal' | 'full';

/**
 * Kysely prepares every query anew; preparing costs as much as running a small
 * statement. Statements are reusable, so keep the most recent ones by SQL text.
 */
function withStatementCache(sqlite: SQLite.Database, max = 512): SqliteDatabase {
  const statements = new Map<string, SQLite.Statement>();
  return {
    close: () => sqlite.close(),
    prepare: (sql: string) => {
      let statement = statements.get(sql);
      if (statement === undefined) {
        statement = sqlite.prepare(sql);
        if (statements.size >= max) statements.delete(statements.keys().next().value as string);
        statements.set(sql, statement);
      }
      return statement;
    },
  };
}

/**
 * The database holds contacts' personal data, so its files are for this user only (0600).
 * SQLite would create the database file 0644, but it gives the -wal and -shm files it
 * creates the database file's mode, so creating the file first is enough. Files an
 * earlier version left readable to others are tightened at every open, when they are
 * ours: a file someone else owns keeps what its owner gave it.
 */
function keepSqliteFilesPrivate(file: string): void {
  closeSync(openSync(file, 'a', 0o600));
  const uid = process.getuid?.();
  for (const path of [file, `${file}-wal`, `${file}-shm`]) {
    const stat = statSync(path, { throwIfNoEntry: false });
    if (stat && (stat.mode & 0o077) !== 0 && stat.uid === uid) chmodSync(path, 0o600);
  }
}

/**
 * The embedded default is one SQLite file in WAL mode. Kysely's SQLite dialect
 * serializes queries on its single connection, which is what SQLite wants anyway.
 */
function openSqlite(file: string, synchronous: SqliteSynchronous, log: CheckpointerLog): Database {
  if (file !== ':memory:') keepSqliteFilesPrivate(file);
  const sqlite = new SQLite(file);
  sqlite.pragma('journal_mode = WAL');
  sqlite.pragma(`synchronous = ${synchronous === 'full' ? 'FULL' : 'NORMAL'}`);
  sqlite.pragma('foreign_keys = ON');
  sqlite.pragma('busy_timeout = 5000');
  // Checkpoints run on a worker thread (see sqlite-checkpointer.ts), which sets how far the WAL may grow
  // before this connection steps in.
  const connectionLock = new FifoLock();
  const holdWrites = () => connectionLock.lock().then(() => () => connectionLock.unlock());
  const setAutocheckpoint = (frames: number) => void sqlite.pragma(`wal_autocheckpoint = ${frames}`);
  const checkpointer = file === ':memory:' ? undefined : startCheckpointer(file, { holdWrites, setAutocheckpoint, log });
  const db = new Kysely<DB>({ dialect: new FifoSqliteDialect({ database: withStatementCache(sqlite) }, connectionLock) });
  return {
    db,
    dialect: 'sqlite',
    ping: () => ping(db),
    close: async () => {
      await checkpointer?.stop();
      await db.destroy();
    },
  };
}

// The PostgreSQL driver is loaded only when DATABASE_URL asks for it: the embedded default never pays for it in memory.
const require = createRequire(import.meta.url);

function openPostgres(url: string, schema: string | undefined, poolSize: number): Database {
  const pg = require('pg') as { Pool: typeof Pool };
  const pool = new pg.Pool({
    connectionString: url,
    max: poolSize,
    ...(schema ? { options: `-c search_path=${schema}` } : {}),
  });
  const db = new Kysely<DB>({ dialect: new PostgresDialect({ pool: withPreparedTemplates(pool) }) });
  return { db, dialect: 'postgres', ping: () => ping(db), close: () => db.destroy() };
}

export function openDatabase(options: DatabaseOptions): Database {
  if (options.databaseUrl) return openPostgres(options.databaseUrl, options.pgSchema, options.pgPoolSize ?? 10);
  let file = options.sqliteFile;
  if (!file) {
    const dir = options.dataDir ?? './data';
    makeDataDir(dir);
    file = join(dir, 'switchboard.db');
  }
  return openSqlite(file, options.sqliteSynchronous ?? 'normal', options.log ?? consoleLog);
}
