import type { Kysely } from 'kysely';

/**
 * Apps managed from the developer portal (issue 20): a rotated secret may keep working until a
 * stated time (`previous_secret_hash` until `previous_secret_expires_at`, both null when it stopped
 * at once), and each app shows when it last got a token (`last_token_at`, written at most once a
 * minute per app). The (developer, created_at, id) index serves the newest-first app list's keyset pages.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('apps').addColumn('previous_secret_hash', 'text').execute();
  await db.schema.alterTable('apps').addColumn('previous_secret_expires_at', 'text').execute();
  await db.schema.alterTable('apps').addColumn('last_token_at', 'text').execute();
  await db.schema.createIndex('apps_developer_created_idx').on('apps').columns(['developer_id', 'created_at', 'id']).execute();
}
