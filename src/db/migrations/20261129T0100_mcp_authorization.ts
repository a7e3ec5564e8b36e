import type { Kysely } from 'kysely';

/**
 * OAuth 2.1 authorization for `/mcp` (issue 34): Switchboard is the authorization server of its own MCP endpoint
 * (docs/mcp.md, "Connecting a host with its URL").
 *
 * - `mcp_clients`: clients registered by Dynamic Client Registration (RFC 7591; public clients). Clients that
 *   identify by a Client ID Metadata Document (an `https://` client_id) are not stored: their document is fetched.
 * - `mcp_grants`: a person's approval of one client for one agent of their organization; revoking it ends every
 *   token it issued.
 * - `mcp_codes`: authorization codes, by SHA-256, single-use, with the PKCE challenge and redirect URI.
 * - `mcp_tokens`: access tokens (an hour) and refresh tokens (rotated on every use), by SHA-256.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('mcp_clients')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('client_name', 'text', (c) => c.notNull())
    .addColumn('redirect_uris', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('used_at', 'text')
    .execute();
  await db.schema.createIndex('mcp_clients_created_idx').on('mcp_clients').column('created_at').execute();

  await db.schema
    .createTable('mcp_grants')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('org_id', 'text', (c) => c.notNull().references('orgs.id').onDelete('cascade'))
    .addColumn('agent_id', 'text', (c) => c.notNull().references('agents.id').onDelete('cascade'))
    .addColumn('client_id', 'text', (c) => c.notNull())
    .addColumn('client_name', 'text', (c) => c.notNull())
    .addColumn('user_id', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('last_used_at', 'text')
    .addColumn('revoked_at', 'text')
    .execute();
  await db.schema.createIndex('mcp_grants_agent_idx').on('mcp_grants').columns(['org_id', 'agent_id']).execute();

  await db.schema
    .createTable('mcp_codes')
    .addColumn('code_hash', 'text', (c) => c.primaryKey())
    .addColumn('grant_id', 'text', (c) => c.notNull().references('mcp_grants.id').onDelete('cascade'))
    .addColumn('client_id', 'text', (c) => c.notNull())
    .addColumn('redirect_uri', 'text', (c) => c.notNull())
    .addColumn('code_challenge', 'text', (c) => c.notNull())
    .addColumn('expires_at', 'text', (c) => c.notNull())
    .addColumn('used_at', 'text')
    .execute();

  await db.schema
    .createTable('mcp_tokens')
    .addColumn('token_hash', 'text', (c) => c.primaryKey())
    .addColumn('grant_id', 'text', (c) => c.notNull().references('mcp_grants.id').onDelete('cascade'))
    // access | refresh
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('expires_at', 'text', (c) => c.notNull())
    // A refresh token's one use: a second is a replay, and revokes the grant.
    .addColumn('used_at', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('mcp_tokens_grant_idx').on('mcp_tokens').column('grant_id').execute();
  await db.schema.createIndex('mcp_tokens_expires_idx').on('mcp_tokens').column('expires_at').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('mcp_tokens').execute();
  await db.schema.dropTable('mcp_codes').execute();
  await db.schema.dropTable('mcp_grants').execute();
  await db.schema.dropTable('mcp_clients').execute();
}
