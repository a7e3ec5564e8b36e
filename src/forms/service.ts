import { isUniqueViolation, type CursorPosition } from '../db/query-helpers.js';
import type { AuditContext } from '../audit/context.js';
import type { AuditRepo } from '../audit/repo.js';
import type { AuditLog } from '../audit/service.js';
import { presentSubmission } from '../crm/present.js';
import type { CrmService } from '../crm/service.js';
import type { FormsTable } from '../db/tables.js';
import type { Transact } from '../db/transaction-runner.js';
import { decodeCursor, toPage } from '../http/cursor.js';
import { AppError } from '../http/errors.js';
import type { Clock } from '../lib/clock.js';
import { newId } from '../lib/ids.js';
import { formNotFound } from './errors.js';
import type { FormCache } from './form-cache.js';
import type { FormViews } from './views-service.js';
import { notifyOf, parseCustomFieldRefs, type LiveForm, type StoredCustomFieldRef } from './public-form.js';
import { DEFAULT_NOTIFY, type NotifySetting } from '../notifications/outbox.js';
import type { OrgsService } from '../orgs/service.js';
import type { FormChanges, FormsRepo } from './repo.js';
import { httpUrl } from '../lib/text.js';
import { requiredText } from '../http/required-text.js';
import { refuseAtOrgLimit, type LimitLock } from '../http/tenant-limits.js';
import { BUILT_IN_FIELDS, DEFAULT_FIELDS, DEFAULT_SUCCESS_MESSAGE, UTM_KEYS, type FieldSettings } from './rules.js';
import type { ConsentVersion, FormCreateInput, FormPatchInput, FormRecord, SubmissionRecord } from './schema.js';
import { csvRow } from './csv.js';
import { embedSnippets, type EmbedSnippets } from './embed-snippets.js';

/** Submissions read per query of a CSV export. */
const EXPORT_PAGE = 500;

/**
 * The Operator API's rules for forms. Every query carries the caller's org id, so
 * another org's form is indistinguishable from a missing one (404 FORM_NOT_FOUND).
 * Every change drops the form from the public cache (on every node, with Redis).
 */
type CustomFieldRefInput = NonNullable<FormCreateInput['customFields']>[number];

function validation(field: string, message: string): AppError {
  return new AppError('VALIDATION_ERROR', message, { field });
}

function checkRedirectUrl(value: string | null): string | null {
  if (value === null) return null;
  const url = httpUrl(value.trim());
  if (!url) throw validation('redirectUrl', 'redirectUrl must be an http:// or https:// URL, or null.');
  return url.href;
}

function mergeFields(current: FieldSettings, input: FormCreateInput['fields']): FieldSettings {
  const fields = { ...current };
  for (const name of BUILT_IN_FIELDS) {
    const setting = input?.[name];
    if (setting) fields[name] = { enabled: setting.enabled, required: setting.required };
  }
  for (const name of BUILT_IN_FIELDS) {
    if (fields[name].required && !fields[name].enabled) {
      throw validation(`fields.${name}`, `The ${name} field is required, so it must also be enabled.`);
    }
  }
  if (!fields.email.enabled && !fields.phone.enabled) {
    throw validation('fields', 'A form must ask for an email address or a phone number: enable email or phone.');
  }
  return fields;
}

/** Days in GET /api/org/forms/{id}/stats: today (UTC) and the 29 before it. */
export const STATS_DAYS = 30;

export function createFormsService(deps: {
  repo: FormsRepo;
  /** `orgs` locks the org's row for the forms limit (http/tenant-limits.ts). */
  transact: Transact<{ forms: FormsRepo; orgs: LimitLock; audit: AuditRepo }>;
  /** A consent text changed (form.consent_changed). */
  audit: AuditLog;
  crm: CrmService;
  orgs: Pick<OrgsService, 'agentBranding'>;
  cache: FormCache<LiveForm>;
  clock: Clock;
  publicUrl: string;
  views: FormViews;
}) {
  const { repo, transact, crm, orgs, cache, clock, publicUrl, views, audit } = deps;

  /** Custom field references by key or id → stored refs; each must be an active definition of the org. */
  async function resolveCustomFields(orgId: string, input: CustomFieldRefInput[]): Promise<StoredCustomFieldRef[]> {
    const keys = input.flatMap((ref) => (ref.key !== undefined ? [ref.key] : []));
    const ids = input.flatMap((ref) => (ref.id !== undefined ? [ref.id] : []));
    const [byKey, byId] = await Promise.all([repo.customFieldsByKeys(orgId, keys), repo.customFieldsByIds(orgId, ids)]);
    const seen = new Set<string>();
    return input.map((ref, index) => {
      const field = `customFields[${index}]`;
      if ((ref.key === undefined) === (ref.id === undefined)) throw validation(field, `${field} needs either key or id (one of them).`);
      const definition = ref.key !== undefined ? byKey.find((row) => row.key === ref.key) : byId.find((row) => row.id === ref.id);
      const name = ref.key ?? ref.id;
      if (!definition) throw new AppError('CUSTOM_FIELD_NOT_FOUND', `Your organization has no custom field "${name}".`, { field });
      if (definition.archived_at !== null) throw new AppError('CUSTOM_FIELD_NOT_FOUND', `The custom field "${name}" is archived; restore it or pick another one.`, { field });
      if (seen.has(definition.id)) throw validation(field, `The custom field "${name}" is listed twice.`);
      seen.add(definition.id);
      return { customFieldId: definition.id, required: ref.required ?? false };
    });
  }

  /** The notify setting with `input` applied; each recipient named must be a member of the organization (404 otherwise). */
  async function resolveNotify(orgId: string, current: NotifySetting, input: FormCreateInput['notify']): Promise<Pick<FormsTable, 'notify_enabled' | 'notify_recipients'>> {
    const enabled = input?.enabled ?? current.enabled;
    const recipients = input?.recipients ?? current.recipients;
    if (input?.recipients !== undefined && recipients !== 'owners') {
      const members = await repo.membersAmong(orgId, recipients);
      const index = recipients.findIndex((id) => !members.has(id));
      if (index >= 0) throw new AppError('NOT_FOUND', `No member of your organization has the id ${recipients[index]}.`, { field: `notify.recipients[${index}]` });
    }
    return { notify_enabled: enabled ? 1 : 0, notify_recipients: recipients === 'owners' ? null : JSON.stringify(recipients) };
  }

  async function checkAgent(orgId: string, agentId: string | null): Promise<void> {
    if (agentId !== null && (await orgs.agentBranding(orgId, agentId)) === null) {
      throw new AppError('AGENT_NOT_FOUND', 'Your organization has no agent with that id.', { field: 'agentId' });
    }
  }

  /**
   * The pipeline and stage must exist when opportunities are on or when ids are being set; at submit
   * time they are resolved again (they may be deleted later). Turning opportunities off always works.
   */
  async function checkTarget(
    orgId: string,
    form: Pick<FormsTable, 'create_opportunity' | 'pipeline_id' | 'stage_id'>,
    settingIds: boolean,
  ): Promise<Pick<FormsTable, 'pipeline_id' | 'stage_id'>> {
    const hasIds = form.pipeline_id !== null || form.stage_id !== null;
    if (form.create_opportunity !== 1 && !(settingIds && hasIds)) return { pipeline_id: form.pipeline_id, stage_id: form.stage_id };
    const target = await crm.resolveOpportunityTarget(orgId, form.pipeline_id, form.stage_id);
    // A stage alone names its pipeline; a pipeline alone means "its first stage" at submit time.
    return { pipeline_id: form.stage_id !== null ? target.pipelineId : form.pipeline_id, stage_id: form.stage_id };
  }

  async function present(rows: FormsTable[]): Promise<FormRecord[]> {
    const ids = [...new Set(rows.flatMap((row) => parseCustomFieldRefs(row.custom_fields).map((ref) => ref.customFieldId)))];
    const definitions = new Map((await repo.customFieldsByIds(rows[0]?.org_id ?? '', ids)).map((row) => [row.id, row]));
    return rows.map((row) => ({
      id: row.id,
      slug: row.slug,
      title: row.title,
      active: row.active === 1,
      fields: JSON.parse(row.fields) as FieldSettings,
      // A deleted definition has nothing left to show.
      customFields: parseCustomFieldRefs(row.custom_fields).flatMap((ref) => {
        const definition = definitions.get(ref.customFieldId);
        return definition ? [{ id: definition.id, key: definition.key, required: ref.required, archived: definition.archived_at !== null }] : [];
      }),
      consentText: row.consent_text,
      consentVersion: row.consent_version,
      successMessage: row.success_message,
      redirectUrl: row.redirect_url,
      agentId: row.agent_id,
      createOpportunity: row.create_opportunity === 1,
      pipelineId: row.pipeline_id,
      stageId: row.stage_id,
      notify: notifyOf(row),
      createdAt: row.created_at,
      updatedAt: row.updated_at,
    }));
  }

  async function presentOne(row: FormsTable): Promise<FormRecord> {
    const [record] = await present([row]);
    return record!;
  }

  function slugTaken(slug: string): AppError {
    return new AppError('CONFLICT', `The slug "${slug}" is already taken. Slugs are unique across all organizations; try another one.`, { field: 'slug' });
  }

  async function create(orgId: string, input: FormCreateInput): Promise<FormRecord> {
    const now = clock.now().toISOString();
    const fields = mergeFields(DEFAULT_FIELDS, input.fields);
    const row: FormsTable = {
      id: newId('frm'),
      org_id: orgId,
      slug: input.slug,
      title: requiredText(input.title, 'title', 'a title'),
      active: input.active === false ? 0 : 1,
      fields: JSON.stringify(fields),
      custom_fields: JSON.stringify(await resolveCustomFields(orgId, input.customFields ?? [])),
      consent_text: requiredText(input.consentText, 'consentText', 'the consent text'),
      consent_version: '1',
      success_message: input.successMessage === undefined ? DEFAULT_SUCCESS_MESSAGE : requiredText(input.successMessage, 'successMessage', 'a success message'),
      redirect_url: checkRedirectUrl(input.redirectUrl ?? null),
      agent_id: input.agentId ?? null,
      create_opportunity: input.createOpportunity ? 1 : 0,
      pipeline_id: input.pipelineId ?? null,
      stage_id: input.stageId ?? null,
      created_at: now,
      updated_at: now,
      ...(await resolveNotify(orgId, DEFAULT_NOTIFY, input.notify)),
    };
    await checkAgent(orgId, row.agent_id);
    Object.assign(row, await checkTarget(orgId, row, true));
    if (await repo.slugExists(row.slug)) throw slugTaken(row.slug);
    try {
      await transact(async (repos) => {
        const { forms } = repos;
        await refuseAtOrgLimit(repos, orgId, 'forms', () => forms.countForms(orgId));
        await forms.insertForm(row);
        await forms.insertConsentVersion({ form_id: row.id, version: row.consent_version, text: row.consent_text, created_at: now });
      });
    } catch (error) {
      if (isUniqueViolation(error)) throw slugTaken(row.slug);
      throw error;
    }
    cache.invalidateSlugs(row.slug);
    return presentOne(row);
  }

  async function find(orgId: string, id: string): Promise<FormsTable> {
    const row = await repo.findForm(orgId, id);
    if (!row) throw formNotFound();
    return row;
  }

  async function update(orgId: string, id: string, patch: FormPatchInput, context: AuditContext): Promise<FormRecord> {
    const current = await find(orgId, id);
    const now = clock.now().toISOString();
    const changes: FormChanges = {};
    if (patch.slug !== undefined && patch.slug !== current.slug) {
      if (await repo.slugExists(patch.slug)) throw slugTaken(patch.slug);
      changes.slug = patch.slug;
    }
    if (patch.title !== undefined) changes.title = requiredText(patch.title, 'title', 'a title');
    if (patch.active !== undefined) changes.active = patch.active ? 1 : 0;
    if (patch.fields !== undefined) changes.fields = JSON.stringify(mergeFields(JSON.parse(current.fields) as FieldSettings, patch.fields));
    if (patch.customFields !== undefined) changes.custom_fields = JSON.stringify(await resolveCustomFields(orgId, patch.customFields));
    if (patch.successMessage !== undefined) changes.success_message = requiredText(patch.successMessage, 'successMessage', 'a success message');
    if (patch.redirectUrl !== undefined) changes.redirect_url = checkRedirectUrl(patch.redirectUrl);
    if (patch.notify !== undefined) Object.assign(changes, await resolveNotify(orgId, notifyOf(current), patch.notify));
    if (patch.agentId !== undefined) {
      await checkAgent(orgId, patch.agentId);
      changes.agent_id = patch.agentId;
    }
    // Reactivating a form re-checks its pipeline too: it may have been deleted while the form was off.
    const reactivating = patch.active === true && current.active === 0;
    if (reactivating || patch.createOpportunity !== undefined || patch.pipelineId !== undefined || patch.stageId !== undefined) {
      Object.assign(
        changes,
        await checkTarget(orgId, {
          create_opportunity: patch.createOpportunity === undefined ? current.create_opportunity : patch.createOpportunity ? 1 : 0,
          pipeline_id: patch.pipelineId === undefined ? current.pipeline_id : patch.pipelineId,
          stage_id: patch.stageId === undefined ? current.stage_id : patch.stageId,
        }, patch.pipelineId !== undefined || patch.stageId !== undefined),
      );
      if (patch.createOpportunity !== undefined) changes.create_opportunity = patch.createOpportunity ? 1 : 0;
    }
    let newConsent: { version: string; text: string } | undefined;
    if (patch.consentText !== undefined) {
      const text = requiredText(patch.consentText, 'consentText', 'the consent text');
      if (text !== current.consent_text) {
        // Versions count up per form: "1", "2", …; each one's text stays in consent_versions.
        newConsent = { version: String(Number(current.consent_version) + 1), text };
        changes.consent_text = text;
        changes.consent_version = newConsent.version;
      }
    }
    changes.updated_at = now;
    try {
      await transact(async (repos) => {
        await repos.forms.updateForm(orgId, id, changes);
        if (newConsent) {
          await repos.forms.insertConsentVersion({ form_id: id, version: newConsent.version, text: newConsent.text, created_at: now });
          // The versions, not the texts: GET /api/org/forms/{id}/consent-versions has them.
          await audit.record(context, { action: 'form.consent_changed', orgId, target: id, details: { fromVersion: current.consent_version, toVersion: newConsent.version } }, repos);
        }
      });
    } catch (error) {
      if (isUniqueViolation(error)) {
        if (changes.slug !== undefined && (await repo.slugExists(changes.slug))) throw slugTaken(changes.slug);
        throw new AppError('CONFLICT', 'The form was changed by someone else at the same time. Load it again and retry.');
      }
      throw error;
    }
    cache.invalidateSlugs(current.slug, ...(changes.slug !== undefined ? [changes.slug] : []));
    return presentOne(await find(orgId, id));
  }

  async function remove(orgId: string, id: string): Promise<{ id: string; deleted: true }> {
    const current = await find(orgId, id);
    if (!(await repo.deleteForm(orgId, id))) throw formNotFound();
    cache.invalidateSlugs(current.slug);
    return { id, deleted: true };
  }

  async function list(orgId: string, query: { limit?: number; cursor?: string }) {
    const limit = query.limit ?? 20;
    const rows = await repo.listForms(orgId, limit, decodeCursor(query.cursor));
    const page = toPage(rows.map((row) => ({ row, id: row.id, createdAt: row.created_at })), limit, (entry) => entry.row);
    // Counts for the whole page in two grouped queries, so a list of forms never costs a request per form.
    const ids = page.items.map((row) => row.id);
    await views.flush();
    const [items, viewCounts, submissionCounts] = await Promise.all([present(page.items), repo.countViewsOf(orgId, ids), repo.countSubmissionsOf(orgId, ids)]);
    return {
      items: items.map((item) => ({ ...item, views: viewCounts.get(item.id) ?? 0, submissions: submissionCounts.get(item.id) ?? 0 })),
      nextCursor: page.nextCursor,
    };
  }

  async function submissions(orgId: string, formId: string, query: { limit?: number; cursor?: string }): Promise<{ items: SubmissionRecord[]; nextCursor: string | null }> {
    await find(orgId, formId);
    const limit = query.limit ?? 20;
    const rows = await repo.listSubmissions(orgId, formId, limit, decodeCursor(query.cursor));
    return toPage(rows.map((row) => ({ ...row, createdAt: row.created_at })), limit, presentSubmission);
  }

  /** Every consent text the form has had, newest version first. */
  async function consentVersions(orgId: string, formId: string): Promise<ConsentVersion[]> {
    await find(orgId, formId);
    const rows = await repo.listConsentVersions(formId);
    return rows.sort((a, b) => Number(b.version) - Number(a.version)).map((row) => ({ version: row.version, text: row.text, createdAt: row.created_at }));
  }

  /**
   * A form's submissions as CSV, newest first, read a page at a time (never the whole set in memory):
   * submittedAt, id, the form's enabled built-in fields, its custom field keys, the UTM keys,
   * consentVersion and consentText. Starts with a UTF-8 byte order mark, so spreadsheets read accents right.
   */
  async function exportSubmissions(orgId: string, formId: string): Promise<{ filename: string; rows: AsyncIterable<string> }> {
    const form = await find(orgId, formId);
    const settings = JSON.parse(form.fields) as FieldSettings;
    const fields = BUILT_IN_FIELDS.filter((name) => settings[name]?.enabled);
    const refs = parseCustomFieldRefs(form.custom_fields);
    const keyOf = new Map((await repo.customFieldsByIds(orgId, refs.map((ref) => ref.customFieldId))).map((row) => [row.id, row.key]));
    const customKeys = refs.flatMap((ref) => keyOf.get(ref.customFieldId) ?? []);
    async function* rows(): AsyncIterable<string> {
      yield `\uFEFF${csvRow(['submittedAt', 'id', ...fields, ...customKeys, ...UTM_KEYS, 'consentVersion', 'consentText'])}`;
      let after: CursorPosition | undefined;
      for (;;) {
        const page = await repo.listSubmissions(orgId, formId, EXPORT_PAGE, after);
        const shown = page.slice(0, EXPORT_PAGE);
        let chunk = '';
        for (const row of shown) {
          const sub = presentSubmission(row);
          chunk += csvRow([sub.createdAt, sub.id, ...fields.map((name) => sub.values[name]), ...customKeys.map((key) => sub.custom[key]), ...UTM_KEYS.map((key) => sub.metadata[key]), sub.consentVersion, sub.consentText]);
        }
        if (chunk !== '') yield chunk;
        const last = shown[shown.length - 1];
        if (page.length <= EXPORT_PAGE || !last) return;
        after = { createdAt: last.created_at, id: last.id };
      }
    }
    return { filename: `${form.slug}-submissions.csv`, rows: rows() };
  }

  /** The form with its all-time views and submissions (this node's pending views written first). */
  async function getWithCounts(orgId: string, id: string) {
    const row = await find(orgId, id);
    await views.flush();
    const [record, viewCount, submissionCount] = await Promise.all([presentOne(row), repo.countViews(orgId, id), repo.countSubmissions(orgId, id)]);
    return { ...record, views: viewCount, submissions: submissionCount };
  }

  /** Views and submissions per UTC day for the last STATS_DAYS days, oldest first, days without any included. */
  async function stats(orgId: string, id: string) {
    await find(orgId, id);
    await views.flush();
    const today = Date.UTC(clock.now().getUTCFullYear(), clock.now().getUTCMonth(), clock.now().getUTCDate());
    const days = Array.from({ length: STATS_DAYS }, (_, i) => new Date(today - (STATS_DAYS - 1 - i) * 86_400_000).toISOString().slice(0, 10));
    const since = days[0]!;
    const [viewRows, submissionRows] = await Promise.all([repo.viewsPerDay(orgId, id, since), repo.submissionsPerDay(orgId, id, `${since}T00:00:00.000Z`)]);
    const viewsByDay = new Map(viewRows.map((row) => [row.day, Number(row.views)]));
    const submissionsByDay = new Map(submissionRows.map((row) => [row.day, row.count]));
    const perDay = days.map((day) => ({ day, views: viewsByDay.get(day) ?? 0, submissions: submissionsByDay.get(day) ?? 0 }));
    return {
      from: since,
      to: days[days.length - 1]!,
      views: perDay.reduce((sum, d) => sum + d.views, 0),
      submissions: perDay.reduce((sum, d) => sum + d.submissions, 0),
      days: perDay,
    };
  }

  async function embed(orgId: string, id: string): Promise<EmbedSnippets> {
    const form = await find(orgId, id);
    const fields = JSON.parse(form.fields) as FieldSettings;
    const custom = await crm.activeCustomFields(orgId, parseCustomFieldRefs(form.custom_fields).map((ref) => ref.customFieldId));
    return embedSnippets(publicUrl, form, {
      builtIn: BUILT_IN_FIELDS.filter((name) => fields[name].enabled),
      customTypes: custom.map((field) => field.type),
      consentText: form.consent_text,
      logo: form.agent_id !== null,
    });
  }

  return { create, get: getWithCounts, update, remove, list, submissions, consentVersions, exportSubmissions, embed, stats };
}

export type FormsService = ReturnType<typeof createFormsService>;
