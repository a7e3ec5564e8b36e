import type { Kysely } from 'kysely';

/**
 * Views of each form per day (UTC), for conversion (views → submissions). One row per form and
 * day, incremented by batched upserts (forms/views-service.ts); gone with its form. Submissions per day are read through submissions_form_created_idx.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('form_views')
    .addColumn('form_id', 'text', (c) => c.notNull().references('forms.id').onDelete('cascade'))
    .addColumn('org_id', 'text', (c) => c.notNull().references('orgs.id').onDelete('cascade'))
    .addColumn('day', 'text', (c) => c.notNull())
    .addColumn('views', 'integer', (c) => c.notNull().defaultTo(0))
    .addPrimaryKeyConstraint('form_views_pk', ['form_id', 'day'])
    .execute();
}
