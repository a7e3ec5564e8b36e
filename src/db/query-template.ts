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
 * `keys` lists every value the query reads from the row (a `Record<keyof Row, true>`,
 * so the type checker notices a column added to the table and not here). Every one
 * must reach the SQL as a parameter: compiling throws otherwise, rather than dropping a
 * value silently. A value the row leaves undefined is bound as null.
 */
export type QueryTemplate<Row, Out> = (db: Kysely<DB>, row: Row) => Promise<QueryResult<Out>>;

type Slot<Row> = { key: keyof Row } | { constant: unknown };

export function queryTemplate<Row extends object, Out = unknown>(
  keys: Record<keyof Row, true>,
  build: (db: Kysely<DB>, row: Row) => Compilable<Out>,
): QueryTemplate<Row, Out> {
  const names = Object.keys(keys) as Array<keyof Row>;
  // One compilation per dialect: tests run the same code on SQLite and PostgreSQL in one process.
  const compiled = new WeakMap<DialectAdapter, { sql: string; slots: Array<Slot<Row>> }>();

  function compile(db: Kysely<DB>) {
    const markers = new Map<string, keyof Row>(names.map((name, index) => [`\u0000template-value-${index}\u0000`, name]));
    const row = Object.fromEntries([...markers].map(([marker, name]) => [name, marker])) as Row;
    const query = build(db, row).compile();
    const slots: Array<Slot<Row>> = query.parameters.map((parameter) => {
      const key = typeof parameter === 'string' ? markers.get(parameter) : undefined;
      return key === undefined ? { constant: parameter } : { key };
    });
    const used = new Set(slots.map((slot) => ('key' in slot ? slot.key : undefined)));
    const unused = names.filter((name) => !used.has(name));
    if (unused.length > 0) throw new Error(`query template ignores ${unused.join(', ')}: each value must be a parameter of the query`);
    if (query.sql.includes('\u0000')) throw new Error('query template inlined a value into its SQL');
    return { sql: query.sql, slots };
  }

  return async (db, row) => {
    const adapter = db.getExecutor().adapter;
    let template = compiled.get(adapter);
    if (template === undefined) {
      template = compile(db);
      compiled.set(adapter, template);
    }
    const parameters = template.slots.map((slot) => ('key' in slot ? (row[slot.key] ?? null) : slot.constant));
    return db.executeQuery(CompiledQuery.raw(template.sql, parameters) as CompiledQuery<Out>);
  };
}
