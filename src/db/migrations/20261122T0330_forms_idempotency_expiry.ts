import type { Kysely } from 'kysely';

/** Expired idempotency keys are swept by age; without this index every sweep scans the table. */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.createIndex('idempotency_keys_created_idx').on('idempotency_keys').column('created_at').execute();
}
