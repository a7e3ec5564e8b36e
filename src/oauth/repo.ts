import type { Kysely } from 'kysely';
import { skipLockedOnPostgres } from '../db/query-helpers.js';
import type { AccessTokensTable, DB } from '../db/tables.js';

export function createOAuthRepo(db: Kysely<DB>) {
  return {
    findApp: (id: string) => db.selectFrom('apps').selectAll().where('id', '=', id).executeTakeFirst(),

    insertToken: (row: AccessTokensTable) => db.insertInto('access_tokens').values(row).execute(),

    findToken: (hash: string) =>
      db.selectFrom('access_tokens').select(['app_id', 'developer_id', 'scopes', 'expires_at', 'revoked_at']).where('token_hash', '=', hash).executeTakeFirst(),

    /** RFC 7009: a client may only revoke its own tokens. */
    revokeToken: (hash: string, appId: string, at: string) =>
      db.updateTable('access_tokens').set({ revoked_at: at }).where('token_hash', '=', hash).where('app_id', '=', appId).where('revoked_at', 'is', null).execute(),

    /** Up to `limit` tokens that expired before `now` (through access_tokens_expiry_idx); resolves to how many. */
    deleteExpiredTokens: async (now: string, limit: number): Promise<number> => {
      const batch = skipLockedOnPostgres(db, db.selectFrom('access_tokens').select('token_hash').where('expires_at', '<', now).limit(limit));
      const result = await db.deleteFrom('access_tokens').where('token_hash', 'in', batch).executeTakeFirst();
      return Number(result.numDeletedRows);
    },
  };
}

export type OAuthRepo = ReturnType<typeof createOAuthRepo>;
