import { sql, type Kysely } from 'kysely';
import type { CursorPosition } from '../http/cursor.js';
import { newestFirst, skipLockedOnPostgres } from '../db/query-helpers.js';
import type { ConversationMessagesTable, ConversationsTable, DB } from '../db/tables.js';
import type { ConversationRow } from './present.js';

/** Kysely queries for conversations. Every query on org data takes the org id; it writes conversations, conversation_messages, conversation_token_usage and widget_token_usage only. */
export function createConversationsRepo(db: Kysely<DB>) {
  /** Conversations with their assignee's name (a member of the same organization; one who left it names no one). */
  const withAssignee = () => db
    .selectFrom('conversations')
    .leftJoin('users', (join) => join.onRef('users.id', '=', 'conversations.assignee_id').onRef('users.org_id', '=', 'conversations.org_id'))
    .selectAll('conversations')
    .select('users.name as assignee_name');

  return {
    /**
     * Erasing a person (privacy/): the conversations stay (counts, tokens, status) without a word of theirs: every
     * message's text, every tool call's arguments and result (a lead card's values), the page URL and UTM.
     */
    eraseConversations: async (orgId: string, ids: readonly string[]): Promise<number> => {
      if (ids.length === 0) return 0;
      const own = await db.selectFrom('conversations').select('id').where('org_id', '=', orgId).where('id', 'in', [...ids]).execute();
      if (own.length === 0) return 0;
      const owned = own.map((row) => row.id);
      await db.updateTable('conversation_messages')
        .set({
          content: null,
          tool_arguments: sql<string | null>`case when tool_arguments is null then null else '{}' end`,
          tool_result: sql<string | null>`case when tool_result is null then null else '{}' end`,
        })
        .where('conversation_id', 'in', owned)
        .execute();
      await db.updateTable('conversations').set({ page_url: null, utm: null }).where('org_id', '=', orgId).where('id', 'in', owned).execute();
      return owned.length;
    },
    insertConversation: (row: ConversationsTable) => db.insertInto('conversations').values(row).execute(),
    findConversation: (orgId: string, id: string): Promise<ConversationRow | undefined> =>
      withAssignee().where('conversations.org_id', '=', orgId).where('conversations.id', '=', id).executeTakeFirst(),
    listConversations: (orgId: string, query: ConversationFilter & { limit: number; after: CursorPosition | undefined }): Promise<ConversationRow[]> =>
      withAssignee()
        .where('conversations.org_id', '=', orgId)
        .$if(query.agentId !== undefined, (qb) => qb.where('conversations.agent_id', '=', query.agentId!))
        .$if(query.status !== undefined, (qb) => qb.where('conversations.status', 'in', query.status!))
        .$if(query.assigneeId === null, (qb) => qb.where('conversations.assignee_id', 'is', null))
        .$if(typeof query.assigneeId === 'string', (qb) => qb.where('conversations.assignee_id', '=', query.assigneeId!))
        .$call((qb) => newestFirst(qb, query.limit, query.after, 'conversations'))
        .execute(),
    messages: (conversationId: string) =>
      db.selectFrom('conversation_messages').selectAll().where('conversation_id', '=', conversationId).orderBy('seq').execute(),
    /** A message's place in its conversation; undefined when it is not one of its messages. */
    messageSeq: async (conversationId: string, messageId: string): Promise<number | undefined> =>
      (await db.selectFrom('conversation_messages').select('seq').where('conversation_id', '=', conversationId).where('id', '=', messageId).executeTakeFirst())?.seq,
    /**
     * The messages from `fromSeq` on, as a visitor's stream reads them: no tool results or arguments, but those of
     * `withArguments` calls (the lead card's, a few fields).
     */
    visibleMessagesFrom: (conversationId: string, fromSeq: number, withArguments: string) =>
      db.selectFrom('conversation_messages')
        .select(['id', 'seq', 'role', 'content', 'status', 'error_code', 'tool_call_id', 'tool_name', 'tool_outcome', 'author_id', 'author_name', 'event_data', 'created_at'])
        .select((eb) => eb.case().when('tool_name', '=', withArguments).then(eb.ref('tool_arguments')).else(null).end().as('tool_arguments'))
        .where('conversation_id', '=', conversationId).where('seq', '>=', fromSeq).orderBy('seq').execute(),
    /** A member of the organization (hand-off's assignee, an operator message's author); undefined for anyone else. */
    findMember: (orgId: string, userId: string) =>
      db.selectFrom('users').select(['id', 'name']).where('org_id', '=', orgId).where('id', '=', userId).executeTakeFirst(),
    /** Waiting conversations past their deadline, oldest deadline first (the deadline worker's scan). */
    overdueWaiting: (now: string, limit: number) =>
      db.selectFrom('conversations').select(['id', 'org_id', 'agent_id']).where('status', '=', 'waiting').where('handoff_deadline_at', '<=', now)
        .orderBy('handoff_deadline_at').limit(limit).execute(),
    /**
     * Appends messages outside a turn (hand-off's events and notices, an operator's reply, a visitor's message while
     * a person holds the conversation) and applies `set`, in one statement on the conversation's row first: its lock
     * orders concurrent appends, and `seq` follows the count it leaves. Only when the row is in one of `when.statuses`
     * (and, with `when.deadlineBefore`, waiting past that deadline): undefined otherwise, and nothing is written.
     * `rows` get their seq here. The caller's transaction holds the two statements together.
     */
    append: async (orgId: string, id: string, rows: ConversationMessagesTable[], change: { updatedAt: string; set?: Partial<ConversationsTable>; when?: { statuses?: readonly string[]; deadlineBefore?: string } }): Promise<ConversationsTable | undefined> => {
      const updated = await db
        .updateTable('conversations')
        .set((eb) => ({ ...change.set, message_count: eb('message_count', '+', rows.length), updated_at: change.updatedAt }))
        .where('org_id', '=', orgId)
        .where('id', '=', id)
        .$if(change.when?.statuses !== undefined, (qb) => qb.where('status', 'in', change.when!.statuses!))
        .$if(change.when?.deadlineBefore !== undefined, (qb) => qb.where('handoff_deadline_at', '<=', change.when!.deadlineBefore!))
        .returningAll()
        .executeTakeFirst();
      if (!updated) return undefined;
      const start = updated.message_count - rows.length;
      rows.forEach((row, i) => (row.seq = start + i));
      if (rows.length > 0) await db.insertInto('conversation_messages').values(rows).execute();
      return updated;
    },

    /**
     * Starts a turn: claims the conversation unless another turn holds it (a claim older than
     * `staleBefore` is one a node never released), holding `reserved` tokens of its budgets. False when it is taken.
     */
    claimTurn: async (orgId: string, id: string, now: string, staleBefore: string, reserved = 0): Promise<boolean> => {
      const result = await db
        .updateTable('conversations')
        .set({ turn_started_at: now, turn_reserved_tokens: reserved })
        .where('org_id', '=', orgId)
        .where('id', '=', id)
        .where((eb) => eb.or([eb('turn_started_at', 'is', null), eb('turn_started_at', '<', staleBefore)]))
        .executeTakeFirst();
      return result.numUpdatedRows > 0n;
    },
    /**
     * The organization's count for the UTC day, its row locked until the transaction ends (PostgreSQL: an upsert
     * that changes nothing takes the row's lock, and reads the latest committed count): every claim under this
     * budget waits here for the one before it, so each sees the reservations committed before it.
     */
    lockOrgUsage: async (orgId: string, day: string): Promise<DailyCount> => {
      const row = await db
        .insertInto('conversation_token_usage')
        .values({ org_id: orgId, day, tokens: 0, largest_turn: 0 })
        .onConflict((oc) => oc.columns(['org_id', 'day']).doUpdateSet((eb) => ({ tokens: eb.ref('conversation_token_usage.tokens') })))
        .returning(['tokens', 'largest_turn'])
        .executeTakeFirstOrThrow();
      return { tokens: Number(row.tokens), largestTurn: Number(row.largest_turn) };
    },
    /** The same for an agent's widget count. */
    lockWidgetUsage: async (orgId: string, agentId: string, day: string): Promise<DailyCount> => {
      const row = await db
        .insertInto('widget_token_usage')
        .values({ org_id: orgId, agent_id: agentId, day, tokens: 0, largest_turn: 0 })
        .onConflict((oc) => oc.columns(['agent_id', 'day']).doUpdateSet((eb) => ({ tokens: eb.ref('widget_token_usage.tokens') })))
        .returning(['tokens', 'largest_turn'])
        .executeTakeFirstOrThrow();
      return { tokens: Number(row.tokens), largestTurn: Number(row.largest_turn) };
    },
    /** What the organization's turns under way hold (claims since `staleBefore`). */
    orgReserved: async (orgId: string, staleBefore: string): Promise<number> => {
      const row = await db.selectFrom('conversations').select((eb) => eb.fn.sum<string | number | null>('turn_reserved_tokens').as('held'))
        .where('org_id', '=', orgId).where('turn_started_at', 'is not', null).where('turn_started_at', '>=', staleBefore).executeTakeFirst();
      return Number(row?.held ?? 0);
    },
    /** What the agent's widget turns under way hold. */
    widgetReserved: async (agentId: string, staleBefore: string): Promise<number> => {
      const row = await db.selectFrom('conversations').select((eb) => eb.fn.sum<string | number | null>('turn_reserved_tokens').as('held'))
        .where('agent_id', '=', agentId).where('turn_started_at', 'is not', null).where('turn_started_at', '>=', staleBefore).where('source', '=', 'widget').executeTakeFirst();
      return Number(row?.held ?? 0);
    },
    /**
     * Ends a turn: its messages, the conversation's counts and totals, and the claim released. The row is updated
     * first: its lock orders this append after any other (an operator's, hand-off's), and the rows' `seq` follow
     * the count it leaves (set here), so a turn that ran while others wrote still appends after them.
     */
    appendMessages: async (orgId: string, id: string, rows: ConversationMessagesTable[], totals: { inputTokens: number; outputTokens: number; updatedAt: string }) => {
      const updated = await db
        .updateTable('conversations')
        .set((eb) => ({
          message_count: eb('message_count', '+', rows.length),
          input_tokens: eb('input_tokens', '+', totals.inputTokens),
          output_tokens: eb('output_tokens', '+', totals.outputTokens),
          updated_at: totals.updatedAt,
          turn_started_at: null,
          turn_reserved_tokens: 0,
        }))
        .where('org_id', '=', orgId)
        .where('id', '=', id)
        .returning('message_count')
        .executeTakeFirst();
      if (!updated) return;
      const start = updated.message_count - rows.length;
      rows.forEach((row, i) => (row.seq = start + i));
      if (rows.length > 0) await db.insertInto('conversation_messages').values(rows).execute();
    },
    /** A pending call (loop.ts PENDING) answered: its result and outcome; a call answered already stays as it is. */
    answerPendingCall: async (conversationId: string, messageId: string, result: string, outcome: string) => {
      await db
        .updateTable('conversation_messages')
        .set({ tool_result: result, tool_outcome: outcome })
        .where('conversation_id', '=', conversationId)
        .where('id', '=', messageId)
        .where('tool_outcome', '=', 'PENDING')
        .execute();
    },
    /** Adds a turn's tokens to the organization's count for the UTC day (one row per org and day), and keeps its largest turn. */
    addTokenUsage: async (orgId: string, day: string, tokens: number) => {
      await db
        .insertInto('conversation_token_usage')
        .values({ org_id: orgId, day, tokens, largest_turn: tokens })
        .onConflict((oc) => oc.columns(['org_id', 'day']).doUpdateSet((eb) => ({
          tokens: eb('conversation_token_usage.tokens', '+', eb.ref('excluded.tokens')),
          largest_turn: eb.case().when('excluded.largest_turn', '>', eb.ref('conversation_token_usage.largest_turn')).then(eb.ref('excluded.largest_turn')).else(eb.ref('conversation_token_usage.largest_turn')).end(),
        })))
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
        .values({ org_id: orgId, agent_id: agentId, day, tokens, largest_turn: tokens })
        .onConflict((oc) => oc.columns(['agent_id', 'day']).doUpdateSet((eb) => ({
          tokens: eb('widget_token_usage.tokens', '+', eb.ref('excluded.tokens')),
          largest_turn: eb.case().when('excluded.largest_turn', '>', eb.ref('widget_token_usage.largest_turn')).then(eb.ref('excluded.largest_turn')).else(eb.ref('widget_token_usage.largest_turn')).end(),
        })))
        .execute();
    },
    /** The tokens the agent's widget conversations used on the UTC day; 0 before their first. */
    widgetTokensUsedOn: async (agentId: string, day: string): Promise<number> => {
      const row = await db.selectFrom('widget_token_usage').select('tokens').where('agent_id', '=', agentId).where('day', '=', day).executeTakeFirst();
      return row === undefined ? 0 : Number(row.tokens);
    },
    /** Ends a turn that saved nothing: the claim and what it held released. Only the claim made at `startedAt`: a later turn's is not ours. */
    releaseTurn: (orgId: string, id: string, startedAt: string) =>
      db.updateTable('conversations').set({ turn_started_at: null, turn_reserved_tokens: 0 })
        .where('org_id', '=', orgId).where('id', '=', id).where('turn_started_at', '=', startedAt).execute(),

    // ── Retention (src/retention-purges.ts) ──
    /**
     * One bounded step of deleting conversations last active before `before` (none with a turn running) in the
     * organizations whose `retention_conversations_days` is `days`: up to `limit` of their messages first, then up
     * to `limit` of them that have no message left (a conversation's delete cascades to its chat session only).
     * So no statement touches more than `limit` rows of either table, however long the conversations are.
     */
    deletePastRetention: async (days: number, before: string, limit: number): Promise<number> => {
      const expired = () => db.selectFrom('conversations').select('conversations.id')
        .where('conversations.org_id', 'in', db.selectFrom('orgs').select('id').where('retention_conversations_days', '=', days))
        .where('conversations.updated_at', '<', before)
        .where('conversations.turn_started_at', 'is', null);
      const messages = await db.deleteFrom('conversation_messages')
        .where('id', 'in', skipLockedOnPostgres(db, db.selectFrom('conversation_messages').select('id')
          .where('conversation_id', 'in', expired().limit(limit))
          .limit(limit)))
        .executeTakeFirst();
      const conversations = await db.deleteFrom('conversations')
        .where('id', 'in', skipLockedOnPostgres(db, expired()
          .where((eb) => eb.not(eb.exists(eb.selectFrom('conversation_messages').select('conversation_messages.id').whereRef('conversation_messages.conversation_id', '=', 'conversations.id'))))
          .limit(limit)))
        .executeTakeFirst();
      return Number(messages.numDeletedRows) + Number(conversations.numDeletedRows);
    },
  };
}

export type ConversationsRepo = ReturnType<typeof createConversationsRepo>;

/** The list's filters: `status` as the statuses it may be, `assigneeId` null for unassigned. */
export interface ConversationFilter {
  agentId?: string | undefined;
  status?: readonly string[] | undefined;
  assigneeId?: string | null | undefined;
}

/** A daily token count: the tokens used, and the largest turn among them. */
export interface DailyCount {
  tokens: number;
  largestTurn: number;
}
