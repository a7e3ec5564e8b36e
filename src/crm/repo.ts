/**
 * Kysely queries for the CRM writes of a form submission: notes, opportunities, pipelines and
 * stages, custom field definitions (contacts have their own repo, contacts-repo.ts).
 * `createCrmRepo(db)` accepts a Kysely instance or a transaction, so the same queries run inside
 * a form submission's transaction. (What the CRM needs to know about an org, it asks the orgs
 * service.) Every query takes the org id: rows of another org are invisible.
 */
import type { Kysely } from 'kysely';
import { queryTemplate } from '../db/query-template.js';
import { NOTE_COLUMNS, OPPORTUNITY_COLUMNS } from '../db/tables.js';
import type { CustomFieldsTable, DB, NotesTable, OpportunitiesTable, PipelinesTable, StagesTable } from '../db/tables.js';

// The inserts of every form submission, compiled once (see db/query-template.ts); the contact's is in contacts-repo.ts.
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
  return {
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
