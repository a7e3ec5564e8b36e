/**
 * CRM writes and look-ups that run INSIDE the caller's transaction, so a form
 * submission commits its contact, note, opportunity and submission together or not at all.
 * One instance, made in services.ts, serves every caller.
 *
 *   const crm = createCrmService({ repo, contacts, orgs, clock });
 *   await transact(async (repos) => {
 *     const { contactId, created } = await crm.upsertContact(repos, { orgId, email, phone, name, company, custom }, 'form');
 *     await crm.addNote({ orgId, contactId, body: message, source: 'form', submissionId }, repos);
 *     const target = await crm.resolveOpportunityTarget(orgId, form.pipeline_id, form.stage_id, repos);
 *     await crm.createOpportunity({ orgId, contactId, ...target, title, source: 'form', submissionId }, repos);
 *   });
 *
 * Contract:
 * - `normalizeEmail(raw)` / `normalizePhone(raw, defaultCountry)` (lib/normalize.ts) return `{ok: true, value} | {ok: false, message}`;
 *   the orgs service's `defaultCountry(orgId)` gives the country for national numbers.
 * - `upsertContact(repos, …)` matches by email first, then phone (DESIGN "Contact identity"). Values may be raw:
 *   they are normalized here too (invalid → AppError INVALID_FIELD with `field`; neither → IDENTITY_REQUIRED).
 *   Non-empty values overwrite, empty ones (undefined, null, blank) never clear; custom values merge by key.
 *   A value the matched contact cannot take because another contact of the org holds it (an email or phone
 *   is unique per org) is left out rather than failing the submission. A new contact gets `source`.
 *   Safe under concurrency (one contact for N simultaneous submissions) at PostgreSQL's default READ
 *   COMMITTED level: insert … on conflict do nothing, then re-select. Needs the repos of a real transaction
 *   (uses a savepoint).
 * - Every other function takes the transaction's repos last, and uses the pool when they are left out.
 * - `resolveOpportunityTarget(orgId, pipelineId | null, stageId | null, repos?)`: the configured pipeline/stage
 *   (a pipeline alone → its first stage; a stage alone → its pipeline), or with nothing configured the default
 *   pipeline's first stage. A configured id that is gone, or a stage outside the pipeline → AppError
 *   PIPELINE_NOT_FOUND / STAGE_NOT_FOUND (422).
 * - `addNote`, `createOpportunity`: the contact (and stage) must belong to the org, else CONTACT_NOT_FOUND /
 *   STAGE_NOT_FOUND. Return the new id.
 * - `activeCustomFields(orgId, ids)`: definitions in the order of `ids`; archived, deleted or another
 *   org's ids are omitted.
 */
import type { ContactsTable, NotesTable, OpportunitiesTable } from '../db/tables.js';
import { AppError } from '../http/errors.js';
import { isoNow, type Clock } from '../lib/clock.js';
import { newTimeOrderedId } from '../lib/ids.js';
import { normalizeEmail, normalizePhone } from '../lib/normalize.js';
import type { OrgsRepo } from '../orgs/repo.js';
import type { ContactChanges, ContactsRepo } from './contacts-repo.js';
import type { CrmRepo } from './repo.js';

export type CrmSource = 'form' | 'api' | 'panel' | 'import';
export type CustomValues = Record<string, string | number | boolean>;

export interface ContactUpsert {
  orgId: string;
  email?: string | null | undefined;
  phone?: string | null | undefined;
  name?: string | null | undefined;
  company?: string | null | undefined;
  /** Values of contact custom fields, by key. Empty values are skipped. */
  custom?: Record<string, unknown> | undefined;
}

export interface NoteInput {
  orgId: string;
  contactId: string;
  /**
   * True only when upsertContact returned this contact in the same transaction: it is
   * known to exist in the org, so the check (one query on the submit hot path) is skipped.
   */
  contactUpserted?: boolean;
  body: string;
  source: CrmSource;
  submissionId?: string | null | undefined;
}

export interface OpportunityInput {
  orgId: string;
  contactId: string;
  /**
   * True only when upsertContact returned this contact in the same transaction: it is
   * known to exist in the org, so the check (one query on the submit hot path) is skipped.
   */
  contactUpserted?: boolean;
  pipelineId: string;
  stageId: string;
  title: string;
  source: CrmSource;
  custom?: Record<string, unknown> | undefined;
  submissionId?: string | null | undefined;
}

export interface OpportunityTarget {
  pipelineId: string;
  stageId: string;
}

export interface CustomFieldDefinition {
  id: string;
  key: string;
  entity: 'contact' | 'opportunity';
  label: string;
  type: string;
  options: string[];
}

/** Up to this many insert/re-select rounds; only a contact deleted mid-race needs a second one. */
const UPSERT_ROUNDS = 3;

function isBlank(value: unknown): boolean {
  return value === undefined || value === null || (typeof value === 'string' && value.trim() === '');
}

/** Custom values that carry something, with strings trimmed. */
function nonEmptyCustom(custom: Record<string, unknown> | undefined): CustomValues {
  const out: CustomValues = {};
  for (const [key, value] of Object.entries(custom ?? {})) {
    if (isBlank(value)) continue;
    if (typeof value === 'string') out[key] = value.trim();
    else if (typeof value === 'number' || typeof value === 'boolean') out[key] = value;
  }
  return out;
}

/**
 * The row of a contact that does not exist yet. `identity` is the normalized email and phone.
 * Exported for writers that insert a new contact in the same statement as its other rows.
 */
export function newContactRow(input: ContactUpsert, identity: { email: string | null; phone: string | null }, source: CrmSource, now: string): ContactsTable {
  return {
    id: newTimeOrderedId('ct', now),
    org_id: input.orgId,
    email: identity.email,
    phone: identity.phone,
    name: isBlank(input.name) ? null : String(input.name).trim(),
    company: isBlank(input.company) ? null : String(input.company).trim(),
    source,
    custom: JSON.stringify(nonEmptyCustom(input.custom)),
    created_at: now,
    updated_at: now,
  };
}

export function newNoteRow(input: NoteInput, now: string): NotesTable {
  return { id: newTimeOrderedId('note', now), org_id: input.orgId, contact_id: input.contactId, body: input.body, source: input.source, submission_id: input.submissionId ?? null, created_at: now };
}

export function newOpportunityRow(input: OpportunityInput, now: string): OpportunitiesTable {
  return {
    id: newTimeOrderedId('opp', now),
    org_id: input.orgId,
    contact_id: input.contactId,
    pipeline_id: input.pipelineId,
    stage_id: input.stageId,
    title: input.title,
    source: input.source,
    custom: JSON.stringify(nonEmptyCustom(input.custom)),
    submission_id: input.submissionId ?? null,
    created_at: now,
    updated_at: now,
  };
}

/**
 * The repos of a CRM unit of work, bound to its transaction: the CRM's own, the contacts', and the
 * orgs repo the orgs service reads the org's default country from (national phone numbers).
 */
export interface CrmRepos {
  crm: CrmRepo;
  contacts: ContactsRepo;
  orgs: OrgsRepo;
}

/** What the CRM asks the orgs feature: its service, injected in services.ts. */
export interface OrgSettings {
  /** The country national phone numbers are read in; inside a transaction, pass its repos. */
  defaultCountry(orgId: string, repos?: Pick<CrmRepos, 'orgs'>): Promise<string>;
}

export function createCrmService(deps: { repo: CrmRepo; contacts: ContactsRepo; orgs: OrgSettings; clock: Clock }) {
  const { repo: poolRepo, contacts: poolContacts, orgs, clock } = deps;

  async function identityOf(repos: CrmRepos, input: ContactUpsert): Promise<{ email: string | null; phone: string | null }> {
    let email: string | null = null;
    let phone: string | null = null;
    if (!isBlank(input.email)) {
      const result = normalizeEmail(String(input.email));
      if (!result.ok) throw new AppError('INVALID_FIELD', result.message, { field: 'email' });
      email = result.value;
    }
    if (!isBlank(input.phone)) {
      const raw = String(input.phone).trim();
      const result = normalizePhone(raw, raw.startsWith('+') ? 'US' : await orgs.defaultCountry(input.orgId, repos));
      if (!result.ok) throw new AppError('INVALID_FIELD', result.message, { field: 'phone' });
      phone = result.value;
    }
    if (email === null && phone === null) {
      throw new AppError('IDENTITY_REQUIRED', 'Enter an email address or a phone number, so we can get back to you.');
    }
    return { email, phone };
  }

  /** Applies the submitted values to an existing contact: non-empty ones overwrite, empty ones never clear. */
  async function mergeInto(repo: ContactsRepo, existing: ContactsTable, input: ContactUpsert, identity: { email: string | null; phone: string | null }) {
    const now = isoNow(clock);
    const changes: ContactChanges = { updated_at: now };
    if (!isBlank(input.name)) changes.name = String(input.name).trim();
    if (!isBlank(input.company)) changes.company = String(input.company).trim();
    const custom = nonEmptyCustom(input.custom);
    if (Object.keys(custom).length > 0) changes.custom = JSON.stringify({ ...(JSON.parse(existing.custom) as object), ...custom });
    await repo.update(existing.org_id, existing.id, changes);

    // Email and phone are unique per org: take one only if no other contact holds it.
    for (const column of ['email', 'phone'] as const) {
      const value = identity[column];
      if (value === null || existing[column] === value) continue;
      const holder = column === 'email' ? await repo.findByEmail(existing.org_id, value) : await repo.findByPhone(existing.org_id, value);
      if (holder) continue;
      await repo.updateIfUnique(existing.org_id, existing.id, { [column]: value });
    }
  }

  /**
   * `probablyExists`: the caller already saw the email or phone taken (say, a one-statement insert
   * wrote nothing), so the insert-first attempt would only cost a wasted statement.
   * `row`: the contact as inserted, when it was created (a merge's result is read back by who needs it).
   */
  async function upsertContact(
    repos: CrmRepos,
    input: ContactUpsert,
    source: CrmSource,
    options: { probablyExists?: boolean } = {},
  ): Promise<{ contactId: string; created: boolean; row?: ContactsTable }> {
    const repo = repos.contacts;
    const identity = await identityOf(repos, input);
    const newRow = () => newContactRow(input, identity, source, isoNow(clock));
    // Most form leads are new people: try the insert first, one statement. It does nothing when
    // the email or the phone is taken (on conflict do nothing, which also waits for a concurrent
    // writer's commit), and then the look-ups below find who holds it: by email first, then phone.
    if (!options.probablyExists) {
      const first = newRow();
      if (await repo.insertIfAbsent(first)) return { contactId: first.id, created: true, row: first };
    }
    for (let round = 0; round < UPSERT_ROUNDS; round++) {
      const existing =
        (identity.email !== null ? await repo.findByEmail(input.orgId, identity.email) : undefined) ??
        (identity.phone !== null ? await repo.findByPhone(input.orgId, identity.phone) : undefined);
      if (existing) {
        await mergeInto(repo, existing, input, identity);
        return { contactId: existing.id, created: false };
      }
      // The holder was deleted in between: try again.
      const row = newRow();
      if (await repo.insertIfAbsent(row)) return { contactId: row.id, created: true, row };
    }
    throw new Error('upsertContact: the contact kept changing under concurrent writes');
  }

  async function requireContact(contacts: Pick<ContactsRepo, 'find'>, orgId: string, contactId: string): Promise<void> {
    if (!(await contacts.find(orgId, contactId))) throw new AppError('CONTACT_NOT_FOUND', 'No contact has that id.');
  }

  async function addNote(input: NoteInput, repos?: Pick<CrmRepos, 'crm' | 'contacts'>): Promise<{ noteId: string }> {
    const repo = repos?.crm ?? poolRepo;
    if (!input.contactUpserted) await requireContact(repos?.contacts ?? poolContacts, input.orgId, input.contactId);
    const row = newNoteRow(input, isoNow(clock));
    await repo.insertNote(row);
    return { noteId: row.id };
  }

  /** Answers the row as written (a webhook payload presents it without reading it back). */
  async function createOpportunity(input: OpportunityInput, repos?: Pick<CrmRepos, 'crm' | 'contacts'>): Promise<{ opportunityId: string; row: OpportunitiesTable }> {
    const repo = repos?.crm ?? poolRepo;
    if (!input.contactUpserted) await requireContact(repos?.contacts ?? poolContacts, input.orgId, input.contactId);
    const row = newOpportunityRow(input, isoNow(clock));
    // One statement: the row is written only if the stage still exists in that pipeline.
    if (!(await repo.insertOpportunityInStage(row))) throw new AppError('STAGE_NOT_FOUND', 'That stage does not exist in that pipeline.', { field: 'stageId' });
    return { opportunityId: row.id, row };
  }

  async function resolveOpportunityTarget(orgId: string, pipelineId: string | null, stageId: string | null, repos?: Pick<CrmRepos, 'crm'>): Promise<OpportunityTarget> {
    const repo = repos?.crm ?? poolRepo;
    if (pipelineId === null && stageId === null) {
      const pipeline = await repo.findDefaultPipeline(orgId);
      if (!pipeline) throw new AppError('PIPELINE_NOT_FOUND', 'This organization has no default pipeline. Create a pipeline and choose it in the form.');
      const first = await repo.firstStage(orgId, pipeline.id);
      if (!first) throw new AppError('STAGE_NOT_FOUND', `The default pipeline "${pipeline.name}" has no stages. Add one with PATCH /api/org/pipelines/${pipeline.id}.`);
      return { pipelineId: pipeline.id, stageId: first.id };
    }
    let pipeline = pipelineId === null ? undefined : await repo.findPipeline(orgId, pipelineId);
    if (pipelineId !== null && !pipeline) {
      throw new AppError('PIPELINE_NOT_FOUND', 'The pipeline chosen for new opportunities no longer exists. Choose another pipeline.', { field: 'pipelineId' });
    }
    if (stageId === null) {
      const first = await repo.firstStage(orgId, pipeline!.id);
      if (!first) throw new AppError('STAGE_NOT_FOUND', `The pipeline "${pipeline!.name}" has no stages. Add one with PATCH /api/org/pipelines/${pipeline!.id}.`, { field: 'stageId' });
      return { pipelineId: pipeline!.id, stageId: first.id };
    }
    const stage = await repo.findStage(orgId, stageId);
    if (!stage || (pipeline !== undefined && stage.pipeline_id !== pipeline.id)) {
      throw new AppError('STAGE_NOT_FOUND', 'The stage chosen for new opportunities no longer exists in its pipeline. Choose another stage.', { field: 'stageId' });
    }
    pipeline ??= await repo.findPipeline(orgId, stage.pipeline_id);
    if (!pipeline) throw new AppError('PIPELINE_NOT_FOUND', 'The pipeline of this stage no longer exists.', { field: 'pipelineId' });
    return { pipelineId: pipeline.id, stageId: stage.id };
  }

  async function activeCustomFields(orgId: string, ids: string[]): Promise<CustomFieldDefinition[]> {
    const rows = await poolRepo.activeCustomFieldsByIds(orgId, [...new Set(ids)]);
    const byId = new Map(rows.map((row) => [row.id, row]));
    return ids.flatMap((id) => {
      const row = byId.get(id);
      if (!row) return [];
      byId.delete(id);
      return [{ id: row.id, key: row.key, entity: row.entity as 'contact' | 'opportunity', label: row.label, type: row.type, options: JSON.parse(row.options) as string[] }];
    });
  }

  return { upsertContact, addNote, createOpportunity, resolveOpportunityTarget, activeCustomFields };
}

export type CrmService = ReturnType<typeof createCrmService>;
