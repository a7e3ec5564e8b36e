import { sql, type Kysely } from 'kysely';

/**
 * Daily token budgets that hold when turns run at once (issue 32).
 *
 * - `conversations.turn_reserved_tokens`: what a turn under way holds of its budgets, set with its claim
 *   (`turn_started_at`) and cleared with it; a turn starts only while the day's count plus every live
 *   reservation is under the budget (conversations/budgets.ts).
 * - `largest_turn` of each daily count: the most tokens one turn used that day, the size of the next
 *   reservations.
 * - Partial indexes on the claimed conversations only (a handful per organization at any time): summing the
 *   reservations reads them, never the organization's whole history.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('conversations').addColumn('turn_reserved_tokens', 'bigint', (c) => c.notNull().defaultTo(0)).execute();
  await db.schema.alterTable('conversation_token_usage').addColumn('largest_turn', 'bigint', (c) => c.notNull().defaultTo(0)).execute();
  await db.schema.alterTable('widget_token_usage').addColumn('largest_turn', 'bigint', (c) => c.notNull().defaultTo(0)).execute();
  await db.schema.createIndex('conversations_claimed_org_idx').on('conversations').column('org_id').where(sql.ref('turn_started_at'), 'is not', null).execute();
  await db.schema.createIndex('conversations_claimed_agent_idx').on('conversations').column('agent_id').where(sql.ref('turn_started_at'), 'is not', null).execute();
}
