import type { Kysely } from 'kysely';
import { skipLockedOnPostgres } from '../db/query-helpers.js';
import type { DB, SessionsTable } from '../db/tables.js';

/** Console sessions (each read joins its person: role, email, name, and their developer account if any). */
export function createSessionsRepo(db: Kysely<DB>) {
  return {
    insertSession: (row: SessionsTable) => db.insertInto('sessions').values(row).execute(),
    /**
     * The live session of a token hash with its person (role, email, name) and their developer account
     * (id and name, null when none) in one read: the Developer API asks on every request.
     */
    findSessionByHash: (tokenHash: string) =>
      db
        .selectFrom('sessions as s')
        .innerJoin('users as u', 'u.id', 's.user_id')
        .leftJoin('developers as d', 'd.user_id', 's.user_id')
        .select([
          's.id', 's.user_id', 's.org_id', 's.csrf_secret', 's.last_seen_at', 's.expires_at', 's.revoked_at', 'u.email', 'u.name', 'u.role',
          'd.id as developer_id', 'd.name as developer_name',
        ])
        .where('s.token_hash', '=', tokenHash)
        .executeTakeFirst(),
    touchSession: (id: string, at: string) => db.updateTable('sessions').set({ last_seen_at: at }).where('id', '=', id).execute(),
    revokeSession: (id: string, at: string) => db.updateTable('sessions').set({ revoked_at: at }).where('id', '=', id).where('revoked_at', 'is', null).execute(),
    /** Every live session of a user, but `keep` (the one changing the password). */
    revokeUserSessions: (userId: string, at: string, keep?: string) => {
      let query = db.updateTable('sessions').set({ revoked_at: at }).where('user_id', '=', userId).where('revoked_at', 'is', null);
      if (keep !== undefined) query = query.where('id', '!=', keep);
      return query.execute();
    },
    deleteExpiredSessions: async (now: string, limit: number): Promise<number> => {
      const batch = skipLockedOnPostgres(db, db.selectFrom('sessions').select('id').where('expires_at', '<', now).limit(limit));
      return Number((await db.deleteFrom('sessions').where('id', 'in', batch).executeTakeFirst()).numDeletedRows);
    },
  };
}

export type SessionsRepo = ReturnType<typeof createSessionsRepo>;
