import { sql, type Kysely } from 'kysely';

/**
 * Webhooks (issue 23): endpoints per organization, the outbox of events, and one delivery per
 * (event, endpoint).
 *
 * - `webhook_endpoints.events`: the subscribed event types as a JSON array in text; the outbox writer
 *   matches a type with LIKE '%"<type>"%' (the types are a closed set, none a substring of another).
 *   `secret_sealed`: the signing secret sealed like tool credentials (AES-256-GCM under SECRETS_KEY,
 *   bound to the endpoint id). `failing_since`: the first failed attempt since the last success; 24 h
 *   of it disables the endpoint (`disabled_reason`).
 * - `webhook_events`: the outbox, written in the transaction of the change that caused the event.
 * - `webhook_deliveries`: written in that same transaction, one per endpoint subscribed at that moment.
 *   The worker's claim takes the head of each endpoint's queue, its oldest pending delivery, through
 *   (endpoint_id, created_at, id) partial on `pending`, so settled rows cost that index nothing. The log
 *   pages newest first by (endpoint_id, created_at, id).
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('webhook_endpoints')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('org_id', 'text', (c) => c.notNull().references('orgs.id').onDelete('cascade'))
    .addColumn('url', 'text', (c) => c.notNull())
    .addColumn('events', 'text', (c) => c.notNull())
    .addColumn('description', 'text')
    .addColumn('secret_sealed', 'text', (c) => c.notNull())
    .addColumn('secret_key_id', 'text', (c) => c.notNull())
    .addColumn('enabled', 'integer', (c) => c.notNull().defaultTo(1))
    .addColumn('disabled_reason', 'text')
    .addColumn('failing_since', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('webhook_endpoints_org_created_idx').on('webhook_endpoints').columns(['org_id', 'created_at', 'id']).execute();

  await db.schema
    .createTable('webhook_events')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('org_id', 'text', (c) => c.notNull().references('orgs.id').onDelete('cascade'))
    .addColumn('type', 'text', (c) => c.notNull())
    .addColumn('payload', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();

  await db.schema
    .createTable('webhook_deliveries')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('org_id', 'text', (c) => c.notNull().references('orgs.id').onDelete('cascade'))
    .addColumn('endpoint_id', 'text', (c) => c.notNull().references('webhook_endpoints.id').onDelete('cascade'))
    .addColumn('event_id', 'text', (c) => c.notNull().references('webhook_events.id').onDelete('cascade'))
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('next_attempt_at', 'text')
    .addColumn('locked_until', 'text')
    .addColumn('last_status', 'integer')
    .addColumn('last_duration_ms', 'integer')
    .addColumn('last_error', 'text')
    .addColumn('request_body', 'text')
    .addColumn('response_body', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .addColumn('delivered_at', 'text')
    .execute();
  await db.schema.createIndex('webhook_deliveries_endpoint_created_idx').on('webhook_deliveries').columns(['endpoint_id', 'created_at', 'id']).execute();
  await db.schema.createIndex('webhook_deliveries_pending_idx').on('webhook_deliveries').columns(['endpoint_id', 'created_at', 'id']).where(sql<boolean>`status = 'pending'`).execute();
  await db.schema.createIndex('webhook_deliveries_event_idx').on('webhook_deliveries').column('event_id').execute();
  // The 7-day purge of bodies: rows that still hold one, by age.
  await db.schema.createIndex('webhook_deliveries_bodies_idx').on('webhook_deliveries').column('created_at').where(sql<boolean>`request_body is not null`).execute();
}
