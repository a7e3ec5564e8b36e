import type { Kysely } from 'kysely';

/**
 * OAuth connections (issue 33): tools with `authType: "oauth2"` act on each business's own account at another
 * service (docs/tool-endpoints.md, "OAuth tools").
 *
 * - `tools.oauth` / `tool_revisions.oauth`: the provider's settings as canonical JSON (URLs, scopes, client id,
 *   token auth method, extra authorize parameters); published with the definition like the rest of it.
 * - `tools.oauth_client_secret`: the client secret, sealed (AES-256-GCM under SECRETS_KEY, bound to the tool). It
 *   belongs to the tool, not to a revision: a secret the developer rotates at their provider takes effect for every
 *   connection at once, without a publish.
 * - `oauth_connections`: one per installation (or per developer and tool: a developer's test account), its tokens
 *   sealed, when they expire, the scopes granted, and the refresh lease that lets one node at a time refresh.
 * - `oauth_states`: an authorization in progress, by the SHA-256 of its `state`: single-use, ten minutes, bound to
 *   the person's session; the PKCE verifier sealed.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('tools').addColumn('oauth', 'text').execute();
  await db.schema.alterTable('tools').addColumn('oauth_client_secret', 'text').execute();
  await db.schema.alterTable('tools').addColumn('oauth_secret_key_id', 'text').execute();
  await db.schema.alterTable('tool_revisions').addColumn('oauth', 'text').execute();

  await db.schema
    .createTable('oauth_connections')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('tool_id', 'text', (c) => c.notNull())
    // An installation's connection: its org and installation; a developer's test account: the developer.
    .addColumn('org_id', 'text', (c) => c.references('orgs.id').onDelete('cascade'))
    .addColumn('installation_id', 'text', (c) => c.references('installations.id').onDelete('cascade'))
    .addColumn('developer_id', 'text')
    // connected | needs_reconnect
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('client_id', 'text', (c) => c.notNull())
    .addColumn('access_token', 'text', (c) => c.notNull())
    .addColumn('refresh_token', 'text')
    .addColumn('key_id', 'text', (c) => c.notNull())
    // Bumped by every new access token: a caller that saw version n knows whether someone refreshed since.
    .addColumn('token_version', 'integer', (c) => c.notNull().defaultTo(1))
    .addColumn('expires_at', 'text')
    .addColumn('scopes', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('account_label', 'text')
    .addColumn('connected_at', 'text', (c) => c.notNull())
    .addColumn('refreshed_at', 'text')
    .addColumn('refresh_failures', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('retry_refresh_at', 'text')
    .addColumn('lease_owner', 'text')
    .addColumn('lease_until', 'text')
    .addColumn('failure_reason', 'text')
    .execute();
  await db.schema.createIndex('oauth_connections_installation_idx').on('oauth_connections').column('installation_id').unique().execute();
  await db.schema.createIndex('oauth_connections_developer_tool_idx').on('oauth_connections').columns(['developer_id', 'tool_id']).unique().execute();
  await db.schema.createIndex('oauth_connections_tool_idx').on('oauth_connections').column('tool_id').execute();

  await db.schema
    .createTable('oauth_states')
    .addColumn('state_hash', 'text', (c) => c.primaryKey())
    .addColumn('tool_id', 'text', (c) => c.notNull())
    .addColumn('org_id', 'text', (c) => c.references('orgs.id').onDelete('cascade'))
    .addColumn('installation_id', 'text', (c) => c.references('installations.id').onDelete('cascade'))
    .addColumn('developer_id', 'text')
    .addColumn('session_id', 'text', (c) => c.notNull())
    .addColumn('client_id', 'text', (c) => c.notNull())
    .addColumn('code_verifier', 'text', (c) => c.notNull())
    .addColumn('key_id', 'text', (c) => c.notNull())
    .addColumn('scopes', 'text', (c) => c.notNull())
    .addColumn('expires_at', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('oauth_states_expires_idx').on('oauth_states').column('expires_at').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('oauth_states').execute();
  await db.schema.dropTable('oauth_connections').execute();
  await db.schema.alterTable('tool_revisions').dropColumn('oauth').execute();
  await db.schema.alterTable('tools').dropColumn('oauth_secret_key_id').execute();
  await db.schema.alterTable('tools').dropColumn('oauth_client_secret').execute();
  await db.schema.alterTable('tools').dropColumn('oauth').execute();
}
