import { PostgresAdapter, sql, type Kysely, type RawBuilder, type SelectQueryBuilder } from 'kysely';

/** Query pieces every repository shares, written once so they behave the same on SQLite and PostgreSQL. */

/** Where a newest-first page starts: the (createdAt, id) of the last row of the page before (http/cursor.ts encodes it). */
export interface CursorPosition {
  createdAt: string;
  id: string;
}

/**
 * `(created_at, id) < (cursor)` for newest-first keyset pages. Row-value comparison works
 * on both dialects and uses the (tenant, created_at, id) indexes. `table` qualifies the
 * columns when the query joins.
 */
export function olderThan(cursor: CursorPosition, table?: string): RawBuilder<boolean> {
  const col = (name: string) => (table ? sql.ref(`${table}.${name}`) : sql.ref(name));
  return sql<boolean>`(${col('created_at')}, ${col('id')}) < (${cursor.createdAt}, ${cursor.id})`;
}

/**
 * One newest-first keyset page: rows older than the cursor, ordered by (created_at, id)
 * descending, one more than `limit` so the caller knows whether another page follows
 * (see `toPage`). `table` qualifies the columns when the query joins.
 */
export function newestFirst<DB, TB extends keyof DB, O>(
  query: SelectQueryBuilder<DB, TB, O>,
  limit: number,
  cursor: CursorPosition | undefined,
  table?: string,
): SelectQueryBuilder<DB, TB, O> {
  const col = (name: string) => sql.ref(table ? `${table}.${name}` : name);
  return query
    .$if(cursor !== undefined, (qb) => qb.where(olderThan(cursor as CursorPosition, table)))
    .orderBy(col('created_at'), 'desc')
    .orderBy(col('id'), 'desc')
    .limit(limit + 1);
}

/** `%text%` for LIKE, lowercased, with LIKE's own wildcards (and the escape character, a backslash) taken literally. */
export function containsPattern(text: string): string {
  return `%${text.toLowerCase().replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
}

/** Case-insensitive substring match on both dialects (PostgreSQL's LIKE is case-sensitive). */
export function matchesText(column: string, text: string): RawBuilder<boolean> {
  return sql<boolean>`lower(${sql.ref(column)}) like ${containsPattern(text)} escape '\\'`;
}

/** better-sqlite3 and pg report unique violations differently. */
export function isUniqueViolation(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return code === '23505' || code === 'SQLITE_CONSTRAINT_UNIQUE';
}

/** A write refused because a row still refers to the one written (or refers to a row that is gone). */
export function isForeignKeyViolation(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return code === '23503' || code === 'SQLITE_CONSTRAINT_FOREIGNKEY';
}

/**
 * PostgreSQL: locks the selected rows and passes over rows another transaction holds, so
 * several nodes deleting expired rows at once each take their own batch instead of waiting
 * on one another. SQLite has a single writer and no row locks (nor the syntax).
 */
export function skipLockedOnPostgres<DB, TB extends keyof DB, O>(db: Kysely<any>, query: SelectQueryBuilder<DB, TB, O>): SelectQueryBuilder<DB, TB, O> {
  return db.getExecutor().adapter instanceof PostgresAdapter ? query.forUpdate().skipLocked() : query;
}

/**
 * PostgreSQL: locks the selected row until the transaction ends, so units of work that lock it first run
 * one after another (http/tenant-limits.ts: a count and the insert it allows). FOR NO KEY UPDATE, not FOR
 * UPDATE: inserts that refer to the row (a foreign key takes FOR KEY SHARE) do not wait for it. SQLite has a
 * single writer and no row locks (nor the syntax).
 */
export function lockedOnPostgres<DB, TB extends keyof DB, O>(db: Kysely<any>, query: SelectQueryBuilder<DB, TB, O>): SelectQueryBuilder<DB, TB, O> {
  return db.getExecutor().adapter instanceof PostgresAdapter ? query.forNoKeyUpdate() : query;
}

/** How many rows a query without a selection yet would return (`count(*)`; PostgreSQL answers a bigint as text). */
export async function countOf<DB, TB extends keyof DB>(query: SelectQueryBuilder<DB, TB, object>): Promise<number> {
  const row = (await query.select((eb) => eb.fn.countAll().as('n')).executeTakeFirstOrThrow()) as { n: number | string | bigint };
  return Number(row.n);
}

/**
 * `column` contains any of `needles` as a substring: LIKE on both dialects, with `%`, `_` and `\` of each needle
 * escaped. With no needles, false. For finding ids inside JSON text (privacy/'s erasure: `"ct_…"` with its quotes).
 */
export function containsAny(column: string, needles: readonly string[]): RawBuilder<boolean> {
  if (needles.length === 0) return sql<boolean>`1 = 0`;
  const ref = sql.ref(column);
  const terms = needles.map((needle) => sql`${ref} like ${`%${needle.replace(/[\\%_]/g, '\\$&')}%`} escape '\\'`);
  return sql<boolean>`(${sql.join(terms, sql` or `)})`;
}
