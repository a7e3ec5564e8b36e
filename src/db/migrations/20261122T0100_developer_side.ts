import type { Kysely } from 'kysely';

/**
 * Developers, their OAuth apps and tokens, tools and their published revisions.
 * Conventions on both dialects: ids are prefixed text, times are ISO 8601 UTC text
 * (sortable as text), booleans are 0/1 integers, JSON is text.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('developers')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('email', 'text', (c) => c.notNull().unique())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('password_hash', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();

  await db.schema
    .createTable('apps')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('developer_id', 'text', (c) => c.notNull().references('developers.id').onDelete('cascade'))
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('client_secret_hash', 'text', (c) => c.notNull())
    .addColumn('scopes', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('secret_rotated_at', 'text')
    .addColumn('disabled_at', 'text')
    .execute();
  await db.schema.createIndex('apps_developer_idx').on('apps').column('developer_id').execute();

  await db.schema
    .createTable('access_tokens')
    .addColumn('token_hash', 'text', (c) => c.primaryKey())
    .addColumn('app_id', 'text', (c) => c.notNull().references('apps.id').onDelete('cascade'))
    .addColumn('developer_id', 'text', (c) => c.notNull())
    .addColumn('scopes', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('expires_at', 'text', (c) => c.notNull())
    .addColumn('revoked_at', 'text')
    .execute();
  await db.schema.createIndex('access_tokens_app_idx').on('access_tokens').column('app_id').execute();
  await db.schema.createIndex('access_tokens_expiry_idx').on('access_tokens').column('expires_at').execute();

  await db.schema
    .createTable('tools')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('developer_id', 'text', (c) => c.notNull().references('developers.id').onDelete('cascade'))
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('description', 'text', (c) => c.notNull())
    .addColumn('endpoint', 'text', (c) => c.notNull())
    .addColumn('method', 'text', (c) => c.notNull())
    .addColumn('auth_type', 'text', (c) => c.notNull())
    .addColumn('api_key_header', 'text')
    .addColumn('category', 'text', (c) => c.notNull())
    .addColumn('parameters', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('version', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('published_revision_id', 'text')
    .addColumn('has_unpublished_changes', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .addColumn('published_at', 'text')
    .execute();
  await db.schema.createIndex('tools_developer_name_uq').on('tools').columns(['developer_id', 'name']).unique().execute();
  await db.schema.createIndex('tools_developer_created_idx').on('tools').columns(['developer_id', 'created_at', 'id']).execute();
  await db.schema.createIndex('tools_status_idx').on('tools').columns(['status', 'published_at']).execute();

  // A published revision is immutable: the catalog and every agent read this, never the working copy.
  await db.schema
    .createTable('tool_revisions')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('tool_id', 'text', (c) => c.notNull().references('tools.id').onDelete('cascade'))
    .addColumn('version', 'integer', (c) => c.notNull())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('description', 'text', (c) => c.notNull())
    .addColumn('endpoint', 'text', (c) => c.notNull())
    .addColumn('method', 'text', (c) => c.notNull())
    .addColumn('auth_type', 'text', (c) => c.notNull())
    .addColumn('api_key_header', 'text')
    .addColumn('category', 'text', (c) => c.notNull())
    .addColumn('parameters', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('tool_revisions_tool_version_uq').on('tool_revisions').columns(['tool_id', 'version']).unique().execute();
}
