import { SqliteDialect, SqliteDriver, type DatabaseConnection, type Driver, type SqliteDialectConfig } from 'kysely';
import { DatabaseUnavailableError } from './unavailable.js';

interface Waiter {
  grant(): void;
}

/**
 * A first-in, first-out lock. Kysely's own SQLite mutex wakes every waiter on each
 * release and all but one go back to sleep: with 50 requests queued that is 50 wake-ups
 * per query, which under load cost more than the queries themselves.
 */
export class FifoLock {
  private locked = false;
  private readonly waiters: Waiter[] = [];

  /**
   * Resolves once the lock is ours. With `timeoutMs`, rejects with DatabaseUnavailableError
   * if it is not ours by then (and leaves the queue): while another process holds SQLite's
   * write lock every holder is slow, and the queue would otherwise grow without bound.
   */
  lock(timeoutMs?: number): Promise<void> {
    if (!this.locked) {
      this.locked = true;
      return Promise.resolve();
    }
    if (timeoutMs === undefined) return new Promise((resolve) => this.waiters.push({ grant: resolve }));
    return new Promise((resolve, reject) => {
      const waiter: Waiter = {
        grant: () => {
          clearTimeout(timer);
          resolve();
        },
      };
      const timer = setTimeout(() => {
        const index = this.waiters.indexOf(waiter);
        if (index >= 0) this.waiters.splice(index, 1);
        reject(new DatabaseUnavailableError(`Waited more than ${timeoutMs} ms for the database connection.`));
      }, timeoutMs);
      this.waiters.push(waiter);
    });
  }

  /** Hands the lock straight to the next waiter, so it stays held between them. */
  unlock(): void {
    const next = this.waiters.shift();
    if (next) next.grant();
    else this.locked = false;
  }
}

/** The one SQLite connection as the driver shares it. */
export interface SqliteConnectionSlot {
  /** Whoever holds it (a query, a transaction, the checkpointer) has the connection to itself. */
  lock: FifoLock;
  /** The longest a query or transaction waits for it (DATABASE_ACQUIRE_TIMEOUT_MS). */
  acquireTimeoutMs: number;
  /** Whether a transaction is open on the connection (better-sqlite3's `inTransaction`). */
  inTransaction(): boolean;
}

/** Kysely's SQLite driver with requests served in arrival order, one at a time. */
class FifoSqliteDriver extends SqliteDriver {
  constructor(
    config: SqliteDialectConfig,
    private readonly slot: SqliteConnectionSlot,
  ) {
    super(config);
  }

  override async acquireConnection(): Promise<DatabaseConnection> {
    await this.slot.lock.lock(this.slot.acquireTimeoutMs);
    return super.acquireConnection();
  }

  override async releaseConnection(): Promise<void> {
    await super.releaseConnection();
    this.slot.lock.unlock();
  }

  /**
   * SQLite ends the transaction itself after some failures (SQLITE_FULL, some I/O errors); a
   * ROLLBACK then fails with "no transaction is active", and Kysely would answer that error
   * instead of the one that says what happened.
   */
  override async rollbackTransaction(connection: DatabaseConnection): Promise<void> {
    if (this.slot.inTransaction()) await super.rollbackTransaction(connection);
  }
}

export class FifoSqliteDialect extends SqliteDialect {
  constructor(
    private readonly driverConfig: SqliteDialectConfig,
    private readonly slot: SqliteConnectionSlot,
  ) {
    super(driverConfig);
  }

  override createDriver(): Driver {
    return new FifoSqliteDriver(this.driverConfig, this.slot);
  }
}
