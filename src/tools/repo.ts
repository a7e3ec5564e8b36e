import type { Kysely } from 'kysely';
import type { DB, ToolRevisionsTable, ToolsTable } from '../db/tables.js';
import type { CursorPosition } from '../http/cursor.js';
import { countOf, isUniqueViolation, matchesText, newestFirst } from '../db/query-helpers.js';

/** The columns that make up a tool's definition, shared by the working copy and its revisions. */
export type DefinitionColumns = Pick<ToolsTable, 'name' | 'description' | 'endpoint' | 'method' | 'auth_type' | 'api_key_header' | 'category' | 'parameters' | 'oauth'>;

export interface ToolFilters {
  status?: string | undefined;
  category?: string | undefined;
  q?: string | undefined;
  after?: CursorPosition | undefined;
  limit: number;
}

export type WriteResult = 'ok' | 'name_taken' | 'missing';

/** Every query is scoped to the developer who owns the tool. */
export function createToolsRepo(db: Kysely<DB>) {
  return {
    async insertTool(row: ToolsTable): Promise<WriteResult> {
      try {
        await db.insertInto('tools').values(row).execute();
        return 'ok';
      } catch (error) {
        if (isUniqueViolation(error)) return 'name_taken';
        throw error;
      }
    },

    countTools: (developerId: string) => countOf(db.selectFrom('tools').where('developer_id', '=', developerId)),

    findTool: (developerId: string, id: string) =>
      db.selectFrom('tools').selectAll().where('developer_id', '=', developerId).where('id', '=', id).executeTakeFirst(),

    findToolByName: (developerId: string, name: string) =>
      db.selectFrom('tools').select(['id']).where('developer_id', '=', developerId).where('name', '=', name).executeTakeFirst(),

    listTools: (developerId: string, filters: ToolFilters) =>
      db
        .selectFrom('tools')
        .selectAll()
        .where('developer_id', '=', developerId)
        .$if(filters.status !== undefined, (qb) => qb.where('status', '=', filters.status!))
        .$if(filters.category !== undefined, (qb) => qb.where('category', '=', filters.category!))
        .$if(filters.q !== undefined, (qb) => qb.where((eb) => eb.or([matchesText('name', filters.q!), matchesText('description', filters.q!)])))
        .$call((qb) => newestFirst(qb, filters.limit, filters.after))
        .execute(),

    /** The revision a tool's `version` points to (revisions are numbered 1, 2, …). */
    findRevision: (developerId: string, toolId: string, version: number) =>
      db
        .selectFrom('tool_revisions as r')
        .innerJoin('tools as t', 't.id', 'r.tool_id')
        .selectAll('r')
        .where('t.developer_id', '=', developerId)
        .where('r.tool_id', '=', toolId)
        .where('r.version', '=', version)
        .executeTakeFirst(),

    /** A tool's revisions, newest first, paged by (created_at, id) like every list. */
    listRevisions: (developerId: string, toolId: string, limit: number, after: CursorPosition | undefined) =>
      db
        .selectFrom('tool_revisions as r')
        .innerJoin('tools as t', 't.id', 'r.tool_id')
        .selectAll('r')
        .where('t.developer_id', '=', developerId)
        .where('r.tool_id', '=', toolId)
        .$call((qb) => newestFirst(qb, limit, after, 'r'))
        .execute(),

    async updateTool(developerId: string, id: string, changes: Partial<ToolsTable>): Promise<WriteResult> {
      try {
        const result = await db.updateTable('tools').set(changes).where('developer_id', '=', developerId).where('id', '=', id).executeTakeFirst();
        return result.numUpdatedRows === 0n ? 'missing' : 'ok';
      } catch (error) {
        if (isUniqueViolation(error)) return 'name_taken';
        throw error;
      }
    },

    /**
     * Makes a tool live, in one transaction. `expected` is the working copy the caller
     * checked: if a concurrent update changed it, nothing is written and false is returned,
     * so a revision never holds a definition nobody checked.
     */
    publish: (developerId: string, id: string, expected: DefinitionColumns & { version: number }, changes: Partial<ToolsTable>, revision: ToolRevisionsTable | undefined) =>
      db.transaction().execute(async (trx) => {
        let update = trx.updateTable('tools').set(changes).where('developer_id', '=', developerId).where('id', '=', id);
        for (const [column, value] of Object.entries(expected) as Array<[keyof DefinitionColumns | 'version', string | number | null]>) {
          update = value === null ? update.where(column, 'is', null) : update.where(column, '=', value);
        }
        const result = await update.executeTakeFirst();
        if (result.numUpdatedRows === 0n) return false;
        if (revision) await trx.insertInto('tool_revisions').values(revision).execute();
        return true;
      }),

    /** oauth2 tools' client secrets not sealed under `keyId` (`switchboard secrets rotate`). */
    clientSecretsNotUnder: (keyId: string, limit: number) =>
      db.selectFrom('tools').select(['id', 'oauth_client_secret']).where('oauth_client_secret', 'is not', null).where('oauth_secret_key_id', '<>', keyId).limit(limit).execute(),

    /** A re-sealed client secret, only if the stored one is still `before` (a secret set meanwhile wins). */
    replaceClientSecret: (id: string, before: string, after: { oauth_client_secret: string; oauth_secret_key_id: string }) =>
      db.updateTable('tools').set(after).where('id', '=', id).where('oauth_client_secret', '=', before).execute(),

    /** Deletes the tool and its revisions; false when the developer has no such tool. */
    deleteTool: (developerId: string, id: string) =>
      db.transaction().execute(async (trx) => {
        const owned = await trx.selectFrom('tools').select('id').where('developer_id', '=', developerId).where('id', '=', id).executeTakeFirst();
        if (!owned) return false;
        await trx.deleteFrom('tool_revisions').where('tool_id', '=', id).execute();
        await trx.deleteFrom('tools').where('developer_id', '=', developerId).where('id', '=', id).execute();
        return true;
      }),
  };
}

export type ToolsRepo = ReturnType<typeof createToolsRepo>;
