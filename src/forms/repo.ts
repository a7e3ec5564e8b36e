import { sql, type Kysely } from 'kysely';
import { queryTemplate } from '../db/query-template.js';
import { SUBMISSION_COLUMNS } from '../db/tables.js';
import type { ConsentVersionsTable, DB, FormsTable, FormViewsTable, IdempotencyKeysTable, SubmissionsTable } from '../db/tables.js';
import type { CursorPosition } from '../http/cursor.js';
import { countOf, newestFirst, skipLockedOnPostgres } from '../db/query-helpers.js';

export type FormChanges = Partial<Omit<FormsTable, 'id' | 'org_id' | 'created_at'>>;

// Runs on every submission: compiled once (see db/query-template.ts).
const insertSubmission = queryTemplate(SUBMISSION_COLUMNS, (db, row: SubmissionsTable) => db.insertInto('submissions').values(row));

/**
 * Kysely queries for forms, consent versions, submissions, daily view counters and idempotency keys.
 * Operator queries take the org id; only the public lookup by slug does not
 * (slugs are global), and it is the one place a form is found without its org.
 * Accepts a transaction too, so submit writes share the CRM's transaction.
 */
export function createFormsRepo(db: Kysely<DB>) {
  return {
    // ── Forms ──
    insertForm: (row: FormsTable) => db.insertInto('forms').values(row).execute(),
    findForm: (orgId: string, id: string) => db.selectFrom('forms').selectAll().where('org_id', '=', orgId).where('id', '=', id).executeTakeFirst(),
    findFormBySlug: (slug: string) => db.selectFrom('forms').selectAll().where('slug', '=', slug).executeTakeFirst(),
    countForms: (orgId: string) => countOf(db.selectFrom('forms').where('org_id', '=', orgId)),
    slugExists: async (slug: string) => (await db.selectFrom('forms').select('id').where('slug', '=', slug).executeTakeFirst()) !== undefined,
    /** One newest-first page: `limit` rows and one more to tell whether another page follows. */
    listForms: (orgId: string, limit: number, after: CursorPosition | undefined) =>
      newestFirst(db.selectFrom('forms').selectAll().where('org_id', '=', orgId), limit, after).execute(),
    updateForm: (orgId: string, id: string, changes: FormChanges) =>
      db.updateTable('forms').set(changes).where('org_id', '=', orgId).where('id', '=', id).executeTakeFirst(),
    /** Consent history, submissions and idempotency keys go with it (ON DELETE CASCADE); CRM records stay. */
    deleteForm: async (orgId: string, id: string) =>
      Number((await db.deleteFrom('forms').where('org_id', '=', orgId).where('id', '=', id).executeTakeFirst()).numDeletedRows) > 0,
    /** Active forms that point at the pipeline or at one of the stages: they would break if these went away. */
    activeFormsUsing: (orgId: string, pipelineId: string | null, stageIds: string[]) =>
      db
        .selectFrom('forms')
        .select(['id', 'slug', 'title'])
        .where('org_id', '=', orgId)
        .where('active', '=', 1)
        .where((eb) => {
          const uses = [];
          if (pipelineId !== null) uses.push(eb('pipeline_id', '=', pipelineId));
          if (stageIds.length > 0) uses.push(eb('stage_id', 'in', stageIds));
          return uses.length > 0 ? eb.or(uses) : sql<boolean>`1 = 0`;
        })
        .orderBy('created_at')
        .limit(5)
        .execute(),

    // ── Custom field definitions, as a form refers to them ──
    // Read-only look-ups the CRM service does not offer: by key, and including archived definitions.
    customFieldsByKeys: (orgId: string, keys: string[]) =>
      keys.length === 0
        ? Promise.resolve([])
        : db.selectFrom('custom_fields').select(['id', 'key', 'archived_at']).where('org_id', '=', orgId).where('key', 'in', keys).execute(),
    customFieldsByIds: (orgId: string, ids: string[]) =>
      ids.length === 0
        ? Promise.resolve([])
        : db.selectFrom('custom_fields').select(['id', 'key', 'archived_at']).where('org_id', '=', orgId).where('id', 'in', ids).execute(),

    // ── Notification recipients ──
    /** Which of `ids` are members of the organization now (read-only: the people are operators/'). */
    membersAmong: async (orgId: string, ids: string[]): Promise<Set<string>> =>
      new Set(ids.length === 0 ? [] : (await db.selectFrom('users').select('id').where('org_id', '=', orgId).where('role', 'is not', null).where('id', 'in', ids).execute()).map((row) => row.id)),

    // ── Consent history ──
    insertConsentVersion: (row: ConsentVersionsTable) => db.insertInto('consent_versions').values(row).execute(),
    listConsentVersions: (formId: string) => db.selectFrom('consent_versions').selectAll().where('form_id', '=', formId).execute(),

    // ── Submissions ──
    insertSubmission: (row: SubmissionsTable) => insertSubmission(db, row),
    /**
     * An erased contact's submissions (privacy/): their values, custom values, UTM metadata, IP and user agent go;
     * the rows stay (form, time, consent version, contact stub, opportunity), so the form's counts do not change.
     */
    anonymizeSubmissionsOf: async (orgId: string, contactId: string): Promise<number> => {
      const result = await db.updateTable('submissions')
        .set({ field_values: '{}', custom: '{}', metadata: '{}', ip: null, user_agent: null })
        .where('org_id', '=', orgId).where('contact_id', '=', contactId)
        .executeTakeFirst();
      return Number(result.numUpdatedRows);
    },
    listSubmissions: (orgId: string, formId: string, limit: number, after: CursorPosition | undefined) => {
      const query = db
        .selectFrom('submissions as s')
        .leftJoin('consent_versions as cv', (join) => join.onRef('cv.form_id', '=', 's.form_id').onRef('cv.version', '=', 's.consent_version'))
        .selectAll('s')
        .select('cv.text as consent_text')
        .where('s.org_id', '=', orgId)
        .where('s.form_id', '=', formId);
      return newestFirst(query, limit, after, 's').execute();
    },

    countSubmissions: async (orgId: string, formId: string) =>
      Number((await db.selectFrom('submissions').select((eb) => eb.fn.countAll().as('n')).where('org_id', '=', orgId).where('form_id', '=', formId).executeTakeFirstOrThrow()).n),
    /** All-time submissions of each of `formIds` (one page of the forms list), by form id; forms without any are absent. */
    countSubmissionsOf: async (orgId: string, formIds: string[]) => {
      if (formIds.length === 0) return new Map<string, number>();
      const rows = await db.selectFrom('submissions').select(['form_id', (eb) => eb.fn.countAll().as('n')]).where('org_id', '=', orgId).where('form_id', 'in', formIds).groupBy('form_id').execute();
      return new Map(rows.map((row) => [row.form_id, Number(row.n)]));
    },
    /** Submissions per UTC day from `since` (an ISO time) on. */
    submissionsPerDay: async (orgId: string, formId: string, since: string) => {
      const day = sql<string>`substr(created_at, 1, 10)`;
      const rows = await db
        .selectFrom('submissions')
        .select([day.as('day'), (eb) => eb.fn.countAll().as('n')])
        .where('org_id', '=', orgId)
        .where('form_id', '=', formId)
        .where('created_at', '>=', since)
        .groupBy(day)
        .execute();
      return rows.map((row) => ({ day: row.day, count: Number(row.n) }));
    },

    // ── Views (daily counters) ──
    /**
     * Adds counted views, one upsert per form and day. A form deleted since it was viewed matches no
     * row in the select, so its views are dropped instead of failing the batch.
     */
    addViews: async (rows: Pick<FormViewsTable, 'form_id' | 'day' | 'views'>[]) => {
      for (const row of rows) {
        await db
          .insertInto('form_views')
          .columns(['form_id', 'org_id', 'day', 'views'])
          .expression((eb) =>
            // Typed casts: PostgreSQL cannot infer a parameter's type in a select list.
            eb.selectFrom('forms').select(['id', 'org_id', sql<string>`cast(${row.day} as text)`.as('day'), sql<number>`cast(${row.views} as integer)`.as('views')]).where('id', '=', row.form_id),
          )
          .onConflict((oc) => oc.columns(['form_id', 'day']).doUpdateSet((eb) => ({ views: eb('form_views.views', '+', eb.ref('excluded.views')) })))
          .execute();
      }
    },
    countViews: async (orgId: string, formId: string) =>
      Number((await db.selectFrom('form_views').select((eb) => eb.fn.coalesce(eb.fn.sum<number>('views'), eb.val(0)).as('n')).where('org_id', '=', orgId).where('form_id', '=', formId).executeTakeFirstOrThrow()).n),
    /** All-time views of each of `formIds`, by form id; forms never viewed are absent. */
    countViewsOf: async (orgId: string, formIds: string[]) => {
      if (formIds.length === 0) return new Map<string, number>();
      const rows = await db.selectFrom('form_views').select(['form_id', (eb) => eb.fn.sum<number>('views').as('n')]).where('org_id', '=', orgId).where('form_id', 'in', formIds).groupBy('form_id').execute();
      return new Map(rows.map((row) => [row.form_id, Number(row.n)]));
    },
    viewsPerDay: (orgId: string, formId: string, sinceDay: string) =>
      db.selectFrom('form_views').select(['day', 'views']).where('org_id', '=', orgId).where('form_id', '=', formId).where('day', '>=', sinceDay).execute(),

    // ── Idempotency keys ──
    findIdempotencyKey: (formId: string, key: string) =>
      db.selectFrom('idempotency_keys').select(['response', 'created_at']).where('form_id', '=', formId).where('key', '=', key).executeTakeFirst(),
    /** Inserts unless the key is already recorded; false when another request got there first. */
    insertIdempotencyKey: async (row: IdempotencyKeysTable): Promise<boolean> => {
      const inserted = await db.insertInto('idempotency_keys').values(row).onConflict((oc) => oc.columns(['form_id', 'key']).doNothing()).returning('key').executeTakeFirst();
      return inserted !== undefined;
    },
    /** Frees a key recorded before `before` (its 24 hours are over). */
    deleteExpiredIdempotencyKey: (formId: string, key: string, before: string) =>
      db.deleteFrom('idempotency_keys').where('form_id', '=', formId).where('key', '=', key).where('created_at', '<', before).execute(),
    /** Up to `limit` keys recorded before `before` (through idempotency_keys_created_idx); resolves to how many. */
    deleteExpiredIdempotencyKeys: async (before: string, limit: number): Promise<number> => {
      const batch = skipLockedOnPostgres(db, db.selectFrom('idempotency_keys').select(['form_id', 'key']).where('created_at', '<', before).limit(limit));
      const result = await db
        .deleteFrom('idempotency_keys')
        .where(({ eb, refTuple }) => eb(refTuple('form_id', 'key'), 'in', batch.$asTuple('form_id', 'key')))
        .executeTakeFirst();
      return Number(result.numDeletedRows);
    },

    // ── Retention (src/retention-purges.ts) ──
    /**
     * Clears the values, UTM, IP and user agent of up to `limit` submissions made before `before` in the organizations
     * whose `retention_submissions_days` is `days`. The rows stay (form analytics count them, the contact keeps its
     * history and the consent version it agreed to). Through submissions_retention_idx: only rows not cleared yet.
     */
    clearSubmissionsPastRetention: async (days: number, before: string, now: string, limit: number): Promise<number> => {
      const batch = skipLockedOnPostgres(db, db.selectFrom('submissions').select('id')
        .where('values_cleared_at', 'is', null)
        .where('org_id', 'in', db.selectFrom('orgs').select('id').where('retention_submissions_days', '=', days))
        .where('created_at', '<', before)
        .limit(limit));
      const result = await db.updateTable('submissions')
        .set({ field_values: '{}', custom: '{}', metadata: '{}', ip: null, user_agent: null, values_cleared_at: now })
        .where('id', 'in', batch)
        .executeTakeFirst();
      return Number(result.numUpdatedRows);
    },
  };
}

export type FormsRepo = ReturnType<typeof createFormsRepo>;
