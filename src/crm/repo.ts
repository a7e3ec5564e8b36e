/**
 * Kysely queries for the CRM: contacts, notes, opportunities, pipelines and stages,
 * custom field definitions. `createCrmRepo(db)` accepts a Kysely instance or a
 * transaction, so the same queries run inside a form submission's transaction.
 * (What the CRM needs to know about an org, it asks the orgs service.)
 * Every query takes the org id: rows of another org are invisible.
 */
import type { Kysely } from 'kysely';
import { queryTemplate } from '../db/query-template.js';
import { tryUnique } from '../db/savepoint.js';
import { CONTACT_COLUMNS, NOTE_COLUMNS, OPPORTUNITY_COLUMNS } from '../db/tables.js';
import type { ContactsTable, CustomFieldsTable, DB, NotesTable, OpportunitiesTable, PipelinesTable, StagesTable } from '../db/tables.js';

export type ContactChanges = Partial<Pick<ContactsTable, 'email' | 'phone' | 'name' | 'company' | 'custom' | 'updated_at'>>;

// The inserts of every form submission, compiled once (see db/query-template.ts).
const insertContactIfAbsent = queryTemplate(CONTACT_COLUMNS, (db, row: ContactsTable) =>
  db.insertInto('contacts').values(row).onConflict((oc) => oc.doNothing()).returning('id'),
);
const insertNote = queryTemplate(NOTE_COLUMNS, (db, row: NotesTable) => db.insertInto('notes').values(row));
const opportunityColumns = Object.keys(OPPORTUNITY_COLUMNS) as Array<keyof OpportunitiesTable>;
const insertOpportunityInStage = queryTemplate(OPPORTUNITY_COLUMNS, (db, row: OpportunitiesTable) =>
  db
    .insertInto('opportunities')
    .columns(opportunityColumns)
    .expression((eb) =>
      eb
        .selectFrom('stages')
        .select(opportunityColumns.map((column) => eb.val(row[column]).as(column)))
        .where('stages.id', '=', row.stage_id)
        .where('stages.pipeline_id', '=', row.pipeline_id)
        .where('stages.org_id', '=', row.org_id),
    ),
);

export function createCrmRepo(db: Kysely<DB>) {
  const updateContact = (orgId: string, id: string, changes: ContactChanges) =>
    db.updateTable('contacts').set(changes).where('org_id', '=', orgId).where('id', '=', id).executeTakeFirst();
  return {
    // ── Contacts ──
    findContact: (orgId: string, id: string) =>
      db.selectFrom('contacts').selectAll().where('org_id', '=', orgId).where('id', '=', id).executeTakeFirst(),
    findContactByEmail: (orgId: string, email: string) =>
      db.selectFrom('contacts').selectAll().where('org_id', '=', orgId).where('email', '=', email).executeTakeFirst(),
    findContactByPhone: (orgId: string, phone: string) =>
      db.selectFrom('contacts').selectAll().where('org_id', '=', orgId).where('phone', '=', phone).executeTakeFirst(),
    /** Inserts unless a contact of the org already has this email or phone; true when a row was written. */
    insertContactIfAbsent: async (row: ContactsTable): Promise<boolean> => (await insertContactIfAbsent(db, row)).rows.length > 0,
    updateContact,
    /** Inside a transaction only (a savepoint): false, and nothing changed, when another contact holds the email or phone. */
    updateContactIfUnique: (orgId: string, id: string, changes: ContactChanges): Promise<boolean> => tryUnique(db, () => updateContact(orgId, id, changes)),
    deleteContact: (orgId: string, id: string) => db.deleteFrom('contacts').where('org_id', '=', orgId).where('id', '=', id).executeTakeFirst(),

    // ── Notes and opportunities ──
    insertNote: (row: NotesTable) => insertNote(db, row),
    /** Inserts the opportunity only if its stage exists in its pipeline and org; false otherwise. */
    insertOpportunityInStage: async (row: OpportunitiesTable): Promise<boolean> => Number((await insertOpportunityInStage(db, row)).numAffectedRows ?? 0) > 0,

    // ── Pipelines and stages ──
    findPipeline: (orgId: string, id: string) =>
      db.selectFrom('pipelines').selectAll().where('org_id', '=', orgId).where('id', '=', id).executeTakeFirst(),
    findDefaultPipeline: (orgId: string) =>
      db.selectFrom('pipelines').selectAll().where('org_id', '=', orgId).where('is_default', '=', 1).executeTakeFirst(),
    findStage: (orgId: string, id: string) =>
      db.selectFrom('stages').selectAll().where('org_id', '=', orgId).where('id', '=', id).executeTakeFirst(),
    firstStage: (orgId: string, pipelineId: string) =>
      db
        .selectFrom('stages')
        .selectAll()
        .where('org_id', '=', orgId)
        .where('pipeline_id', '=', pipelineId)
        .orderBy('position', 'asc')
        .limit(1)
        .executeTakeFirst(),
    insertPipeline: (row: PipelinesTable) => db.insertInto('pipelines').values(row).execute(),
    insertStages: (rows: StagesTable[]) => (rows.length === 0 ? Promise.resolve([]) : db.insertInto('stages').values(rows).execute()),

    // ── Custom field definitions ──
    activeCustomFieldsByIds: (orgId: string, ids: string[]): Promise<CustomFieldsTable[]> =>
      ids.length === 0
        ? Promise.resolve([])
        : db.selectFrom('custom_fields').selectAll().where('org_id', '=', orgId).where('id', 'in', ids).where('archived_at', 'is', null).execute(),
  };
}

export type CrmRepo = ReturnType<typeof createCrmRepo>;
