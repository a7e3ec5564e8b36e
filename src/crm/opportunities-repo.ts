import type { Kysely } from 'kysely';
import type { DB, OpportunitiesTable } from '../db/tables.js';
import type { CursorPosition } from '../http/cursor.js';
import { newestFirst } from '../db/query-helpers.js';

export interface OpportunityFilter {
  contactId?: string | undefined;
  pipelineId?: string | undefined;
  stageId?: string | undefined;
}

export function createOpportunitiesRepo(db: Kysely<DB>) {
  return {
    find: (orgId: string, id: string) => db.selectFrom('opportunities').selectAll().where('org_id', '=', orgId).where('id', '=', id).executeTakeFirst(),
    list: (orgId: string, filter: OpportunityFilter, limit: number, cursor: CursorPosition | undefined) =>
      db
        .selectFrom('opportunities')
        .selectAll()
        .where('org_id', '=', orgId)
        .$if(filter.contactId !== undefined, (qb) => qb.where('contact_id', '=', filter.contactId!))
        .$if(filter.pipelineId !== undefined, (qb) => qb.where('pipeline_id', '=', filter.pipelineId!))
        .$if(filter.stageId !== undefined, (qb) => qb.where('stage_id', '=', filter.stageId!))
        .$call((qb) => newestFirst(qb, limit, cursor))
        .execute(),
    update: (orgId: string, id: string, changes: Partial<Pick<OpportunitiesTable, 'title' | 'pipeline_id' | 'stage_id' | 'custom' | 'updated_at'>>) =>
      db.updateTable('opportunities').set(changes).where('org_id', '=', orgId).where('id', '=', id).execute(),
    remove: (orgId: string, id: string) => db.deleteFrom('opportunities').where('org_id', '=', orgId).where('id', '=', id).executeTakeFirst(),
  };
}

export type OpportunitiesRepo = ReturnType<typeof createOpportunitiesRepo>;
