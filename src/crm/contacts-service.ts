import type { ContactsTable } from '../db/tables.js';
import { decodeCursor, toPage } from '../http/cursor.js';
import { AppError } from '../http/errors.js';
import { isoNow, type Clock } from '../lib/clock.js';
import { newTimeOrderedId } from '../lib/ids.js';
import type { OrgPrincipal } from '../orgs/auth.js';
import { requiredText } from '../http/required-text.js';
import type { ContactFilter, ContactsRepo } from './contacts-repo.js';
import type { CustomFieldsRepo } from './custom-fields-repo.js';
import { checkCustomInput, mergeCustomValues } from './custom-values.js';
import { contactNotFound } from './errors.js';
import { normalizeEmail, normalizePhone } from '../lib/normalize.js';
import { presentContact, presentNote, presentOpportunity, presentSubmission } from './present.js';
import type { Contact, ContactCreate, ContactDetail, ContactListQuery, ContactPatch, Note } from './schema.js';
import { containsPattern, isUniqueViolation } from '../db/query-helpers.js';
import type { CrmService, CrmSource, OrgSettings } from './service.js';
import type { Transact } from '../db/transaction-runner.js';
import { recordContactEvent, type CrmEventRepos } from './webhook-events.js';

/** Where a record made through the Operator API comes from: the panel (a signed-in operator) or an integration (an API key). */
export function sourceOf(principal: OrgPrincipal): CrmSource {
  return principal.actor.type === 'user' ? 'panel' : 'api';
}


function email(raw: string): string {
  const result = normalizeEmail(raw);
  if (!result.ok) throw new AppError('VALIDATION_ERROR', result.message, { field: 'email' });
  return result.value;
}

function phone(raw: string, country: string): string {
  const result = normalizePhone(raw, country);
  if (!result.ok) throw new AppError('VALIDATION_ERROR', result.message, { field: 'phone' });
  return result.value;
}

/** Contacts through the Operator API. Form submissions go through `CrmService.upsertContact` instead. */
export function createContactsService(deps: {
  repo: ContactsRepo;
  customFields: CustomFieldsRepo;
  crm: CrmService;
  orgs: OrgSettings;
  /** A write and its webhook event (contact.created / contact.updated) commit together. */
  transact: Transact<CrmEventRepos & { contacts: ContactsRepo }>;
  clock: Clock;
}) {
  const { repo, customFields, crm, orgs, transact, clock } = deps;
  const countryOf = (orgId: string) => orgs.defaultCountry(orgId);
  const customInput = (orgId: string, values: Record<string, unknown> | undefined, country: string) =>
    checkCustomInput(customFields, orgId, 'contact', values, async () => country);

  /** 409 naming the contact that already holds the email or phone. */
  async function conflict(r: ContactsRepo, orgId: string, values: { email: string | null; phone: string | null }, self?: string): Promise<AppError | undefined> {
    const byEmail = values.email !== null ? await r.findByEmail(orgId, values.email) : undefined;
    if (byEmail && byEmail.id !== self) return new AppError('CONFLICT', `Another contact (${byEmail.id}) already has this email.`, { field: 'email', extra: { contactId: byEmail.id } });
    const byPhone = values.phone !== null ? await r.findByPhone(orgId, values.phone) : undefined;
    if (byPhone && byPhone.id !== self) return new AppError('CONFLICT', `Another contact (${byPhone.id}) already has this phone number.`, { field: 'phone', extra: { contactId: byPhone.id } });
    return undefined;
  }

  async function find(orgId: string, id: string): Promise<ContactsTable> {
    const row = await repo.find(orgId, id);
    if (!row) throw contactNotFound();
    return row;
  }

  async function list(orgId: string, query: ContactListQuery) {
    const filter: ContactFilter = {};
    if (query.email !== undefined && query.email.trim() !== '') filter.email = query.email.trim().toLowerCase();
    if (query.phone !== undefined && query.phone.trim() !== '') filter.phone = phone(query.phone, await countryOf(orgId));
    const q = query.q?.trim();
    if (q) {
      filter.like = containsPattern(q);
      // "555 2671" or "(415) 555-2671" should find +14155552671.
      const digits = q.replace(/[\s().+\-/]/g, '');
      if (/^\d{3,}$/.test(digits) && digits !== q) filter.digitsLike = `%${digits}%`;
    }
    const limit = query.limit ?? 20;
    const rows = await repo.list(orgId, filter, limit, decodeCursor(query.cursor));
    return toPage(rows.map((row) => ({ ...row, createdAt: row.created_at })), limit, presentContact);
  }

  async function get(orgId: string, id: string): Promise<ContactDetail> {
    const row = await find(orgId, id);
    const [notes, opportunities, submissions] = await Promise.all([repo.notesOf(orgId, id), repo.opportunitiesOf(orgId, id), repo.submissionsOf(orgId, id)]);
    return {
      ...presentContact(row),
      notes: notes.map(presentNote),
      opportunities: opportunities.map(presentOpportunity),
      submissions: submissions.map(presentSubmission),
    };
  }

  async function create(principal: OrgPrincipal, input: ContactCreate): Promise<Contact> {
    const { orgId } = principal;
    const country = await countryOf(orgId);
    const identity = {
      email: input.email !== undefined && input.email.trim() !== '' ? email(input.email) : null,
      phone: input.phone !== undefined && input.phone.trim() !== '' ? phone(input.phone, country) : null,
    };
    if (identity.email === null && identity.phone === null) throw new AppError('IDENTITY_REQUIRED', 'A contact needs an email or a phone number.');
    const custom = mergeCustomValues({}, await customInput(orgId, input.custom, country));
    const now = isoNow(clock);
    const row: ContactsTable = {
      id: newTimeOrderedId('ct', now),
      org_id: orgId,
      ...identity,
      name: input.name?.trim() || null,
      company: input.company?.trim() || null,
      source: sourceOf(principal),
      custom: JSON.stringify(custom),
      created_at: now,
      updated_at: now,
    };
    const inserted = await transact(async (repos) => {
      if (!(await repos.contacts.insertIfAbsent(row))) return false;
      await recordContactEvent(repos, { orgId, contactId: row.id, created: true }, now);
      return true;
    });
    if (!inserted) {
      throw (await conflict(repo, orgId, identity)) ?? new AppError('CONFLICT', 'A contact with this email or phone number already exists.');
    }
    return presentContact(row);
  }

  async function update(orgId: string, id: string, patch: ContactPatch): Promise<Contact> {
    const row = await find(orgId, id);
    const country = await countryOf(orgId);
    const cleared = (value: string | null | undefined) => value === null || (value !== undefined && value.trim() === '');
    const next = {
      email: patch.email === undefined ? row.email : cleared(patch.email) ? null : email(patch.email!),
      phone: patch.phone === undefined ? row.phone : cleared(patch.phone) ? null : phone(patch.phone!, country),
    };
    if (next.email === null && next.phone === null) throw new AppError('IDENTITY_REQUIRED', 'A contact keeps an email or a phone number: it cannot lose both.');
    const changes: Parameters<ContactsRepo['update']>[2] = { ...next, updated_at: isoNow(clock) };
    if (patch.name !== undefined) changes.name = patch.name?.trim() || null;
    if (patch.company !== undefined) changes.company = patch.company?.trim() || null;
    if (patch.custom !== undefined) {
      changes.custom = JSON.stringify(mergeCustomValues(JSON.parse(row.custom) as Record<string, unknown>, await customInput(orgId, patch.custom, country)));
    }
    const taken = await conflict(repo, orgId, next, id);
    if (taken) throw taken;
    try {
      await transact(async (repos) => {
        await repos.contacts.update(orgId, id, changes);
        await recordContactEvent(repos, { orgId, contactId: id, created: false }, changes.updated_at!);
      });
    } catch (error) {
      // The transaction has ended (on PostgreSQL a unique violation aborts it): the 409 is looked up on the pool.
      if (isUniqueViolation(error)) throw (await conflict(repo, orgId, next, id)) ?? new AppError('CONFLICT', 'Another contact already has this email or phone number.');
      throw error;
    }
    return presentContact(await find(orgId, id));
  }

  /** Deletes the contact with its notes, opportunities and submissions. */
  async function remove(orgId: string, id: string): Promise<{ id: string; deleted: true }> {
    const result = await repo.remove(orgId, id);
    if (Number(result.numDeletedRows) === 0) throw contactNotFound();
    return { id, deleted: true };
  }

  async function addNote(principal: OrgPrincipal, contactId: string, input: { body: string }): Promise<Note> {
    const body = requiredText(input.body, 'body', 'the note');
    const { noteId } = await crm.addNote({ orgId: principal.orgId, contactId, body, source: sourceOf(principal) });
    return presentNote(await repo.findNote(principal.orgId, noteId));
  }

  return { list, get, create, update, remove, addNote };
}

export type ContactsService = ReturnType<typeof createContactsService>;
