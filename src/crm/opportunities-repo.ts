import { sql, type Kysely } from 'kysely';
import type { DB, OpportunitiesTable } from '../db/tables.js';
import type { CursorPosition } from '../http/cursor.js';
import { newestFirst } from '../db/query-helpers.js';

export interface OpportunityFilter {
  contactId?: string | undefined;
  pipelineId?: string | undefined;
  stageId?: string | undefined;
}

/** An opportunity as read: with 1 when its contact was erased (privacy/; the contact's tombstone), else 0. */
export type OpportunityRow = OpportunitiesTable & { contact_erased: number };

const contactErased = sql<number>`case when exists (select 1 from contact_erasures where contact_erasures.contact_id = opportunities.contact_id) then 1 else 0 end`.as('contact_erased');

export function createOpportunitiesRepo(db: Kysely<DB>) {
  return {
    find: (orgId: string, id: string): Promise<OpportunityRow | undefined> =>
      db.selectFrom('opportunities').selectAll().select(contactErased).where('org_id', '=', orgId).where('id', '=', id).executeTakeFirst(),
    list: (orgId: string, filter: OpportunityFilter, limit: number, cursor: CursorPosition | undefined): Promise<OpportunityRow[]> =>
      db
        .selectFrom('opportunities')
        .selectAll()
        .select(contactErased)
        .where('org_id', '=', orgId)
        .$if(filter.contactId !== undefined, (qb) => qb.where('contact_id', '=', filter.contactId!))
        .$if(filter.pipelineId !== undefined, (qb) => qb.where('pipeline_id', '=', filter.pipelineId!))
        .$if(filter.stageId !== undefined, (qb) => qb.where('stage_id', '=', filter.stageId!))
        .$call((qb) => newestFirst(qb, limit, cursor))
        .execute(),
    update: (orgId: string, id: string, changes: Partial<Pick<OpportunitiesTable, 'title' | 'pipeline_id' | 'stage_id' | 'custom' | 'updated_at'>>) =>
      db.updateTable('opportunities').set(changes).where('org_id', '=', orgId).where('id', '=', id).execute(),
    remove: (orgId: string, id: string) => db.deleteFrom('opportunities').where('org_id', '=', orgId).where('id', '=', id).executeTakeFirst(),

    // ── Erasure (privacy/, in its transaction) ──
    /** Every opportunity of the contact (no page: an erasure reads them all). */
    allOf: (orgId: string, contactId: string) =>
      db.selectFrom('opportunities').selectAll().where('org_id', '=', orgId).where('contact_id', '=', contactId).orderBy('created_at').orderBy('id').execute(),
    /** An erased contact's opportunity keeps its pipeline, stage and dates; its title and custom values lose the person's data. */
    scrub: (orgId: string, id: string, changes: Pick<OpportunitiesTable, 'title' | 'custom' | 'updated_at'>) =>
      db.updateTable('opportunities').set(changes).where('org_id', '=', orgId).where('id', '=', id).execute(),
  };
}

export type OpportunitiesRepo = ReturnType<typeof createOpportunitiesRepo>;
