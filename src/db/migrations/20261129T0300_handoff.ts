import { sql, type Kysely } from 'kysely';

/**
 * Hand-off and the Inbox (issue 35): a person of the organization can take a conversation over from the agent.
 *
 * - `conversations.status`: `bot` (the agent answers; every existing conversation), `waiting` (a person was
 *   asked for), `human` (a person holds it: the model is never called) or `closed`. `assignee_id`: the person
 *   holding it (a user of the same organization; a deleted user leaves it unassigned). `handoff_requested_at`:
 *   the last request for a person. `handoff_deadline_at`: while waiting, when the agent takes it back.
 * - Indexes: the Inbox's list by organization and status, newest first; the deadline worker's scan of waiting
 *   conversations past their deadline (partial: only the waiting ones, a handful at any time).
 * - `conversation_messages.author_id`, `author_name`: who wrote an `operator` message, or caused an `event`
 *   (a status change), as the name was then. Roles `operator` and `event` are new; `role` stays free text.
 *   `event_data`: an event's new status and assignee name as JSON, for the visitor's stream.
 * - `agents.handoff_*`: the agent's hand-off settings (off by default; wait 300 s; office hours as JSON, null: always open).
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('conversations').addColumn('status', 'text', (c) => c.notNull().defaultTo('bot')).execute();
  await db.schema.alterTable('conversations').addColumn('assignee_id', 'text', (c) => c.references('users.id').onDelete('set null')).execute();
  await db.schema.alterTable('conversations').addColumn('handoff_requested_at', 'text').execute();
  await db.schema.alterTable('conversations').addColumn('handoff_deadline_at', 'text').execute();
  await db.schema.createIndex('conversations_org_status_idx').on('conversations').columns(['org_id', 'status', 'created_at', 'id']).execute();
  await db.schema.createIndex('conversations_waiting_deadline_idx').on('conversations').column('handoff_deadline_at').where(sql.ref('status'), '=', 'waiting').execute();
  await db.schema.createIndex('conversations_assignee_idx').on('conversations').column('assignee_id').where(sql.ref('assignee_id'), 'is not', null).execute();

  await db.schema.alterTable('conversation_messages').addColumn('author_id', 'text', (c) => c.references('users.id').onDelete('set null')).execute();
  await db.schema.alterTable('conversation_messages').addColumn('author_name', 'text').execute();
  await db.schema.alterTable('conversation_messages').addColumn('event_data', 'text').execute();
  await db.schema.createIndex('conversation_messages_author_idx').on('conversation_messages').column('author_id').where(sql.ref('author_id'), 'is not', null).execute();

  await db.schema.alterTable('agents').addColumn('handoff_enabled', 'integer', (c) => c.notNull().defaultTo(0)).execute();
  await db.schema.alterTable('agents').addColumn('handoff_wait_seconds', 'integer', (c) => c.notNull().defaultTo(300)).execute();
  await db.schema.alterTable('agents').addColumn('handoff_office_hours', 'text').execute();
}
