import { CompiledQuery, type Compilable, type Kysely, type QueryResult } from 'kysely';
import type { DialectAdapter } from 'kysely';
import type { DB } from './tables.js';

/**
 * A Kysely query built and compiled once, then run many times with new values.
 *
 * Building a query (immutable operation-node trees) and compiling it to SQL costs about
 * as much as SQLite needs to run a small insert. On the submit path, four inserts per
 * submission, that was a quarter of the server's time, spent producing the same SQL
 * text again and again. A template builds its query once, from a row of unique marker
 * values, and maps each compiled parameter back to the row key it came from; running
 * it is a lookup of the row's values. It stays a Kysely query: same builder, same
 * dialect-specific SQL (compiled once per database), same driver path.
 *
 * `keys` lists every value the query reads from the row (the tables' `*_COLUMNS`
 * records, so the type checker notices a column added to a table and not there), and
 * may nest one level for a statement over several rows. Every one must reach the SQL
 * as a parameter: compiling throws otherwise, rather than dropping a value silently. A
 * value the row leaves undefined (or a nested row left null) is bound as null.
 */
export type QueryTemplate<Row, Out> = (db: Kysely<DB>, row: Row) => Promise<QueryResult<Out>>;

/** Starts the SQL of every template, so the PostgreSQL pool can run them as prepared statements (db/pg-prepared.ts). */
export const TEMPLATE_MARK = '/* template */ ';

/** The row's values a template reads: `{column: true}`, or one level of nesting, `{contact: {id: true, …}, …}`. */
export type TemplateKeys = Record<string, true | Record<string, true>>;

type Path = [string] | [string, string];
type Slot = { path: Path } | { constant: unknown };

function read(row: object, path: Path): unknown {
  const first = (row as Record<string, unknown>)[path[0]];
  return path.length === 1 ? first : (first as Record<string, unknown> | null | undefined)?.[path[1]];
}

export function queryTemplate<Row extends object, Out = unknown>(
  keys: TemplateKeys,
  build: (db: Kysely<DB>, row: Row) => Compilable<Out>,
): QueryTemplate<Row, Out> {
  const paths: Path[] = Object.entries(keys).flatMap(([key, inner]): Path[] =>
    inner === true ? [[key]] : Object.keys(inner).map((column): Path => [key, column]),
  );
  // One compilation per dialect: tests run the same code on SQLite and PostgreSQL in one process.
  const compiled = new WeakMap<DialectAdapter, { sql: string; slots: Slot[] }>();

  function compile(db: Kysely<DB>) {
    const markers = new Map<string, Path>(paths.map((path, index) => [`\u0000template-value-${index}\u0000`, path]));
    const row: Record<string, unknown> = {};
    for (const [marker, path] of markers) {
      if (path.length === 1) row[path[0]] = marker;
      else ((row[path[0]] ??= {}) as Record<string, unknown>)[path[1]] = marker;
    }
    const query = build(db, row as Row).compile();
    const slots: Slot[] = query.parameters.map((parameter) => {
      const path = typeof parameter === 'string' ? markers.get(parameter) : undefined;
      return path === undefined ? { constant: parameter } : { path };
    });
    const used = new Set(slots.map((slot) => ('path' in slot ? slot.path : undefined)));
    const unused = paths.filter((path) => !used.has(path)).map((path) => path.join('.'));
    if (unused.length > 0) throw new Error(`query template ignores ${unused.join(', ')}: each value must be a parameter of the query`);
    if (query.sql.includes('\u0000')) throw new Error('query template inlined a value into its SQL');
    return { sql: TEMPLATE_MARK + query.sql, slots };
  }

  return async (db, row) => {
    const adapter = db.getExecutor().adapter;
    let template = compiled.get(adapter);
    if (template === undefined) {
      template = compile(db);
      compiled.set(adapter, template);
    }
    const parameters = template.slots.map((slot) => ('path' in slot ? (read(row, slot.path) ?? null) : slot.constant));
    return db.executeQuery(CompiledQuery.raw(template.sql, parameters) as CompiledQuery<Out>);
  };
}
