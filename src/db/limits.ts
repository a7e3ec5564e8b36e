/**
 * How long a request may wait on the database before it is answered 503 SERVICE_UNAVAILABLE.
 * Without these a paused or unreachable PostgreSQL held every request (and /readyz) for as long
 * as it was gone: 40 s of SIGSTOP meant 40 s of waiting, and a load balancer could not take the
 * node out. config.ts reads them from the environment (DATABASE_*_TIMEOUT_MS, SQLITE_BUSY_TIMEOUT_MS).
 */
export interface DatabaseLimits {
  /** PostgreSQL: opening one connection (TCP, TLS, authentication). */
  connectTimeoutMs: number;
  /** Waiting for a pooled connection, connecting included (PostgreSQL's pool; SQLite's one connection). */
  acquireTimeoutMs: number;
  /** PostgreSQL: one statement (the server cancels it; a server that does not answer at all is given up on shortly after). */
  statementTimeoutMs: number;
  /** SQLite: how long a write waits for a lock another process holds. */
  sqliteBusyTimeoutMs: number;
}

/**
 * The defaults, each far above what a healthy database needs and well under what a client or
 * a load balancer waits for:
 * - connect 2 s: a new connection to PostgreSQL on loopback with SCRAM authentication took
 *   8 ms (median of 40) and at most 72 ms, on this machine with a load average of 10; across
 *   a data centre with TLS, add a few round trips.
 * - acquire 3 s: under the 50-connection benchmark the slowest 1% of whole requests took at
 *   most 133 ms on a loaded machine (docs/benchmarks.md), queueing for a connection included;
 *   waiting 20 times that means the database is not keeping up, and an answer beats a queue.
 * - statement 5 s: our statements are indexed lookups and small batched writes (a page of a
 *   list or of the CSV export at most) that take milliseconds; a statement still running after
 *   5 s is waiting on something (a lock, a stuck disk) that retrying later handles better.
 * - SQLite busy 1 s: better-sqlite3 is synchronous, so while a write waits for another
 *   process's lock the whole event loop waits with it and no other request is served. Another
 *   process's write transaction (a CLI command's) holds the lock only while its few statements
 *   run. 1 s leaves /readyz its 2 s to answer.
 */
export const DEFAULT_DATABASE_LIMITS: DatabaseLimits = {
  connectTimeoutMs: 2000,
  acquireTimeoutMs: 3000,
  statementTimeoutMs: 5000,
  sqliteBusyTimeoutMs: 1000,
};
