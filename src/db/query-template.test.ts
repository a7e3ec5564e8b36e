import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { createTestDatabase, testDialects } from '../../test/support/context.js';
import { queryTemplate } from './query-template.js';
import { NOTE_COLUMNS, type NotesTable } from './tables.js';

const ORG = { id: 'org_tpl', name: 'Templates', default_country: 'US', created_at: '2026-11-22T00:00:00.000Z' };
const CONTACT = {
  id: 'ct_tpl',
  org_id: ORG.id,
  email: 'tpl@example.com',
  phone: null,
  name: null,
  company: null,
  source: 'api',
  custom: '{}',
  created_at: ORG.created_at,
  updated_at: ORG.created_at,
};

function note(id: string, body: string, submissionId: string | null = null): NotesTable {
  return { id, org_id: ORG.id, contact_id: CONTACT.id, body, source: 'api', submission_id: submissionId, created_at: ORG.created_at };
}

describe.each(testDialects())('query templates on %s', (dialect) => {
  it('write exactly what the Kysely query they were built from writes, every time', async () => {
    const { database, dispose } = await createTestDatabase(dialect);
    try {
      const { db } = database;
      await db.insertInto('orgs').values(ORG).execute();
      await db.insertInto('contacts').values(CONTACT).execute();
      const insertNote = queryTemplate(NOTE_COLUMNS, (kysely, row: NotesTable) => kysely.insertInto('notes').values(row));
      await insertNote(db, note('note_tpl1', 'First, with “quotes”, emoji 🦷 and accents: é'));
      await db.transaction().execute((trx) => insertNote(trx, note('note_tpl2', 'Second, in a transaction')));
      await db.insertInto('notes').values(note('note_tpl3', 'Third, by Kysely itself')).execute();
      const rows = await db.selectFrom('notes').selectAll().orderBy('id').execute();
      expect(rows).toEqual([
        note('note_tpl1', 'First, with “quotes”, emoji 🦷 and accents: é'),
        note('note_tpl2', 'Second, in a transaction'),
        note('note_tpl3', 'Third, by Kysely itself'),
      ]);
    } finally {
      await dispose();
    }
  });

  it('report what the query reports (rows returned, rows affected)', async () => {
    const { database, dispose } = await createTestDatabase(dialect);
    try {
      const { db } = database;
      await db.insertInto('orgs').values(ORG).execute();
      const insertOrgIfAbsent = queryTemplate({ id: true, name: true, default_country: true, created_at: true }, (kysely, row: typeof ORG) =>
        kysely.insertInto('orgs').values(row).onConflict((oc) => oc.doNothing()).returning('id'),
      );
      expect((await insertOrgIfAbsent(db, ORG)).rows).toEqual([]);
      expect((await insertOrgIfAbsent(db, { ...ORG, id: 'org_tpl2' })).rows).toEqual([{ id: 'org_tpl2' }]);
    } finally {
      await dispose();
    }
  });
});

describe.runIf(testDialects().includes('postgres'))('query templates on PostgreSQL', () => {
  it('run as named prepared statements, parsed once per connection; other queries stay unnamed', async () => {
    const { database, dispose } = await createTestDatabase('postgres');
    try {
      const { db } = database;
      await db.insertInto('orgs').values(ORG).execute();
      await db.insertInto('contacts').values(CONTACT).execute();
      const insertNote = queryTemplate(NOTE_COLUMNS, (kysely, row: NotesTable) => kysely.insertInto('notes').values(row));
      const prepared = await db.transaction().execute(async (trx) => {
        await insertNote(trx, note('note_pg1', 'One'));
        await insertNote(trx, note('note_pg2', 'Two'));
        await trx.selectFrom('notes').selectAll().where('id', '=', 'note_pg1').execute();
        return sql<{ name: string; statement: string }>`select name, statement from pg_prepared_statements`.execute(trx);
      });
      expect(prepared.rows).toHaveLength(1);
      expect(prepared.rows[0]!.statement).toContain('insert into "notes"');
      expect(await db.selectFrom('notes').select('body').orderBy('id').execute()).toEqual([{ body: 'One' }, { body: 'Two' }]);
    } finally {
      await dispose();
    }
  });
});

describe('query templates', () => {
  it('refuse a query that would not use every value of the row', async () => {
    const { database, dispose } = await createTestDatabase('sqlite');
    try {
      const forgetful = queryTemplate({ id: true, name: true }, (kysely, row: { id: string; name: string }) =>
        kysely.updateTable('orgs').set({ name: 'fixed' }).where('id', '=', row.id),
      );
      await expect(forgetful(database.db, { id: 'org_x', name: 'ignored' })).rejects.toThrow('query template ignores name');
    } finally {
      await dispose();
    }
  });
});
