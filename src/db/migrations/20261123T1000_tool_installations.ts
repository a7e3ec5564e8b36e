import type { Kysely } from 'kysely';

/**
 * Tool calls: installations (an organization enables a published tool for all or some of
 * its agents), their encrypted credentials, the call log (no payloads), and agent keys
 * (`svc_agt_…`, stored hashed) for the MCP endpoint.
 *
 * No foreign key to tools: a developer may delete a tool at any time, and its installations
 * then simply stop being callable (TOOL_NOT_ENABLED). The call log has no foreign keys at
 * all: it outlives the agents and installations it names.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('installations')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('org_id', 'text', (c) => c.notNull().references('orgs.id').onDelete('cascade'))
    .addColumn('tool_id', 'text', (c) => c.notNull())
    .addColumn('alias', 'text')
    .addColumn('all_agents', 'integer', (c) => c.notNull().defaultTo(1))
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('installations_org_tool_uq').on('installations').columns(['org_id', 'tool_id']).unique().execute();
  await db.schema.createIndex('installations_org_created_idx').on('installations').columns(['org_id', 'created_at', 'id']).execute();

  await db.schema
    .createTable('installation_agents')
    .addColumn('installation_id', 'text', (c) => c.notNull().references('installations.id').onDelete('cascade'))
    .addColumn('agent_id', 'text', (c) => c.notNull().references('agents.id').onDelete('cascade'))
    .addColumn('org_id', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('installation_agents_pk', ['installation_id', 'agent_id'])
    .execute();
  await db.schema.createIndex('installation_agents_agent_idx').on('installation_agents').columns(['org_id', 'agent_id']).execute();

  await db.schema
    .createTable('installation_credentials')
    .addColumn('installation_id', 'text', (c) => c.notNull().references('installations.id').onDelete('cascade'))
    .addColumn('field', 'text', (c) => c.notNull())
    .addColumn('sealed', 'text', (c) => c.notNull())
    .addColumn('key_id', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('installation_credentials_pk', ['installation_id', 'field'])
    .execute();
  await db.schema.createIndex('installation_credentials_key_idx').on('installation_credentials').column('key_id').execute();

  await db.schema
    .createTable('tool_calls')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('org_id', 'text', (c) => c.notNull())
    .addColumn('agent_id', 'text', (c) => c.notNull())
    .addColumn('tool_id', 'text', (c) => c.notNull())
    .addColumn('revision_id', 'text', (c) => c.notNull())
    .addColumn('installation_id', 'text', (c) => c.notNull())
    .addColumn('path', 'text', (c) => c.notNull())
    .addColumn('outcome', 'text', (c) => c.notNull())
    .addColumn('http_status', 'integer')
    .addColumn('duration_ms', 'integer', (c) => c.notNull())
    .addColumn('request_bytes', 'integer', (c) => c.notNull())
    .addColumn('response_bytes', 'integer', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('tool_calls_org_created_idx').on('tool_calls').columns(['org_id', 'created_at', 'id']).execute();
  await db.schema.createIndex('tool_calls_tool_created_idx').on('tool_calls').columns(['tool_id', 'created_at', 'id']).execute();

  await db.schema
    .createTable('agent_keys')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('agent_id', 'text', (c) => c.notNull().references('agents.id').onDelete('cascade'))
    .addColumn('org_id', 'text', (c) => c.notNull().references('orgs.id').onDelete('cascade'))
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('key_hash', 'text', (c) => c.notNull().unique())
    .addColumn('last_four', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('last_used_at', 'text')
    .addColumn('revoked_at', 'text')
    .execute();
  await db.schema.createIndex('agent_keys_agent_idx').on('agent_keys').columns(['org_id', 'agent_id', 'created_at', 'id']).execute();
}
