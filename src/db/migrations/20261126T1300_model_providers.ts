import type { Kysely } from 'kysely';

/**
 * Agent conversations, first piece (issue 21): per organization, the model providers its agents
 * talk to (an API key sealed like tool credentials: AES-256-GCM under SECRETS_KEY, bound to the
 * provider's id), and per agent the model it uses.
 *
 * The agent's model lives in `agents` (the orgs feature's table) as nullable columns: all null
 * until a model is set. `model_provider_id` refers to the provider without cascade, so the
 * database itself refuses to delete a provider an agent still uses (the service answers 409 first).
 * `double precision`: PostgreSQL's `real` is 4 bytes, and 0.7 would read back as 0.699999988.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('model_providers')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('org_id', 'text', (c) => c.notNull().references('orgs.id').onDelete('cascade'))
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('base_url', 'text', (c) => c.notNull())
    .addColumn('api_key_sealed', 'text')
    .addColumn('api_key_key_id', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('model_providers_org_created_idx').on('model_providers').columns(['org_id', 'created_at', 'id']).execute();
  // `secrets rotate` looks for keys not under the current key.
  await db.schema.createIndex('model_providers_key_idx').on('model_providers').column('api_key_key_id').execute();

  await db.schema.alterTable('agents').addColumn('model_provider_id', 'text', (c) => c.references('model_providers.id')).execute();
  await db.schema.alterTable('agents').addColumn('model_name', 'text').execute();
  await db.schema.alterTable('agents').addColumn('model_instructions', 'text').execute();
  await db.schema.alterTable('agents').addColumn('model_temperature', 'double precision').execute();
  await db.schema.alterTable('agents').addColumn('model_max_tool_rounds', 'integer').execute();
  // A provider's deletion asks whether any agent uses it.
  await db.schema.createIndex('agents_model_provider_idx').on('agents').column('model_provider_id').execute();
}
