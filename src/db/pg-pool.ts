import { createRequire } from 'node:module';
import type { ClientConfig, Pool, PoolClient } from 'pg';
import type { DatabaseLimits } from './limits.js';
import { unavailableReason } from './unavailable.js';

// The PostgreSQL driver is loaded only when DATABASE_URL asks for it: the embedded default never pays for it in memory.
const require = createRequire(import.meta.url);

/** Where the pool reports a connection that died while idle: a pino logger fits. */
export interface PoolLog {
  warn(details: object, message: string): void;
}

export interface PgPoolOptions {
  url: string;
  /** PostgreSQL schema to use instead of `public`. */
  schema?: string | undefined;
  size: number;
  limits: DatabaseLimits;
  /** False for migrations: a statement may then run as long as it needs (an index on a large table, another node's migration lock). */
  limitStatements: boolean;
  log: PoolLog;
}

/**
 * How much longer than the server's statement_timeout we wait for an answer before deciding
 * the server is not answering at all (paused, or the network gone). A server that is there
 * cancels the statement itself, keeps the connection usable and sends its error within a few
 * ms; the client-side limit is only for one that sends nothing.
 */
const SILENT_SERVER_GRACE_MS = 1000;

/**
 * A pg pool that survives its database going away:
 * - An idle connection that dies (the server restarted, `pg_terminate_backend`) makes pg-pool
 *   emit 'error' on the pool; with no listener that is an uncaught exception and the process
 *   ended. The listener logs it; pg-pool has already dropped the connection, and the next
 *   request opens a new one.
 * - A checked-out connection's errors have no listener in pg-pool (it removes its own while the
 *   connection is lent): each client listens to its own errors, so they reach the query that
 *   is waiting (or the next one) instead of the process.
 * - Bounded waits: `connectionTimeoutMillis` on the pool bounds the whole wait for a connection,
 *   queueing for a free one included (pg-pool times out pending waiters with it); the client's
 *   own `connectionTimeoutMillis` bounds opening one; `statement_timeout` has the server cancel
 *   a long statement; `query_timeout` gives up on a server that does not answer at all.
 * - TCP keep-alive lets the OS notice a database host that vanished without closing the
 *   connection (a lost host, a NAT that dropped the flow) on connections no timer watches.
 */
export function createPgPool(options: PgPoolOptions): Pool {
  const pg = require('pg') as typeof import('pg');
  const { limits, log } = options;

  class BoundedClient extends pg.Client {
    constructor(config?: ClientConfig) {
      super({ ...config, connectionTimeoutMillis: limits.connectTimeoutMs });
      // The error also fails the query in flight, or the next one ("not queryable"); the pool
      // sees the client is no longer queryable when it comes back and drops it.
      this.on('error', () => undefined);
    }
  }

  const pool = new pg.Pool({
    connectionString: options.url,
    max: options.size,
    Client: BoundedClient as unknown as new () => PoolClient,
    connectionTimeoutMillis: limits.acquireTimeoutMs,
    keepAlive: true,
    keepAliveInitialDelayMillis: 10_000,
    ...(options.limitStatements ? { statement_timeout: limits.statementTimeoutMs, query_timeout: limits.statementTimeoutMs + SILENT_SERVER_GRACE_MS } : {}),
    ...(options.schema ? { options: `-c search_path=${options.schema}` } : {}),
  });
  pool.on('error', (error) => {
    log.warn({ reason: unavailableReason(error) }, 'an idle PostgreSQL connection failed; it was dropped and will be replaced');
  });
  return pool;
}

/**
 * Whether a connection whose query failed with `error` may go back to the pool. Only when the
 * server itself answered with an ordinary error: the connection is then idle and in a known
 * state. After anything else (a client-side timeout, a broken socket, a FATAL) the server may
 * still be running the statement, or the connection is gone, so it is dropped.
 */
export function connectionStillSound(error: unknown): boolean {
  return typeof error === 'object' && error !== null && (error as { severity?: unknown }).severity === 'ERROR';
}

/**
 * One round trip for readiness on a pooled connection, given up after `timeoutMs` of waiting
 * for the answer (the connection is then dropped, not left behind a statement that may never
 * finish). Waiting for the connection itself is bounded by the pool's acquire limit.
 */
export async function pingPool(pool: Pool, timeoutMs: number): Promise<void> {
  const client = await pool.connect();
  try {
    await client.query({ text: 'select 1', query_timeout: timeoutMs } as never);
  } catch (error) {
    client.release(error instanceof Error ? error : new Error(String(error)));
    throw error;
  }
  client.release();
}
