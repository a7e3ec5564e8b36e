import { sql, type Kysely } from 'kysely';
import type { DB, PipelinesTable, StagesTable } from '../db/tables.js';
import type { CursorPosition } from '../http/cursor.js';
import { countOf, newestFirst } from '../db/query-helpers.js';

export function createPipelinesRepo(db: Kysely<DB>) {
  return {
    insert: (row: PipelinesTable) => db.insertInto('pipelines').values(row).execute(),
    find: (orgId: string, id: string) => db.selectFrom('pipelines').selectAll().where('org_id', '=', orgId).where('id', '=', id).executeTakeFirst(),
    count: (orgId: string) => countOf(db.selectFrom('pipelines').where('org_id', '=', orgId)),
    list: (orgId: string, limit: number, cursor: CursorPosition | undefined) =>
      db
        .selectFrom('pipelines')
        .selectAll()
        .where('org_id', '=', orgId)
        .$call((qb) => newestFirst(qb, limit, cursor))
        .execute(),
    update: (orgId: string, id: string, changes: Partial<Pick<PipelinesTable, 'name' | 'is_default' | 'updated_at'>>) =>
      db.updateTable('pipelines').set(changes).where('org_id', '=', orgId).where('id', '=', id).execute(),
    clearDefault: (orgId: string) => db.updateTable('pipelines').set({ is_default: 0 }).where('org_id', '=', orgId).where('is_default', '=', 1).execute(),
    remove: (orgId: string, id: string) => db.deleteFrom('pipelines').where('org_id', '=', orgId).where('id', '=', id).execute(),

    stagesOf: (orgId: string, pipelineIds: string[]) =>
      pipelineIds.length === 0
        ? Promise.resolve([] as StagesTable[])
        : db.selectFrom('stages').selectAll().where('org_id', '=', orgId).where('pipeline_id', 'in', pipelineIds).orderBy('position').execute(),
    insertStages: (rows: StagesTable[]) => (rows.length === 0 ? Promise.resolve() : db.insertInto('stages').values(rows).execute().then(() => undefined)),
    updateStage: (orgId: string, id: string, changes: Partial<Pick<StagesTable, 'name' | 'position'>>) =>
      db.updateTable('stages').set(changes).where('org_id', '=', orgId).where('id', '=', id).execute(),
    removeStages: (orgId: string, ids: string[]) =>
      ids.length === 0 ? Promise.resolve() : db.deleteFrom('stages').where('org_id', '=', orgId).where('id', 'in', ids).execute().then(() => undefined),

    countOpportunitiesIn: async (orgId: string, pipelineId: string | null, stageIds: string[]): Promise<number> => {
      const row = await db
        .selectFrom('opportunities')
        .select((eb) => eb.fn.countAll().as('n'))
        .where('org_id', '=', orgId)
        .where((eb) => {
          const uses = [];
          if (pipelineId !== null) uses.push(eb('pipeline_id', '=', pipelineId));
          if (stageIds.length > 0) uses.push(eb('stage_id', 'in', stageIds));
          return uses.length > 0 ? eb.or(uses) : sql<boolean>`1 = 0`;
        })
        .executeTakeFirst();
      return Number(row?.n ?? 0);
    },
  };
}

export type PipelinesRepo = ReturnType<typeof createPipelinesRepo>;
