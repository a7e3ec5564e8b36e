import type { PostgresCursor, PostgresPool, PostgresPoolClient } from 'kysely';
import type { Pool, PoolClient } from 'pg';
import { connectionStillSound } from './pg-pool.js';
import { TEMPLATE_MARK } from './query-template.js';
import { DatabaseUnavailableError } from './unavailable.js';

/**
 * The pg pool as Kysely sees it, with query templates (db/query-template.ts) run as
 * named prepared statements: PostgreSQL parses and plans each template's SQL once per
 * connection instead of on every run. For the one-statement submission insert, planning
 * cost about as much as executing.
 *
 * Only templates are named. Their SQL never changes, so a connection holds a handful of
 * prepared statements; naming every query (IN lists of any length, say) would let them
 * pile up for the life of each connection.
 *
 * A connection whose query failed without a plain answer from the server (a client-side
 * timeout, a broken socket: see connectionStillSound) is lost: the queries Kysely sends after
 * it on that connection (a transaction's ROLLBACK) fail at once instead of queueing behind a
 * statement that may never finish, and it goes back to the pool with the error, which drops
 * it. Returned as if sound, it would be lent to the next request mid-statement, possibly
 * inside the failed transaction, which a later COMMIT would then write.
 */
export function withPreparedTemplates(pool: Pool): PostgresPool {
  const names = new Map<string, string>();
  // Kysely keeps one connection object per client: the same client must always get the same wrapper.
  const wrappers = new WeakMap<PoolClient, PostgresPoolClient>();

  function nameOf(sql: string): string {
    let name = names.get(sql);
    if (name === undefined) {
      name = `template_${names.size + 1}`;
      names.set(sql, name);
    }
    return name;
  }

  function wrap(client: PoolClient): PostgresPoolClient {
    let wrapper = wrappers.get(client);
    if (wrapper === undefined) {
      let lost: Error | undefined;
      const noteFailure = (error: unknown): never => {
        if (!connectionStillSound(error)) lost ??= error instanceof Error ? error : new Error(String(error));
        throw error;
      };
      const send = (sql: string, parameters?: readonly unknown[]) => {
        if (lost) return Promise.reject(new DatabaseUnavailableError('The database connection was lost.', { cause: lost }));
        const query = sql.startsWith(TEMPLATE_MARK)
          ? client.query({ name: nameOf(sql), text: sql, values: parameters as unknown[] })
          : client.query(sql, parameters as unknown[]);
        return query.catch(noteFailure);
      };
      wrapper = {
        query: ((sqlOrCursor: string | PostgresCursor<unknown>, parameters?: readonly unknown[]) =>
          typeof sqlOrCursor === 'string' ? send(sqlOrCursor, parameters) : client.query(sqlOrCursor as never)) as unknown as PostgresPoolClient['query'],
        release: () => client.release(lost),
      };
      wrappers.set(client, wrapper);
    }
    return wrapper;
  }

  return {
    connect: async () => wrap(await pool.connect()),
    end: () => pool.end(),
  };
}
