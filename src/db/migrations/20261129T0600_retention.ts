import { sql, type Kysely } from 'kysely';

/**
 * Retention (issue 36, part 3): how long an organization keeps each kind of personal data, applied by the
 * expiry purger (src/retention-purges.ts; docs/privacy.md, "Retention").
 *
 * - `orgs.retention_*_days`: days to keep submissions' values, conversations (by last activity), the tool
 *   call log and webhook delivery bodies; null (every existing org) keeps them as before.
 * - `submissions.values_cleared_at`: when retention cleared a submission's values, UTM, IP and user agent;
 *   the row stays (form analytics count it). Its partial index holds only rows not cleared yet, so the
 *   purger's batches never walk the cleared ones.
 * - The purger's other per-organization scans: conversations by last activity; deliveries still holding a body.
 *   The call log's is there already (`tool_calls_org_created_idx`).
 */
export async function up(db: Kysely<any>): Promise<void> {
  for (const column of ['retention_submissions_days', 'retention_conversations_days', 'retention_call_log_days', 'retention_webhook_bodies_days']) {
    await db.schema.alterTable('orgs').addColumn(column, 'integer').execute();
  }
  await db.schema.alterTable('submissions').addColumn('values_cleared_at', 'text').execute();
  await db.schema.createIndex('submissions_retention_idx').on('submissions').columns(['org_id', 'created_at']).where(sql.ref('values_cleared_at'), 'is', null).execute();
  await db.schema.createIndex('conversations_org_updated_idx').on('conversations').columns(['org_id', 'updated_at']).execute();
  await db.schema.createIndex('webhook_deliveries_org_bodies_idx').on('webhook_deliveries').columns(['org_id', 'created_at']).where(sql.ref('request_body'), 'is not', null).execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex('webhook_deliveries_org_bodies_idx').execute();
  await db.schema.dropIndex('conversations_org_updated_idx').execute();
  await db.schema.dropIndex('submissions_retention_idx').execute();
  await db.schema.alterTable('submissions').dropColumn('values_cleared_at').execute();
  for (const column of ['retention_webhook_bodies_days', 'retention_call_log_days', 'retention_conversations_days', 'retention_submissions_days']) {
    await db.schema.alterTable('orgs').dropColumn(column).execute();
  }
}
