import { sql, type Kysely } from 'kysely';
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

    /** Deleting an app (developers/apps-service.ts): its tokens go in the same transaction, refused from the next request. */
    deleteTokensOfApp: async (appId: string): Promise<number> => {
      const result = await db.deleteFrom('access_tokens').where('app_id', '=', appId).executeTakeFirst();
      return Number(result.numDeletedRows);
    },

    /**
     * Revokes the app's live tokens; with `holding`, only those granted any of these scopes (an app's
     * scopes narrowed). Stored scopes are canonical (formatScopes: single spaces, no wildcard characters),
     * so a scope is matched as a whole word of the padded list. Through access_tokens_app_idx.
     */
    revokeTokensOfApp: async (appId: string, at: string, holding?: readonly string[]): Promise<number> => {
      if (holding !== undefined && holding.length === 0) return 0;
      const result = await db
        .updateTable('access_tokens')
        .set({ revoked_at: at })
        .where('app_id', '=', appId)
        .where('revoked_at', 'is', null)
        .where('expires_at', '>', at)
        .$if(holding !== undefined, (qb) =>
          qb.where((eb) => eb.or(holding!.map((scope) => sql<boolean>`(' ' || ${sql.ref('scopes')} || ' ') like ${`% ${scope} %`}`))))
        .executeTakeFirst();
      return Number(result.numUpdatedRows);
    },

    /** Up to `limit` tokens that expired before `now` (through access_tokens_expiry_idx); resolves to how many. */
    deleteExpiredTokens: async (now: string, limit: number): Promise<number> => {
      const batch = skipLockedOnPostgres(db, db.selectFrom('access_tokens').select('token_hash').where('expires_at', '<', now).limit(limit));
      const result = await db.deleteFrom('access_tokens').where('token_hash', 'in', batch).executeTakeFirst();
      return Number(result.numDeletedRows);
    },
  };
}

export type OAuthRepo = ReturnType<typeof createOAuthRepo>;
