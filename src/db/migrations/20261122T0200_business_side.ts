import type { Kysely } from 'kysely';

/**
 * Organizations, operators, API keys, agents with their brand, the CRM
 * (custom fields, pipelines and stages, contacts, notes, opportunities) and forms
 * with their consent history, submissions and idempotency records.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('orgs')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('default_country', 'text', (c) => c.notNull().defaultTo('US'))
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();

  await db.schema
    .createTable('users')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('org_id', 'text', (c) => c.notNull().references('orgs.id').onDelete('cascade'))
    .addColumn('email', 'text', (c) => c.notNull().unique())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('password_hash', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('users_org_idx').on('users').column('org_id').execute();

  await db.schema
    .createTable('org_api_keys')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('org_id', 'text', (c) => c.notNull().references('orgs.id').onDelete('cascade'))
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('key_hash', 'text', (c) => c.notNull().unique())
    .addColumn('last_four', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('last_used_at', 'text')
    .addColumn('revoked_at', 'text')
    .execute();
  await db.schema.createIndex('org_api_keys_org_idx').on('org_api_keys').columns(['org_id', 'created_at']).execute();

  await db.schema
    .createTable('agents')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('org_id', 'text', (c) => c.notNull().references('orgs.id').onDelete('cascade'))
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('brand_name', 'text', (c) => c.notNull())
    .addColumn('primary_color', 'text', (c) => c.notNull())
    .addColumn('background_color', 'text', (c) => c.notNull())
    .addColumn('text_color', 'text', (c) => c.notNull())
    .addColumn('font_family', 'text')
    .addColumn('logo_url', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('agents_org_idx').on('agents').columns(['org_id', 'created_at']).execute();

  await db.schema
    .createTable('custom_fields')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('org_id', 'text', (c) => c.notNull().references('orgs.id').onDelete('cascade'))
    .addColumn('key', 'text', (c) => c.notNull())
    .addColumn('entity', 'text', (c) => c.notNull())
    .addColumn('label', 'text', (c) => c.notNull())
    .addColumn('type', 'text', (c) => c.notNull())
    .addColumn('options', 'text', (c) => c.notNull().defaultTo('[]'))
    .addColumn('archived_at', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();
  // One key per org: the key is what a submission's `custom` object uses.
  await db.schema.createIndex('custom_fields_org_key_uq').on('custom_fields').columns(['org_id', 'key']).unique().execute();

  await db.schema
    .createTable('pipelines')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('org_id', 'text', (c) => c.notNull().references('orgs.id').onDelete('cascade'))
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('is_default', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('pipelines_org_idx').on('pipelines').columns(['org_id', 'created_at']).execute();

  await db.schema
    .createTable('stages')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('org_id', 'text', (c) => c.notNull().references('orgs.id').onDelete('cascade'))
    .addColumn('pipeline_id', 'text', (c) => c.notNull().references('pipelines.id').onDelete('cascade'))
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('position', 'integer', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('stages_pipeline_idx').on('stages').columns(['pipeline_id', 'position']).execute();

  await db.schema
    .createTable('contacts')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('org_id', 'text', (c) => c.notNull().references('orgs.id').onDelete('cascade'))
    .addColumn('email', 'text')
    .addColumn('phone', 'text')
    .addColumn('name', 'text')
    .addColumn('company', 'text')
    .addColumn('source', 'text', (c) => c.notNull())
    .addColumn('custom', 'text', (c) => c.notNull().defaultTo('{}'))
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();
  // NULLs are distinct in unique indexes on both dialects: a contact may lack email or phone.
  await db.schema.createIndex('contacts_org_email_uq').on('contacts').columns(['org_id', 'email']).unique().execute();
  await db.schema.createIndex('contacts_org_phone_uq').on('contacts').columns(['org_id', 'phone']).unique().execute();
  await db.schema.createIndex('contacts_org_created_idx').on('contacts').columns(['org_id', 'created_at', 'id']).execute();

  await db.schema
    .createTable('notes')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('org_id', 'text', (c) => c.notNull().references('orgs.id').onDelete('cascade'))
    .addColumn('contact_id', 'text', (c) => c.notNull().references('contacts.id').onDelete('cascade'))
    .addColumn('body', 'text', (c) => c.notNull())
    .addColumn('source', 'text', (c) => c.notNull())
    .addColumn('submission_id', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('notes_contact_idx').on('notes').columns(['contact_id', 'created_at']).execute();

  await db.schema
    .createTable('opportunities')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('org_id', 'text', (c) => c.notNull().references('orgs.id').onDelete('cascade'))
    .addColumn('contact_id', 'text', (c) => c.notNull().references('contacts.id').onDelete('cascade'))
    .addColumn('pipeline_id', 'text', (c) => c.notNull().references('pipelines.id'))
    .addColumn('stage_id', 'text', (c) => c.notNull().references('stages.id'))
    .addColumn('title', 'text', (c) => c.notNull())
    .addColumn('source', 'text', (c) => c.notNull())
    .addColumn('custom', 'text', (c) => c.notNull().defaultTo('{}'))
    .addColumn('submission_id', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('opportunities_org_created_idx').on('opportunities').columns(['org_id', 'created_at', 'id']).execute();
  await db.schema.createIndex('opportunities_contact_idx').on('opportunities').column('contact_id').execute();
  await db.schema.createIndex('opportunities_stage_idx').on('opportunities').column('stage_id').execute();

  await db.schema
    .createTable('forms')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('org_id', 'text', (c) => c.notNull().references('orgs.id').onDelete('cascade'))
    .addColumn('slug', 'text', (c) => c.notNull().unique())
    .addColumn('title', 'text', (c) => c.notNull())
    .addColumn('active', 'integer', (c) => c.notNull())
    // {name|email|phone|company|message: {enabled, required}}
    .addColumn('fields', 'text', (c) => c.notNull())
    // [{customFieldId, required}] in display order
    .addColumn('custom_fields', 'text', (c) => c.notNull().defaultTo('[]'))
    .addColumn('consent_text', 'text', (c) => c.notNull())
    .addColumn('consent_version', 'text', (c) => c.notNull())
    .addColumn('success_message', 'text', (c) => c.notNull())
    .addColumn('redirect_url', 'text')
    .addColumn('agent_id', 'text')
    .addColumn('create_opportunity', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('pipeline_id', 'text')
    .addColumn('stage_id', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('forms_org_created_idx').on('forms').columns(['org_id', 'created_at', 'id']).execute();

  // Every consent text ever shown, so each submission proves what the visitor agreed to.
  await db.schema
    .createTable('consent_versions')
    .addColumn('form_id', 'text', (c) => c.notNull().references('forms.id').onDelete('cascade'))
    .addColumn('version', 'text', (c) => c.notNull())
    .addColumn('text', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('consent_versions_pk', ['form_id', 'version'])
    .execute();

  await db.schema
    .createTable('submissions')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('org_id', 'text', (c) => c.notNull().references('orgs.id').onDelete('cascade'))
    .addColumn('form_id', 'text', (c) => c.notNull().references('forms.id').onDelete('cascade'))
    .addColumn('contact_id', 'text', (c) => c.notNull().references('contacts.id').onDelete('cascade'))
    .addColumn('opportunity_id', 'text')
    .addColumn('field_values', 'text', (c) => c.notNull())
    .addColumn('custom', 'text', (c) => c.notNull())
    .addColumn('consent_version', 'text', (c) => c.notNull())
    .addColumn('metadata', 'text', (c) => c.notNull())
    .addColumn('ip', 'text')
    .addColumn('user_agent', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('submissions_form_created_idx').on('submissions').columns(['form_id', 'created_at', 'id']).execute();
  await db.schema.createIndex('submissions_contact_idx').on('submissions').column('contact_id').execute();

  await db.schema
    .createTable('idempotency_keys')
    .addColumn('form_id', 'text', (c) => c.notNull().references('forms.id').onDelete('cascade'))
    .addColumn('key', 'text', (c) => c.notNull())
    .addColumn('response', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('idempotency_keys_pk', ['form_id', 'key'])
    .execute();
}
