import type { Kysely } from 'kysely';
import type { CursorPosition } from '../http/cursor.js';
import { newestFirst } from '../db/query-helpers.js';
import type { ConversationMessagesTable, ConversationsTable, DB } from '../db/tables.js';

/** Kysely queries for conversations. Every query on org data takes the org id; it writes conversations, conversation_messages, conversation_token_usage and widget_token_usage only. */
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
    /** Adds a turn's tokens to the organization's count for the UTC day (one row per org and day). */
    addTokenUsage: async (orgId: string, day: string, tokens: number) => {
      await db
        .insertInto('conversation_token_usage')
        .values({ org_id: orgId, day, tokens })
        .onConflict((oc) => oc.columns(['org_id', 'day']).doUpdateSet((eb) => ({ tokens: eb('conversation_token_usage.tokens', '+', eb.ref('excluded.tokens')) })))
        .execute();
    },
    /** The tokens the organization's turns used on the UTC day; 0 before its first. */
    tokensUsedOn: async (orgId: string, day: string): Promise<number> => {
      const row = await db.selectFrom('conversation_token_usage').select('tokens').where('org_id', '=', orgId).where('day', '=', day).executeTakeFirst();
      return row === undefined ? 0 : Number(row.tokens);
    },
    /** Adds a widget turn's tokens to its agent's count for the UTC day (the chat widget's per-agent budget). */
    addWidgetTokenUsage: async (orgId: string, agentId: string, day: string, tokens: number) => {
      await db
        .insertInto('widget_token_usage')
        .values({ org_id: orgId, agent_id: agentId, day, tokens })
        .onConflict((oc) => oc.columns(['agent_id', 'day']).doUpdateSet((eb) => ({ tokens: eb('widget_token_usage.tokens', '+', eb.ref('excluded.tokens')) })))
        .execute();
    },
    /** The tokens the agent's widget conversations used on the UTC day; 0 before their first. */
    widgetTokensUsedOn: async (agentId: string, day: string): Promise<number> => {
      const row = await db.selectFrom('widget_token_usage').select('tokens').where('agent_id', '=', agentId).where('day', '=', day).executeTakeFirst();
      return row === undefined ? 0 : Number(row.tokens);
    },
    releaseTurn: (orgId: string, id: string) =>
      db.updateTable('conversations').set({ turn_started_at: null }).where('org_id', '=', orgId).where('id', '=', id).execute(),
  };
}

export type ConversationsRepo = ReturnType<typeof createConversationsRepo>;
