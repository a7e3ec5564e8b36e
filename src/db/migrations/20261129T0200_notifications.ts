import { sql, type Kysely } from 'kysely';

/**
 * Lead and hand-off notifications by email (issue 35, notifications/).
 *
 * - `notification_outbox`: one row per recipient per notice, written in the transaction (or the one
 *   statement) of the change that causes it; the worker of every node claims due rows with a lease
 *   (`locked_until`), sends each through SMTP_URL and marks it `sent`, or retries it later, or gives up
 *   (`failed`). The primary key (notice, recipient) is the "once per recipient" rule itself.
 * - `notification_preferences`: a member's own switches (`leads`, `handoffs`); no row means both on.
 * - `forms.notify_enabled`, `forms.notify_recipients`: who a form's submissions notify (null: the owners;
 *   else a JSON array of user ids of the form's organization).
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('notification_outbox')
    .addColumn('notice_id', 'text', (c) => c.notNull())
    .addColumn('user_id', 'text', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('org_id', 'text', (c) => c.notNull().references('orgs.id').onDelete('cascade'))
    // lead | handoff
    .addColumn('kind', 'text', (c) => c.notNull())
    // JSON: what the email is rendered from when it is sent (notifications/outbox.ts).
    .addColumn('payload', 'text', (c) => c.notNull())
    // pending | sent | failed
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('next_attempt_at', 'text', (c) => c.notNull())
    .addColumn('locked_until', 'text')
    .addColumn('last_error', 'text')
    .addColumn('sent_at', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('notification_outbox_pkey', ['notice_id', 'user_id'])
    .execute();
  // The worker's poll reads pending rows only; settled ones are purged after 7 days by created_at.
  await db.schema.createIndex('notification_outbox_due_idx').on('notification_outbox').column('next_attempt_at').where(sql.ref('status'), '=', 'pending').execute();
  await db.schema.createIndex('notification_outbox_created_idx').on('notification_outbox').column('created_at').execute();
  await db.schema.createIndex('notification_outbox_user_idx').on('notification_outbox').column('user_id').execute();

  await db.schema
    .createTable('notification_preferences')
    .addColumn('user_id', 'text', (c) => c.primaryKey().references('users.id').onDelete('cascade'))
    .addColumn('org_id', 'text', (c) => c.notNull().references('orgs.id').onDelete('cascade'))
    .addColumn('leads', 'integer', (c) => c.notNull().defaultTo(1))
    .addColumn('handoffs', 'integer', (c) => c.notNull().defaultTo(1))
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();

  await db.schema.alterTable('forms').addColumn('notify_enabled', 'integer', (c) => c.notNull().defaultTo(1)).execute();
  await db.schema.alterTable('forms').addColumn('notify_recipients', 'text').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('forms').dropColumn('notify_recipients').execute();
  await db.schema.alterTable('forms').dropColumn('notify_enabled').execute();
  await db.schema.dropTable('notification_preferences').execute();
  await db.schema.dropTable('notification_outbox').execute();
}
