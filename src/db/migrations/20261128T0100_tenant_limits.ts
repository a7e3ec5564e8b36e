import type { Kysely } from 'kysely';

/**
 * Bounded tenants (issue 32): the operator's overrides of an organization's and a developer's limits
 * (http/tenant-limits.ts), JSON text such as `{"forms": 200, "webhooks": 40}`; null keeps every default.
 * Written by `switchboard org limits` and `switchboard developer limits` only.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('orgs').addColumn('limits', 'text').execute();
  await db.schema.alterTable('developers').addColumn('limits', 'text').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('developers').dropColumn('limits').execute();
  await db.schema.alterTable('orgs').dropColumn('limits').execute();
}
