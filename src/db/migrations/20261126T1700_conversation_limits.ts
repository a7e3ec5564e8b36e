import type { Kysely } from 'kysely';

/**
 * Limits of agent conversations (issue 21).
 *
 * - `orgs.daily_token_budget`: the most model tokens (input + output) the organization's conversations may use
 *   per UTC day, set by an owner; null is no limit.
 * - `conversation_token_usage`: the tokens the organization's turns used, per UTC day, added in the same
 *   transaction as each turn's messages. bigint: a day's total may pass 2^31 on a busy organization.
 * - `tool_calls.conversation_id`: the conversation whose model asked for the call (null for every other
 *   path). Its index is partial, so the call log's hot insert of other calls pays nothing for it.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('orgs').addColumn('daily_token_budget', 'integer').execute();

  await db.schema
    .createTable('conversation_token_usage')
    .addColumn('org_id', 'text', (c) => c.notNull().references('orgs.id').onDelete('cascade'))
    .addColumn('day', 'text', (c) => c.notNull())
    .addColumn('tokens', 'bigint', (c) => c.notNull().defaultTo(0))
    .addPrimaryKeyConstraint('conversation_token_usage_pkey', ['org_id', 'day'])
    .execute();

  await db.schema.alterTable('tool_calls').addColumn('conversation_id', 'text').execute();
  await db.schema
    .createIndex('tool_calls_conversation_idx')
    .on('tool_calls')
    .columns(['conversation_id', 'created_at', 'id'])
    .where('conversation_id', 'is not', null)
    .execute();
}
