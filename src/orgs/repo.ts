import type { Kysely } from 'kysely';
import type { CursorPosition } from '../http/cursor.js';
import type { AgentKeysTable, AgentsTable, DB, OrgApiKeysTable, OrgsTable } from '../db/tables.js';
import { countOf, lockedOnPostgres, newestFirst } from '../db/query-helpers.js';
import type { RetentionColumn } from './retention.js';

/** Kysely queries for organizations, operators, org API keys and agents. Every query on org data takes the org id. */
export function createOrgsRepo(db: Kysely<DB>) {
  return {
    insertOrg: (row: OrgsTable) => db.insertInto('orgs').values(row).execute(),
    findOrg: (id: string) => db.selectFrom('orgs').selectAll().where('id', '=', id).executeTakeFirst(),
    orgDailyTokenBudget: async (orgId: string): Promise<number | null> =>
      (await db.selectFrom('orgs').select('daily_token_budget').where('id', '=', orgId).executeTakeFirst())?.daily_token_budget ?? null,
    orgDefaultCountry: async (orgId: string): Promise<string | undefined> =>
      (await db.selectFrom('orgs').select('default_country').where('id', '=', orgId).executeTakeFirst())?.default_country,
    // ── Limits (http/tenant-limits.ts): the operator's overrides; undefined when there is no such org ──
    readLimits: async (id: string) => (await db.selectFrom('orgs').select('limits').where('id', '=', id).executeTakeFirst())?.limits,
    /** The same, the org's row locked until the transaction ends (PostgreSQL): a unit's count and insert run alone. */
    lockLimits: async (id: string) => (await lockedOnPostgres(db, db.selectFrom('orgs').select('limits').where('id', '=', id)).executeTakeFirst())?.limits,
    saveLimits: (id: string, limits: string | null) => db.updateTable('orgs').set({ limits }).where('id', '=', id).executeTakeFirst(),
    updateOrg: (id: string, changes: Partial<Pick<OrgsTable, 'name' | 'default_country' | 'daily_token_budget' | RetentionColumn>>) =>
      db.updateTable('orgs').set(changes).where('id', '=', id).executeTakeFirst(),
    /** The distinct values of one retention setting, for the expiry purger (src/retention-purges.ts): a handful of numbers. */
    retentionDaysInUse: async (column: RetentionColumn): Promise<number[]> =>
      (await db.selectFrom('orgs').select(column).distinct().where(column, 'is not', null).execute()).map((row) => Number(row[column])),

    // Operators are the operators feature's rows (operators/repo.ts writes them); the org's sign-up only checks an email.
    findUserByEmail: (email: string) => db.selectFrom('users').selectAll().where('email', '=', email).executeTakeFirst(),

    // ── API keys ──
    insertApiKey: (row: OrgApiKeysTable) => db.insertInto('org_api_keys').values(row).execute(),
    findApiKeyByHash: (hash: string) =>
      db.selectFrom('org_api_keys').select(['id', 'org_id', 'last_four', 'revoked_at', 'last_used_at']).where('key_hash', '=', hash).executeTakeFirst(),
    touchApiKey: (id: string, at: string) => db.updateTable('org_api_keys').set({ last_used_at: at }).where('id', '=', id).execute(),
    findApiKey: (orgId: string, id: string) =>
      db.selectFrom('org_api_keys').selectAll().where('org_id', '=', orgId).where('id', '=', id).executeTakeFirst(),
    listApiKeys: (orgId: string, limit: number, cursor: CursorPosition | undefined) =>
      db
        .selectFrom('org_api_keys')
        .selectAll()
        .where('org_id', '=', orgId)
        .$call((qb) => newestFirst(qb, limit, cursor))
        .execute(),
    /** Keys not revoked: what the apiKeys limit counts. */
    countActiveApiKeys: (orgId: string) => countOf(db.selectFrom('org_api_keys').where('org_id', '=', orgId).where('revoked_at', 'is', null)),
    revokeApiKey: (orgId: string, id: string, at: string) =>
      db.updateTable('org_api_keys').set({ revoked_at: at }).where('org_id', '=', orgId).where('id', '=', id).where('revoked_at', 'is', null).execute(),
    deleteApiKey: (orgId: string, id: string) =>
      db.deleteFrom('org_api_keys').where('org_id', '=', orgId).where('id', '=', id).executeTakeFirst(),

    // ── Agents ──
    insertAgent: (row: AgentsTable) => db.insertInto('agents').values(row).execute(),
    findAgent: (orgId: string, id: string) =>
      db.selectFrom('agents').selectAll().where('org_id', '=', orgId).where('id', '=', id).executeTakeFirst(),
    listAgents: (orgId: string, limit: number, cursor: CursorPosition | undefined) =>
      db
        .selectFrom('agents')
        .selectAll()
        .where('org_id', '=', orgId)
        .$call((qb) => newestFirst(qb, limit, cursor))
        .execute(),
    countAgents: (orgId: string) => countOf(db.selectFrom('agents').where('org_id', '=', orgId)),
    /** The public side of the chat widget names an agent by its chat id alone (like a form by its slug). */
    findAgentByChatId: (chatId: string) => db.selectFrom('agents').selectAll().where('chat_id', '=', chatId).executeTakeFirst(),
    updateAgent: (orgId: string, id: string, changes: Partial<Omit<AgentsTable, 'id' | 'org_id' | 'created_at'>>) =>
      db.updateTable('agents').set(changes).where('org_id', '=', orgId).where('id', '=', id).executeTakeFirst(),
    deleteAgent: (orgId: string, id: string) => db.deleteFrom('agents').where('org_id', '=', orgId).where('id', '=', id).executeTakeFirst(),

    // ── Agent keys (MCP) ──
    insertAgentKey: (row: AgentKeysTable) => db.insertInto('agent_keys').values(row).execute(),
    findAgentKey: (orgId: string, agentId: string, id: string) =>
      db.selectFrom('agent_keys').selectAll().where('org_id', '=', orgId).where('agent_id', '=', agentId).where('id', '=', id).executeTakeFirst(),
    findAgentKeyByHash: (hash: string) =>
      db.selectFrom('agent_keys').select(['id', 'org_id', 'agent_id', 'last_four', 'revoked_at', 'last_used_at']).where('key_hash', '=', hash).executeTakeFirst(),
    touchAgentKey: (id: string, at: string) => db.updateTable('agent_keys').set({ last_used_at: at }).where('id', '=', id).execute(),
    listAgentKeys: (orgId: string, agentId: string, limit: number, cursor: CursorPosition | undefined) =>
      db
        .selectFrom('agent_keys')
        .selectAll()
        .where('org_id', '=', orgId)
        .where('agent_id', '=', agentId)
        .$call((qb) => newestFirst(qb, limit, cursor))
        .execute(),
    /** An agent's keys not revoked: what the agentKeysPerAgent limit counts. */
    countAgentKeys: (orgId: string, agentId: string) =>
      countOf(db.selectFrom('agent_keys').where('org_id', '=', orgId).where('agent_id', '=', agentId).where('revoked_at', 'is', null)),
    /** The most keys (not revoked) any one agent of the org has: the agentKeysPerAgent limit's use. */
    mostAgentKeys: async (orgId: string) =>
      Number(
        (await db
          .selectFrom('agent_keys')
          .select((eb) => eb.fn.countAll<number>().as('n'))
          .where('org_id', '=', orgId)
          .where('revoked_at', 'is', null)
          .groupBy('agent_id')
          .orderBy('n', 'desc')
          .limit(1)
          .executeTakeFirst())?.n ?? 0,
      ),
    deleteAgentKey: (orgId: string, agentId: string, id: string) =>
      db.deleteFrom('agent_keys').where('org_id', '=', orgId).where('agent_id', '=', agentId).where('id', '=', id).executeTakeFirst(),
  };
}

export type OrgsRepo = ReturnType<typeof createOrgsRepo>;
