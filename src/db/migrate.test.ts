import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { createTestDatabase, testDialects } from '../../test/support/context.js';
import { openDatabase } from './database.js';
import { migrateToLatest } from './migrate.js';
import { migrations } from './migrations/index.js';
import { randomBase62 } from '../lib/ids.js';

describe.each(testDialects())('migrations on %s', (dialect) => {
  it('apply once and are a no-op the second time', async () => {
    const { database, dispose } = await createTestDatabase(dialect);
    try {
      expect((await migrateToLatest(database.db)).applied).toEqual([]);
      const applied = await database.db.selectFrom('schema_migrations' as never).select('name' as never).execute();
      expect(applied.map((row) => (row as { name: string }).name)).toEqual(Object.keys(migrations).sort());
    } finally {
      await dispose();
    }
  });
});

describe.runIf(process.env.TEST_DATABASE_URL)('migrations on PostgreSQL with several schemas', () => {
  it('migrate the schema in use even when another schema already has the tables', async () => {
    const url = process.env.TEST_DATABASE_URL as string;
    const schemas = [`m_${randomBase62(10).toLowerCase()}`, `m_${randomBase62(10).toLowerCase()}`];
    const admin = new pg.Client({ connectionString: url });
    await admin.connect();
    try {
      for (const schema of schemas) await admin.query(`create schema ${schema}`);
      for (const schema of schemas) {
        const database = openDatabase({ databaseUrl: url, pgSchema: schema, pgPoolSize: 1 });
        try {
          expect((await migrateToLatest(database.db)).applied).toEqual(Object.keys(migrations).sort());
          expect(await database.db.selectFrom('tools').selectAll().execute()).toEqual([]);
        } finally {
          await database.close();
        }
      }
    } finally {
      for (const schema of schemas) await admin.query(`drop schema if exists ${schema} cascade`);
      await admin.end();
    }
  });
});
