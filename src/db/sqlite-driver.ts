import { SqliteDialect, SqliteDriver, type DatabaseConnection, type Driver, type SqliteDialectConfig } from 'kysely';

/**
 * A first-in, first-out lock. Kysely's own SQLite mutex wakes every waiter on each
 * release and all but one go back to sleep: with 50 requests queued that is 50 wake-ups
 * per query, which under load cost more than the queries themselves.
 */
class FifoLock {
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
  private readonly queue = new FifoLock();

  override async acquireConnection(): Promise<DatabaseConnection> {
    await this.queue.lock();
    return super.acquireConnection();
  }

  override async releaseConnection(): Promise<void> {
    await super.releaseConnection();
    this.queue.unlock();
  }
}

export class FifoSqliteDialect extends SqliteDialect {
  private readonly driverConfig: SqliteDialectConfig;

  constructor(config: SqliteDialectConfig) {
    super(config);
    this.driverConfig = config;
  }

  override createDriver(): Driver {
    return new FifoSqliteDriver(this.driverConfig);
  }
}
