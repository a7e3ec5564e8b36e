import type { Kysely } from 'kysely';
import type { DB, McpClientsTable, McpCodesTable, McpGrantsTable, McpTokensTable } from '../db/tables.js';

/** MCP authorization: registered clients, grants, codes and tokens (hashes only). Grants are read by organization. */
export function createMcpAuthRepo(db: Kysely<DB>) {
  return {
    insertClient: (row: McpClientsTable) => db.insertInto('mcp_clients').values(row).execute(),
    findClient: (id: string) => db.selectFrom('mcp_clients').selectAll().where('id', '=', id).executeTakeFirst(),
    markClientUsed: (id: string, now: string) => db.updateTable('mcp_clients').set({ used_at: now }).where('id', '=', id).where('used_at', 'is', null).execute(),
    /** Registrations never used by a grant, made before `before` (the expiry purger). */
    async deleteUnusedClients(before: string, limit: number): Promise<number> {
      const doomed = db.selectFrom('mcp_clients').select('id').where('used_at', 'is', null).where('created_at', '<', before).limit(limit);
      return Number((await db.deleteFrom('mcp_clients').where('id', 'in', doomed).executeTakeFirst()).numDeletedRows);
    },

    insertGrant: (row: McpGrantsTable) => db.insertInto('mcp_grants').values(row).execute(),
    findGrant: (id: string) => db.selectFrom('mcp_grants').selectAll().where('id', '=', id).executeTakeFirst(),
    /** An agent's live grants, newest first, with who approved each. */
    agentGrants: (orgId: string, agentId: string) =>
      db.selectFrom('mcp_grants as g')
        .leftJoin('users as u', 'u.id', 'g.user_id')
        .select(['g.id', 'g.client_id', 'g.client_name', 'g.user_id', 'g.created_at', 'g.last_used_at', 'u.name as user_name'])
        .where('g.org_id', '=', orgId).where('g.agent_id', '=', agentId).where('g.revoked_at', 'is', null)
        .orderBy('g.created_at', 'desc').orderBy('g.id', 'desc')
        .limit(200)
        .execute(),
    /** Revokes a grant and deletes its codes and tokens; false when it was not live. */
    async revokeGrant(id: string, now: string, orgId?: string): Promise<boolean> {
      let update = db.updateTable('mcp_grants').set({ revoked_at: now }).where('id', '=', id).where('revoked_at', 'is', null);
      if (orgId !== undefined) update = update.where('org_id', '=', orgId);
      const changed = (await update.executeTakeFirst()).numUpdatedRows > 0n;
      await db.deleteFrom('mcp_tokens').where('grant_id', '=', id).execute();
      await db.deleteFrom('mcp_codes').where('grant_id', '=', id).execute();
      return changed;
    },
    touchGrant: (id: string, now: string) => db.updateTable('mcp_grants').set({ last_used_at: now }).where('id', '=', id).execute(),

    insertCode: (row: McpCodesTable) => db.insertInto('mcp_codes').values(row).execute(),
    findCode: (hash: string) => db.selectFrom('mcp_codes').selectAll().where('code_hash', '=', hash).executeTakeFirst(),
    /** Marks a code used; false when it already was (a replay). */
    async useCode(hash: string, now: string): Promise<boolean> {
      return (await db.updateTable('mcp_codes').set({ used_at: now }).where('code_hash', '=', hash).where('used_at', 'is', null).executeTakeFirst()).numUpdatedRows > 0n;
    },

    insertTokens: (rows: McpTokensTable[]) => db.insertInto('mcp_tokens').values(rows).execute(),
    /** A token with its grant, whatever the grant's state (the caller judges). */
    findToken: (hash: string) =>
      db.selectFrom('mcp_tokens as t')
        .innerJoin('mcp_grants as g', 'g.id', 't.grant_id')
        .select(['t.token_hash', 't.kind', 't.expires_at', 't.used_at', 't.grant_id', 'g.org_id', 'g.agent_id', 'g.client_id', 'g.client_name', 'g.revoked_at'])
        .where('t.token_hash', '=', hash)
        .executeTakeFirst(),
    /** Marks a refresh token used; false when it already was (a replay). */
    async useToken(hash: string, now: string): Promise<boolean> {
      return (await db.updateTable('mcp_tokens').set({ used_at: now }).where('token_hash', '=', hash).where('used_at', 'is', null).executeTakeFirst()).numUpdatedRows > 0n;
    },
    async deleteExpiredTokens(now: string, limit: number): Promise<number> {
      const doomed = db.selectFrom('mcp_tokens').select('token_hash').where('expires_at', '<=', now).limit(limit);
      return Number((await db.deleteFrom('mcp_tokens').where('token_hash', 'in', doomed).executeTakeFirst()).numDeletedRows);
    },
  };
}

export type McpAuthRepo = ReturnType<typeof createMcpAuthRepo>;
