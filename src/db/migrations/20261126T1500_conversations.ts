import type { Kysely } from 'kysely';

/**
 * Agent conversations (issue 21): a conversation with one agent, and its messages in order.
 *
 * A message is a user's text, an assistant's answer (text, tokens, status) or one tool call the
 * model asked for (name, arguments, the result handed back to the model, outcome, duration and the
 * call log's id). `seq` orders them; (conversation_id, seq) is unique, so two writers can never
 * interleave a transcript. `turn_started_at` marks a turn in progress: one turn at a time per
 * conversation, and a turn older than the longest one allowed counts as ended (a node that died
 * mid-turn does not lock the conversation forever). Deleting the agent deletes its conversations.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('conversations')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('org_id', 'text', (c) => c.notNull().references('orgs.id').onDelete('cascade'))
    .addColumn('agent_id', 'text', (c) => c.notNull().references('agents.id').onDelete('cascade'))
    .addColumn('source', 'text', (c) => c.notNull())
    .addColumn('message_count', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('input_tokens', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('output_tokens', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('turn_started_at', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('conversations_org_created_idx').on('conversations').columns(['org_id', 'created_at', 'id']).execute();
  await db.schema.createIndex('conversations_agent_created_idx').on('conversations').columns(['agent_id', 'created_at', 'id']).execute();

  await db.schema
    .createTable('conversation_messages')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('conversation_id', 'text', (c) => c.notNull().references('conversations.id').onDelete('cascade'))
    .addColumn('seq', 'integer', (c) => c.notNull())
    .addColumn('role', 'text', (c) => c.notNull())
    .addColumn('content', 'text')
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('error_code', 'text')
    .addColumn('tool_call_id', 'text')
    .addColumn('tool_name', 'text')
    .addColumn('tool_arguments', 'text')
    .addColumn('tool_result', 'text')
    .addColumn('tool_outcome', 'text')
    .addColumn('tool_duration_ms', 'integer')
    .addColumn('call_id', 'text')
    .addColumn('input_tokens', 'integer')
    .addColumn('output_tokens', 'integer')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addUniqueConstraint('conversation_messages_seq_key', ['conversation_id', 'seq'])
    .execute();
}
