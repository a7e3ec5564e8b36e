import type { Kysely } from 'kysely';
import { skipLockedOnPostgres } from '../db/query-helpers.js';
import type { ChatSessionsTable, DB } from '../db/tables.js';

/** Kysely queries of the chat widget's visitor sessions; it writes chat_sessions only. */
export function createChatRepo(db: Kysely<DB>) {
  return {
    /** Erasing a person (privacy/): the visitor sessions of their conversations end. */
    endSessionsOf: (orgId: string, conversationIds: readonly string[]) =>
      conversationIds.length === 0 ? Promise.resolve() : db.deleteFrom('chat_sessions').where('org_id', '=', orgId).where('conversation_id', 'in', [...conversationIds]).execute().then(() => undefined),
    insertSession: (row: ChatSessionsTable) => db.insertInto('chat_sessions').values(row).execute(),
    findSessionByHash: (tokenHash: string) => db.selectFrom('chat_sessions').selectAll().where('token_hash', '=', tokenHash).executeTakeFirst(),
    /** Each use extends the session (sliding idle expiry). */
    touchSession: (id: string, at: string, expiresAt: string) =>
      db.updateTable('chat_sessions').set({ last_seen_at: at, expires_at: expiresAt }).where('id', '=', id).execute(),
    /**
     * Counts one visitor message if the session is under `max`; false when it is not (two tabs racing for
     * the last message: one gets it).
     */
    countVisitorMessage: async (id: string, max: number): Promise<boolean> => {
      const result = await db
        .updateTable('chat_sessions')
        .set((eb) => ({ visitor_messages: eb('visitor_messages', '+', 1) }))
        .where('id', '=', id)
        .where('visitor_messages', '<', max)
        .executeTakeFirst();
      return result.numUpdatedRows > 0n;
    },
    deleteExpiredSessions: async (now: string, limit: number): Promise<number> => {
      const batch = skipLockedOnPostgres(db, db.selectFrom('chat_sessions').select('id').where('expires_at', '<=', now).limit(limit));
      return Number((await db.deleteFrom('chat_sessions').where('id', 'in', batch).executeTakeFirst()).numDeletedRows);
    },
  };
}

export type ChatRepo = ReturnType<typeof createChatRepo>;
