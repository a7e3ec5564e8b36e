import { chmodSync, closeSync, openSync, statSync } from 'node:fs';
import { join } from 'node:path';
import SQLite from 'better-sqlite3';
import { Kysely, PostgresDialect, type SqliteDatabase } from 'kysely';
import { makeDataDir } from '../lib/data-dir.js';
import { DEFAULT_DATABASE_LIMITS, type DatabaseLimits } from './limits.js';
import { createPgPool, pingPool } from './pg-pool.js';
import { withPreparedTemplates } from './pg-prepared.js';
import { consoleLog, startCheckpointer, type CheckpointerLog } from './sqlite-checkpointer.js';
import { FifoLock, FifoSqliteDialect } from './sqlite-driver.js';
import type { DB } from './tables.js';

export type Dialect = 'sqlite' | 'postgres';

export interface Database {
  db: Kysely<DB>;
  /**
   * For migrations: `db` without the statement limit, since a migration may build an index on
   * a large table or wait for another node's migration lock. On PostgreSQL a pool of its own
   * (one connection, opened on first use); on SQLite `db` itself.
   */
  migrationDb: Kysely<DB>;
  dialect: Dialect;
  /** The waits it was opened with (the group-commit runner bounds its queue with the acquire limit). */
  limits: DatabaseLimits;
  /** One round trip to the database (readiness checks); rejects when it does not answer within `timeoutMs`. */
  ping(timeoutMs: number): Promise<void>;
  /** PostgreSQL: the pool's connections (open, idle) and the queries waiting for one, for /metrics. SQLite has no pool. */
  poolStats?(): { total: number; idle: number; waiting: number };
  close(): Promise<void>;
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
  /** How long a request may wait on the database (default DEFAULT_DATABASE_LIMITS); the server passes the DATABASE_*_TIMEOUT_MS settings. */
  limits?: DatabaseLimits;
  /** SQLite's `synchronous` (default `normal`); the server passes SQLITE_SYNCHRONOUS. */
  sqliteSynchronous?: SqliteSynchronous;
  /** Where background work (the SQLite checkpointer, the PostgreSQL pool) reports failures; default: stderr. */
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
function openSqlite(file: string, synchronous: SqliteSynchronous, limits: DatabaseLimits, log: CheckpointerLog): Database {
  if (file !== ':memory:') keepSqliteFilesPrivate(file);
  const sqlite = new SQLite(file);
  // Waiting for another process's lock blocks the event loop (see limits.ts); past it, SQLITE_BUSY answers 503.
  sqlite.pragma(`busy_timeout = ${limits.sqliteBusyTimeoutMs}`);
  sqlite.pragma('journal_mode = WAL');
  sqlite.pragma(`synchronous = ${synchronous === 'full' ? 'FULL' : 'NORMAL'}`);
  sqlite.pragma('foreign_keys = ON');
  // Deleted and overwritten content is zeroed, in pages and on the freelist: an erased person (privacy/) leaves no
  // readable trace in the file once the WAL is checkpointed (docs/privacy.md).
  sqlite.pragma('secure_delete = ON');
  // Checkpoints run on a worker thread (see sqlite-checkpointer.ts), which sets how far the WAL may grow
  // before this connection steps in.
  const connectionLock = new FifoLock();
  const holdWrites = () => connectionLock.lock().then(() => () => connectionLock.unlock());
  const setAutocheckpoint = (frames: number) => void sqlite.pragma(`wal_autocheckpoint = ${frames}`);
  const checkpointer = file === ':memory:' ? undefined : startCheckpointer(file, { holdWrites, setAutocheckpoint, log });
  const connection = { lock: connectionLock, acquireTimeoutMs: limits.acquireTimeoutMs, inTransaction: () => sqlite.inTransaction };
  const db = new Kysely<DB>({ dialect: new FifoSqliteDialect({ database: withStatementCache(sqlite) }, connection) });
  const select1 = sqlite.prepare('select 1');
  return {
    db,
    migrationDb: db,
    dialect: 'sqlite',
    limits,
    ping: async (timeoutMs) => {
      await connectionLock.lock(timeoutMs);
      try {
        select1.get();
      } finally {
        connectionLock.unlock();
      }
    },
    close: async () => {
      await checkpointer?.stop();
      await db.destroy();
    },
  };
}

function openPostgres(url: string, schema: string | undefined, poolSize: number, limits: DatabaseLimits, log: CheckpointerLog): Database {
  const pool = createPgPool({ url, schema, size: poolSize, limits, limitStatements: true, log });
  const db = new Kysely<DB>({ dialect: new PostgresDialect({ pool: withPreparedTemplates(pool) }) });
  // Kysely calls the function on the first query: a server that never migrates opens no second pool.
  const migrationDb = new Kysely<DB>({
    dialect: new PostgresDialect({ pool: async () => withPreparedTemplates(createPgPool({ url, schema, size: 1, limits, limitStatements: false, log })) }),
  });
  return {
    db,
    migrationDb,
    dialect: 'postgres',
    limits,
    ping: (timeoutMs) => pingPool(pool, timeoutMs),
    poolStats: () => ({ total: pool.totalCount, idle: pool.idleCount, waiting: pool.waitingCount }),
    close: async () => {
      await migrationDb.destroy();
      await db.destroy();
    },
  };
}

/** The SQLite file the server uses in DATA_DIR (the backup and restore commands name the same one). */
export function sqliteFileIn(dataDir: string): string {
  return join(dataDir, 'switchboard.db');
}

export function openDatabase(options: DatabaseOptions): Database {
  const limits = options.limits ?? DEFAULT_DATABASE_LIMITS;
  const log = options.log ?? consoleLog;
  if (options.databaseUrl) return openPostgres(options.databaseUrl, options.pgSchema, options.pgPoolSize ?? 10, limits, log);
  let file = options.sqliteFile;
  if (!file) {
    const dir = options.dataDir ?? './data';
    makeDataDir(dir);
    file = sqliteFileIn(dir);
  }
  return openSqlite(file, options.sqliteSynchronous ?? 'normal', limits, log);
}
