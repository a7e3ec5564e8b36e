import { sql, type Kysely } from 'kysely';
import { TOOL_CALL_COLUMNS, type DB, type InstallationCredentialsTable, type InstallationsTable, type ToolCallsTable } from '../db/tables.js';
import { queryTemplate, type QueryTemplate } from '../db/query-template.js';
import { isUniqueViolation, newestFirst, skipLockedOnPostgres, type CursorPosition } from '../db/query-helpers.js';

export interface CallFilters {
  agentId?: string | undefined;
  toolId?: string | undefined;
  conversationId?: string | undefined;
  outcome?: string | undefined;
  from?: string | undefined;
  to?: string | undefined;
  after?: CursorPosition | undefined;
  limit: number;
}

/**
 * The call log's insert as query templates (db/query-template.ts), one per batch size, each built
 * and compiled once per dialect on first use: compiling a Kysely insert of a whole batch anew cost
 * about 10 µs per row, on the same cores as the calls. A batch of up to CALLS_PER_STATEMENT rows is
 * one statement, so it is written or refused as a whole (the call log answers all of a batch's
 * callers by that one outcome) in one commit, one round trip on PostgreSQL. 64 rows are 896
 * parameters, far below SQLite's 32,766 and PostgreSQL's 65,535; under the bench's 50 connections
 * batches held 10–25 rows (docs/benchmarks.md), so the cap only bounds a burst.
 */
export const CALLS_PER_STATEMENT = 64;
type CallRows = Record<string, ToolCallsTable>;
const callInserts = new Map<number, QueryTemplate<CallRows, unknown>>();

function callInsert(size: number): QueryTemplate<CallRows, unknown> {
  let template = callInserts.get(size);
  if (template === undefined) {
    const keys = Object.fromEntries(Array.from({ length: size }, (_, i) => [`r${i}`, TOOL_CALL_COLUMNS]));
    template = queryTemplate(keys, (db, rows: CallRows) => db.insertInto('tool_calls').values(Array.from({ length: size }, (_, i) => rows[`r${i}`]!)));
    callInserts.set(size, template);
  }
  return template;
}

/**
 * Queries of the invocation feature's own tables: installations, their agent links and
 * credentials, and the call log. A query an org's request reaches takes the org id, or
 * installation ids the caller read under it (credentials are keyed by installation). Three
 * span organizations on purpose: credential rotation (every sealed value), and a tool's calls
 * and timings for its developer (by tool id; the tools feature checks ownership first). Writes
 * that belong together (an installation with its links and credentials) are one unit of work
 * of the service's `transact`.
 */
export function createInvocationRepo(db: Kysely<DB>) {
  return {
    /** 'exists' when the org already installed the tool. */
    async insertInstallation(row: InstallationsTable): Promise<'ok' | 'exists'> {
      try {
        await db.insertInto('installations').values(row).execute();
        return 'ok';
      } catch (error) {
        if (isUniqueViolation(error)) return 'exists';
        throw error;
      }
    },

    /** False when it is gone. */
    async updateInstallation(row: InstallationsTable): Promise<boolean> {
      const { id, org_id, ...changes } = row;
      const result = await db.updateTable('installations').set(changes).where('org_id', '=', org_id).where('id', '=', id).executeTakeFirst();
      return result.numUpdatedRows > 0n;
    },

    /** Replaces the installation's agent links (none with all_agents = 1). */
    async replaceAgentLinks(orgId: string, installationId: string, agentIds: readonly string[]): Promise<void> {
      await db.deleteFrom('installation_agents').where('installation_id', '=', installationId).execute();
      if (agentIds.length > 0) {
        await db.insertInto('installation_agents').values(agentIds.map((agentId) => ({ installation_id: installationId, agent_id: agentId, org_id: orgId }))).execute();
      }
    },

    /** Replaces every stored credential of the installation. */
    async replaceCredentials(installationId: string, credentials: readonly InstallationCredentialsTable[]): Promise<void> {
      await db.deleteFrom('installation_credentials').where('installation_id', '=', installationId).execute();
      if (credentials.length > 0) await db.insertInto('installation_credentials').values([...credentials]).execute();
    },

    findInstallation: (orgId: string, id: string) =>
      db.selectFrom('installations').selectAll().where('org_id', '=', orgId).where('id', '=', id).executeTakeFirst(),

    listInstallations: (orgId: string, limit: number, cursor: CursorPosition | undefined) =>
      db.selectFrom('installations').selectAll().where('org_id', '=', orgId).$call((qb) => newestFirst(qb, limit, cursor)).execute(),

    /** Every installation of the org (name checks look at all of them). */
    allInstallations: (orgId: string) => db.selectFrom('installations').selectAll().where('org_id', '=', orgId).orderBy('created_at').orderBy('id').execute(),

    /** The installations an agent may call: all-agents ones and those linked to it, oldest first. */
    installationsForAgent: (orgId: string, agentId: string) =>
      db
        .selectFrom('installations as i')
        .selectAll('i')
        .where('i.org_id', '=', orgId)
        .where((eb) =>
          eb.or([
            eb('i.all_agents', '=', 1),
            eb.exists(eb.selectFrom('installation_agents as l').select(sql.lit(1).as('one')).whereRef('l.installation_id', '=', 'i.id').where('l.agent_id', '=', agentId)),
          ]),
        )
        .orderBy('i.created_at')
        .orderBy('i.id')
        .execute(),

    agentLinks: (orgId: string, installationIds: readonly string[]) =>
      installationIds.length === 0
        ? Promise.resolve([])
        : db.selectFrom('installation_agents').select(['installation_id', 'agent_id']).where('org_id', '=', orgId).where('installation_id', 'in', installationIds).orderBy('agent_id').execute(),

    credentialFields: (installationIds: readonly string[]) =>
      installationIds.length === 0
        ? Promise.resolve([])
        : db.selectFrom('installation_credentials').select(['installation_id', 'field']).where('installation_id', 'in', installationIds).execute(),

    /** The stored credentials of several installations at once (an agent's tools are resolved in one read). */
    credentialsOf: (installationIds: readonly string[]) =>
      installationIds.length === 0
        ? Promise.resolve([])
        : db.selectFrom('installation_credentials').selectAll().where('installation_id', 'in', installationIds).execute(),

    /** The installation with its agent links and credentials; false when the org has no such installation. */
    async deleteInstallation(orgId: string, id: string): Promise<boolean> {
      const owned = await db.selectFrom('installations').select('id').where('org_id', '=', orgId).where('id', '=', id).executeTakeFirst();
      if (!owned) return false;
      await db.deleteFrom('installation_credentials').where('installation_id', '=', id).execute();
      await db.deleteFrom('installation_agents').where('installation_id', '=', id).execute();
      await db.deleteFrom('installations').where('id', '=', id).execute();
      return true;
    },

    // ── Rotation ──
    credentialsNotUnder: (keyId: string, limit: number) =>
      db.selectFrom('installation_credentials').selectAll().where('key_id', '!=', keyId).orderBy('installation_id').orderBy('field').limit(limit).execute(),
    replaceSealed: (row: InstallationCredentialsTable, previousSealed: string) =>
      db
        .updateTable('installation_credentials')
        .set({ sealed: row.sealed, key_id: row.key_id })
        .where('installation_id', '=', row.installation_id)
        .where('field', '=', row.field)
        .where('sealed', '=', previousSealed)
        .execute(),

    // ── Call log ──
    /** One statement per CALLS_PER_STATEMENT rows (each all or nothing); a failure stops at the statement that failed. */
    async insertCalls(rows: readonly ToolCallsTable[]): Promise<void> {
      for (let next = 0; next < rows.length; next += CALLS_PER_STATEMENT) {
        const chunk = rows.slice(next, next + CALLS_PER_STATEMENT);
        const named: CallRows = {};
        chunk.forEach((row, i) => { named[`r${i}`] = row; });
        await callInsert(chunk.length)(db, named);
      }
    },

    listCalls: (orgId: string, filters: CallFilters) =>
      db
        .selectFrom('tool_calls')
        .selectAll()
        .where('org_id', '=', orgId)
        .$if(filters.agentId !== undefined, (qb) => qb.where('agent_id', '=', filters.agentId!))
        .$if(filters.toolId !== undefined, (qb) => qb.where('tool_id', '=', filters.toolId!))
        .$if(filters.conversationId !== undefined, (qb) => qb.where('conversation_id', '=', filters.conversationId!))
        .$if(filters.outcome !== undefined, (qb) => qb.where('outcome', '=', filters.outcome!))
        .$if(filters.from !== undefined, (qb) => qb.where('created_at', '>=', filters.from!))
        .$if(filters.to !== undefined, (qb) => qb.where('created_at', '<', filters.to!))
        .$call((qb) => newestFirst(qb, filters.limit, filters.after))
        .execute(),

    /** One tool's calls across every organization, newest first (the tool_id, created_at index). */
    listToolCalls: (toolId: string, filters: Omit<CallFilters, 'agentId' | 'toolId'> & { path?: string | undefined }) =>
      db
        .selectFrom('tool_calls')
        .selectAll()
        .where('tool_id', '=', toolId)
        .$if(filters.outcome !== undefined, (qb) => qb.where('outcome', '=', filters.outcome!))
        .$if(filters.path !== undefined, (qb) => qb.where('path', '=', filters.path!))
        .$if(filters.from !== undefined, (qb) => qb.where('created_at', '>=', filters.from!))
        .$if(filters.to !== undefined, (qb) => qb.where('created_at', '<', filters.to!))
        .$call((qb) => newestFirst(qb, filters.limit, filters.after))
        .execute(),

    /** Time, outcome and duration of one tool's agent calls since a moment (the developer's test calls left out): what daily statistics need. */
    toolCallTimings: (toolId: string, from: string) =>
      db.selectFrom('tool_calls').select(['created_at', 'outcome', 'duration_ms'])
        .where('tool_id', '=', toolId).where('created_at', '>=', from).where('path', '!=', 'test').execute(),

    /**
     * Retention (src/retention-purges.ts): up to `limit` calls logged before `before` by the organizations whose
     * `retention_call_log_days` is `days` (through tool_calls_org_created_idx); resolves to how many.
     */
    deleteCallsPastRetention: async (days: number, before: string, limit: number): Promise<number> => {
      const batch = skipLockedOnPostgres(db, db.selectFrom('tool_calls').select('id')
        .where('org_id', 'in', db.selectFrom('orgs').select('id').where('retention_call_log_days', '=', days))
        .where('created_at', '<', before)
        .limit(limit));
      const result = await db.deleteFrom('tool_calls').where('id', 'in', batch).executeTakeFirst();
      return Number(result.numDeletedRows);
    },
  };
}

export type InvocationRepo = ReturnType<typeof createInvocationRepo>;
