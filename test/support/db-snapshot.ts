import type { Database } from '../../src/db/database.js';

/**
 * Columns a request may write without changing anything a user owns: when a key or a session was
 * last used (written at most once a minute by the auth hooks), when an app last got a token (by the token endpoint, likewise).
 */
const BOOKKEEPING = new Set(['last_used_at', 'last_seen_at', 'last_token_at']);

/**
 * Every row of every table (bookkeeping columns left out), each table's rows sorted: two snapshots
 * are equal when a request wrote nothing. Tables come from the database itself, so a new one is
 * covered the moment its migration runs.
 */
export async function databaseSnapshot(database: Database): Promise<Record<string, string[]>> {
  const tables = await database.db.introspection.getTables();
  // On PostgreSQL other test files' schemas show the same names; the unqualified name reads this test's own.
  const names = [...new Set(tables.map((table) => table.name))].filter((name) => !name.startsWith('kysely_')).sort();
  const snapshot: Record<string, string[]> = {};
  for (const name of names) {
    const rows = (await database.db.selectFrom(name as 'orgs').selectAll().execute()) as Record<string, unknown>[];
    snapshot[name] = rows.map((row) => JSON.stringify(Object.entries(row).filter(([column]) => !BOOKKEEPING.has(column)))).sort();
  }
  return snapshot;
}

/** The tables whose rows differ between two snapshots. */
export function changedTables(before: Record<string, string[]>, after: Record<string, string[]>): string[] {
  return Object.keys({ ...before, ...after }).filter((name) => JSON.stringify(before[name]) !== JSON.stringify(after[name]));
}
