import type { Kysely } from 'kysely';
import { newId } from '../../lib/ids.js';

/**
 * The chat widget (issue 22): an agent talks to a business's visitors on the business's own site.
 *
 * - `agents.chat_*`: the agent's chat settings. `chat_id` (`chat_…`) names the agent on the public side
 *   and reveals no internal id; unique, made for every agent (existing ones here, new ones when created).
 *   Off by default. `chat_allowed_origins`: a JSON array of origins in text. `chat_lead_form_id`: a form
 *   of the same organization (the agents service checks it); a deleted form leaves the chat without one.
 *   `chat_daily_token_budget`: the most tokens the agent's widget conversations may use per UTC day
 *   (null: no limit of its own; the organization's budget still applies).
 * - `chat_sessions`: a visitor's session: only the SHA-256 of its random `chs_…` token is stored, as for
 *   console sessions. It ends 7 idle days after its last use (`expires_at` slides) and the expiry purger
 *   deletes it then; `visitor_messages` counts the visitor's messages against the per-session limit.
 *   Deleting the agent or the conversation deletes the session.
 * - `widget_token_usage`: the tokens an agent's widget conversations used per UTC day, added in the same
 *   transaction as each turn's messages (as `conversation_token_usage` is for the organization). bigint
 *   for the same reason.
 * - `conversations.page_url`, `conversations.utm`: where a widget conversation started (the host page's
 *   URL and its UTM parameters as a JSON object in text); null for the others.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('agents').addColumn('chat_id', 'text').execute();
  await db.schema.alterTable('agents').addColumn('chat_enabled', 'integer', (c) => c.notNull().defaultTo(0)).execute();
  await db.schema.alterTable('agents').addColumn('chat_allowed_origins', 'text', (c) => c.notNull().defaultTo('[]')).execute();
  await db.schema.alterTable('agents').addColumn('chat_welcome_message', 'text', (c) => c.notNull().defaultTo('')).execute();
  await db.schema.alterTable('agents').addColumn('chat_lead_form_id', 'text', (c) => c.references('forms.id').onDelete('set null')).execute();
  await db.schema.alterTable('agents').addColumn('chat_daily_token_budget', 'integer').execute();
  const agents = await db.selectFrom('agents').select('id').execute();
  for (const agent of agents) {
    await db.updateTable('agents').set({ chat_id: newId('chat') }).where('id', '=', agent.id).execute();
  }
  await db.schema.createIndex('agents_chat_id_key').unique().on('agents').column('chat_id').execute();

  await db.schema.alterTable('conversations').addColumn('page_url', 'text').execute();
  await db.schema.alterTable('conversations').addColumn('utm', 'text').execute();

  await db.schema
    .createTable('chat_sessions')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('token_hash', 'text', (c) => c.notNull().unique())
    .addColumn('org_id', 'text', (c) => c.notNull().references('orgs.id').onDelete('cascade'))
    .addColumn('agent_id', 'text', (c) => c.notNull().references('agents.id').onDelete('cascade'))
    .addColumn('conversation_id', 'text', (c) => c.notNull().references('conversations.id').onDelete('cascade'))
    .addColumn('visitor_messages', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('last_seen_at', 'text', (c) => c.notNull())
    .addColumn('expires_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('chat_sessions_expires_idx').on('chat_sessions').column('expires_at').execute();
  await db.schema.createIndex('chat_sessions_conversation_idx').on('chat_sessions').column('conversation_id').execute();

  await db.schema
    .createTable('widget_token_usage')
    .addColumn('org_id', 'text', (c) => c.notNull().references('orgs.id').onDelete('cascade'))
    .addColumn('agent_id', 'text', (c) => c.notNull().references('agents.id').onDelete('cascade'))
    .addColumn('day', 'text', (c) => c.notNull())
    .addColumn('tokens', 'bigint', (c) => c.notNull().defaultTo(0))
    .addPrimaryKeyConstraint('widget_token_usage_pkey', ['agent_id', 'day'])
    .execute();
}
