import { sql, type RawBuilder } from 'kysely';
import type { CursorPosition } from '../http/cursor.js';

/**
 * `(created_at, id) < (cursor)` for newest-first keyset pages. Row-value comparison works
 * on SQLite and PostgreSQL and uses the (org_id, created_at, id) indexes. `table` qualifies
 * the columns when the query joins.
 */
export function before(cursor: CursorPosition, table?: string): RawBuilder<boolean> {
  const col = (name: string) => (table ? sql.ref(`${table}.${name}`) : sql.ref(name));
  return sql<boolean>`(${col('created_at')}, ${col('id')}) < (${cursor.createdAt}, ${cursor.id})`;
}
