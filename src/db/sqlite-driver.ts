import { SqliteDialect, SqliteDriver, type DatabaseConnection, type Driver, type SqliteDialectConfig } from 'kysely';

/**
 * A first-in, first-out lock. Kysely's own SQLite mutex wakes every waiter on each
 * release and all but one go back to sleep: with 50 requests queued that is 50 wake-ups
 * per query, which under load cost more than the queries themselves.
 */
export class FifoLock {
  private locked = false;
  private readonly waiters: Array<() => void> = [];

  lock(): Promise<void> {
    if (!this.locked) {
      this.locked = true;
      return Promise.resolve();
    }
    return new Promise((resolve) => this.waiters.push(resolve));
  }

  /** Hands the lock straight to the next waiter, so it stays held between them. */
  unlock(): void {
    const next = this.waiters.shift();
    if (next) next();
    else this.locked = false;
  }
}

/** Kysely's SQLite driver with requests served in arrival order, one at a time. */
class FifoSqliteDriver extends SqliteDriver {
  constructor(
    config: SqliteDialectConfig,
    private readonly queue: FifoLock,
  ) {
    super(config);
  }

  override async acquireConnection(): Promise<DatabaseConnection> {
    await this.queue.lock();
    return super.acquireConnection();
  }

  override async releaseConnection(): Promise<void> {
    await super.releaseConnection();
    this.queue.unlock();
  }
}

/** `queue` is the connection's lock: whoever holds it (a query, a transaction, the checkpointer) has the connection to itself. */
export class FifoSqliteDialect extends SqliteDialect {
  constructor(
    private readonly driverConfig: SqliteDialectConfig,
    private readonly queue: FifoLock,
  ) {
    super(driverConfig);
  }

  override createDriver(): Driver {
    return new FifoSqliteDriver(this.driverConfig, this.queue);
  }
}
