import type { PostgresCursor, PostgresPool, PostgresPoolClient } from 'kysely';
import type { Pool, PoolClient } from 'pg';
import { TEMPLATE_MARK } from './query-template.js';

/**
 * The pg pool as Kysely sees it, with query templates (db/query-template.ts) run as
 * named prepared statements: PostgreSQL parses and plans each template's SQL once per
 * connection instead of on every run. For the one-statement submission insert, planning
 * cost about as much as executing.
 *
 * Only templates are named. Their SQL never changes, so a connection holds a handful of
 * prepared statements; naming every query (IN lists of any length, say) would let them
 * pile up for the life of each connection.
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
      wrapper = {
        query: ((sqlOrCursor: string | PostgresCursor<unknown>, parameters?: readonly unknown[]) => {
          if (typeof sqlOrCursor !== 'string') return client.query(sqlOrCursor as never);
          if (!sqlOrCursor.startsWith(TEMPLATE_MARK)) return client.query(sqlOrCursor, parameters as unknown[]);
          return client.query({ name: nameOf(sqlOrCursor), text: sqlOrCursor, values: parameters as unknown[] });
        }) as unknown as PostgresPoolClient['query'],
        release: () => client.release(),
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
