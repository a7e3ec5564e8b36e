import type { Kysely } from 'kysely';
import type { CursorPosition } from '../http/cursor.js';
import { newestFirst } from '../db/query-helpers.js';
import type { ConversationMessagesTable, ConversationsTable, DB } from '../db/tables.js';

/** Kysely queries for conversations. Every query on org data takes the org id; it writes conversations and conversation_messages only. */
export function createConversationsRepo(db: Kysely<DB>) {
  return {
    insertConversation: (row: ConversationsTable) => db.insertInto('conversations').values(row).execute(),
    findConversation: (orgId: string, id: string) =>
      db.selectFrom('conversations').selectAll().where('org_id', '=', orgId).where('id', '=', id).executeTakeFirst(),
    listConversations: (orgId: string, query: { agentId?: string | undefined; limit: number; after: CursorPosition | undefined }) =>
      db
        .selectFrom('conversations')
        .selectAll()
        .where('org_id', '=', orgId)
        .$if(query.agentId !== undefined, (qb) => qb.where('agent_id', '=', query.agentId!))
        .$call((qb) => newestFirst(qb, query.limit, query.after))
        .execute(),
    messages: (conversationId: string) =>
      db.selectFrom('conversation_messages').selectAll().where('conversation_id', '=', conversationId).orderBy('seq').execute(),

    /**
     * Starts a turn: claims the conversation unless another turn holds it (a claim older than
     * `staleBefore` is one a node never released). False when it is taken.
     */
    claimTurn: async (orgId: string, id: string, now: string, staleBefore: string): Promise<boolean> => {
      const result = await db
        .updateTable('conversations')
        .set({ turn_started_at: now })
        .where('org_id', '=', orgId)
        .where('id', '=', id)
        .where((eb) => eb.or([eb('turn_started_at', 'is', null), eb('turn_started_at', '<', staleBefore)]))
        .executeTakeFirst();
      return result.numUpdatedRows > 0n;
    },
    /** Ends a turn: its messages, the conversation's counts and totals, and the claim released. */
    appendMessages: async (orgId: string, id: string, rows: ConversationMessagesTable[], totals: { inputTokens: number; outputTokens: number; updatedAt: string }) => {
      if (rows.length > 0) await db.insertInto('conversation_messages').values(rows).execute();
      await db
        .updateTable('conversations')
        .set((eb) => ({
          message_count: eb('message_count', '+', rows.length),
          input_tokens: eb('input_tokens', '+', totals.inputTokens),
          output_tokens: eb('output_tokens', '+', totals.outputTokens),
          updated_at: totals.updatedAt,
          turn_started_at: null,
        }))
        .where('org_id', '=', orgId)
        .where('id', '=', id)
        .execute();
    },
    releaseTurn: (orgId: string, id: string) =>
      db.updateTable('conversations').set({ turn_started_at: null }).where('org_id', '=', orgId).where('id', '=', id).execute(),
  };
}

export type ConversationsRepo = ReturnType<typeof createConversationsRepo>;
