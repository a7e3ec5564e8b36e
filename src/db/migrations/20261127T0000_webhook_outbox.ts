import type { Kysely } from 'kysely';

/**
 * The webhook outbox as one row per unit of work (issue 23, the submit path's cost).
 *
 * Until now the change's transaction wrote each event (`webhook_events`) and each of its deliveries
 * (`webhook_deliveries`, four indexes) itself: a form submission with three subscribed events wrote six
 * rows beside its own four, and cost half the submit path's throughput on SQLite. Now it writes one
 * `webhook_outbox` row holding its events (ids, types, payloads, and the endpoints each goes to, decided
 * with the change as before); the delivery worker moves each row into events and deliveries, in id order,
 * and deletes it. The table has its primary key only and stays near empty.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('webhook_outbox')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('org_id', 'text', (c) => c.notNull().references('orgs.id').onDelete('cascade'))
    // JSON: [{id, type, payload, endpoints: [endpoint id, …]}, …], payload the event's data as JSON text.
    .addColumn('events', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('webhook_outbox').execute();
}
