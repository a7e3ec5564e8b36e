import type { Kysely } from 'kysely';

/**
 * The audit log (issue 36, part 4): one row per sensitive action, append-only (no route updates or deletes one).
 *
 * - `org_id` and/or `developer_id`: whose log shows the entry (both null: a developer-only person's entry
 *   without a developer account cannot happen; the CLI's entries carry the org or developer they touched).
 * - `actor_*`: who (`user`, `api_key`, `agent_key`, `cli`, `system`), their id and a readable label (an email,
 *   a key's `svc_org_…abcd`), never a secret. `ip`, `user_agent`: from where (null from the CLI).
 * - `action` (a closed set, audit/actions.ts), `target_type`/`target_id`, `details` (small JSON, no secrets).
 * - No foreign keys: an entry outlives the user, key or record it names. Ids are time-ordered (`aud_`), so inserts append.
 * - Indexes: each log newest first, and the filters (actor, action, target) within an organization.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('audit_log')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('org_id', 'text')
    .addColumn('developer_id', 'text')
    .addColumn('actor_type', 'text', (c) => c.notNull())
    .addColumn('actor_id', 'text')
    .addColumn('actor_label', 'text')
    .addColumn('ip', 'text')
    .addColumn('user_agent', 'text')
    .addColumn('action', 'text', (c) => c.notNull())
    .addColumn('target_type', 'text')
    .addColumn('target_id', 'text')
    .addColumn('details', 'text', (c) => c.notNull().defaultTo('{}'))
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('audit_log_org_idx').on('audit_log').columns(['org_id', 'created_at', 'id']).execute();
  await db.schema.createIndex('audit_log_developer_idx').on('audit_log').columns(['developer_id', 'created_at', 'id']).execute();
  await db.schema.createIndex('audit_log_org_action_idx').on('audit_log').columns(['org_id', 'action', 'created_at']).execute();
  await db.schema.createIndex('audit_log_org_actor_idx').on('audit_log').columns(['org_id', 'actor_id', 'created_at']).execute();
  await db.schema.createIndex('audit_log_org_target_idx').on('audit_log').columns(['org_id', 'target_id', 'created_at']).execute();
  await db.schema.createIndex('audit_log_created_idx').on('audit_log').column('created_at').execute();
}
