import { Migrator, PostgresAdapter, SqliteAdapter, sql, type Kysely, type Migration, type MigrationProvider } from 'kysely';
import { migrations } from './migrations/index.js';

/**
 * On SQLite, migrations run with foreign keys off, as SQLite's table rebuild requires
 * (https://sqlite.org/lang_altertable.html#otheralter): with them on, dropping a parent table runs an
 * implicit DELETE that cascades to its children, and renaming one rewrites their references. Kysely runs
 * SQLite migrations outside any transaction (its SQLite adapter has no transactional DDL), so each one gets
 * a transaction of its own here, ending with `PRAGMA foreign_key_check`: a row left pointing nowhere, or any
 * failure, rolls the whole migration back. The pragma cannot change inside a transaction, so
 * migrateToLatest sets it around the run.
 */
function sqliteMigrations(list: Record<string, Migration>): MigrationProvider {
  return {
    getMigrations: async (): Promise<Record<string, Migration>> =>
      Object.fromEntries(Object.entries(list).map(([name, migration]) => [name, {
        up: (db: Kysely<any>) => db.transaction().execute(async (trx) => {
          await migration.up(trx);
          const broken = await sql<{ table: string; parent: string }>`pragma foreign_key_check`.execute(trx);
          if (broken.rows.length > 0) {
            const where = [...new Set(broken.rows.map((row) => `${row.table} → ${row.parent}`))].join(', ');
            throw new Error(`${broken.rows.length} row(s) would point nowhere: ${where}`);
          }
        }),
      }])),
  };
}

export interface MigrationReport {
  applied: string[];
}

/**
 * Applies every pending migration, forward only. Throws with the failing migration's name. Migrations are
 * compiled into the bundle (no directory scan), so `dist/` runs them as is; tests may pass their own list.
 */
export async function migrateToLatest(db: Kysely<any>, list: Record<string, Migration> = migrations): Promise<MigrationReport> {
  // On PostgreSQL, name the schema in use: Kysely otherwise finds its tables in any schema
  // (say `public`) and skips creating them in the one this deployment's search_path selects.
  let migrationTableSchema: string | undefined;
  if (db.getExecutor().adapter instanceof PostgresAdapter) {
    const { rows } = await sql<{ schema: string }>`select current_schema() as schema`.execute(db);
    migrationTableSchema = rows[0]?.schema;
  }
  const sqlite = db.getExecutor().adapter instanceof SqliteAdapter;
  const migrator = new Migrator({
    db,
    provider: sqlite ? sqliteMigrations(list) : { getMigrations: async () => list },
    migrationTableName: 'schema_migrations',
    migrationLockTableName: 'schema_migrations_lock',
    ...(migrationTableSchema ? { migrationTableSchema } : {}),
  });
  // SQLite's one connection (database.ts) runs the migrations, so the pragma applies to them.
  if (sqlite) await sql`pragma foreign_keys = off`.execute(db);
  let outcome: Awaited<ReturnType<Migrator['migrateToLatest']>>;
  try {
    outcome = await migrator.migrateToLatest();
  } finally {
    if (sqlite) await sql`pragma foreign_keys = on`.execute(db);
  }
  const { error, results } = outcome;
  const failed = results?.find((result) => result.status === 'Error');
  if (error) {
    const reason = error instanceof Error ? error.message : String(error);
    throw new Error(`Migration ${failed?.migrationName ?? ''} failed: ${reason}`, { cause: error });
  }
  return { applied: (results ?? []).filter((r) => r.status === 'Success').map((r) => r.migrationName) };
}
