import { newContactRow, newNoteRow, newOpportunityRow, type CrmRepos, type CrmService, type OpportunityTarget } from '../crm/service.js';
import type { SubmissionsTable } from '../db/tables.js';
import type { Transact } from '../db/transaction-runner.js';
import { AppError, isAppError } from '../http/errors.js';
import type { ExpiryPurge } from '../db/expiry-purger.js';
import type { Clock } from '../lib/clock.js';
import { newTimeOrderedId } from '../lib/ids.js';
import { publicFormNotFound } from './errors.js';
import type { FormCache } from './form-cache.js';
import type { LiveForm } from './public-form.js';
import type { FormsRepo } from './repo.js';
import { HONEYPOT_RESPONSE, IDEMPOTENCY_TTL_MS, LIMITS } from './rules.js';
import type { SubmitResult } from './schema.js';
import { checkSubmission, type CheckedSubmission } from './submission-check.js';
import type { NewLeadEvents, NewLeadOutcome, NewLeadRows } from './new-lead-statement.js';
import type { OpportunitiesRepo } from '../crm/opportunities-repo.js';
import type { WebhooksRepo } from '../webhooks/repo.js';
import { newLeadEvents, recordSubmissionEvents } from './submission-events.js';
import { leadNoticeRow, writeLeadNotice, type LeadField, type LeadNoticeRow, type LeadPayload } from '../notifications/outbox.js';
import type { NotificationsRepo } from '../notifications/repo.js';
import { BUILT_IN_FIELDS } from './rules.js';

export interface SubmitContext {
  ip: string | null;
  userAgent: string | null;
  idempotencyKey: string | undefined;
  /** The contact's note instead of the message field's value (the chat widget's lead: the conversation). */
  note?: string | undefined;
  /** The page the visitor was on, when known (the notification email shows it). */
  pageUrl?: string | null | undefined;
  /** `chat`: the chat widget's lead card (the notification email says so). */
  via?: 'form' | 'chat' | undefined;
  /** The chat widget conversation a lead card came from: kept on the submission so an erasure finds the person's chats. */
  conversationId?: string | undefined;
}

export interface SubmitOutcome {
  result: SubmitResult;
  /** The answer is the stored first response to this Idempotency-Key. */
  replayed: boolean;
  /** The honeypot field was filled: the generic answer, nothing processed. */
  honeypot?: true;
}

/** The repos a submission writes with, in one transaction: the form's, and the CRM's. */
export interface SubmitRepos extends CrmRepos {
  forms: FormsRepo;
  /** The outbox (webhooks/outbox.ts) and what its payloads read: the submission's events commit with it. */
  webhooks: WebhooksRepo;
  opportunities: OpportunitiesRepo;
  /** The notification outbox (notifications/outbox.ts): the lead's emails commit with it. */
  notifications: NotificationsRepo;
}

/** Thrown inside the transaction when a concurrent request with the same key committed first. */
class AlreadySubmitted extends Error {}

const IDEMPOTENCY_KEY = /^[\x21-\x7E]{1,255}$/;

/**
 * Keys past their 24 hours, for the expiry purger (db/expiry-purger.ts). A reused key is
 * freed by its own submission (see write below); the purger removes the ones nobody reuses.
 */
export function expiredIdempotencyKeys(repo: FormsRepo): ExpiryPurge {
  return {
    name: 'idempotency_keys',
    purgeBatch: (now, limit) => repo.deleteExpiredIdempotencyKeys(new Date(now.getTime() - IDEMPOTENCY_TTL_MS).toISOString(), limit),
  };
}

export function isHoneypotHit(value: unknown): boolean {
  return value !== undefined && value !== null && value !== '';
}

function opportunityTitle(form: LiveForm, checked: CheckedSubmission): string {
  const who = checked.values.name ?? checked.values.email ?? checked.values.phone ?? 'New lead';
  return `${who} — ${form.title}`;
}

const BUILT_IN_LABELS: Record<(typeof BUILT_IN_FIELDS)[number], string> = { name: 'Name', email: 'Email', phone: 'Phone', company: 'Company', message: 'Message' };

/** A custom value as text: what the email shows. */
function valueText(value: unknown): string {
  if (typeof value === 'string') return value;
  if (typeof value === 'boolean') return value ? 'Yes' : 'No';
  if (Array.isArray(value)) return value.map(valueText).join(', ');
  return JSON.stringify(value) ?? '';
}

/** The Referer as the page a form was on: an http(s) URL of at most 2,048 characters, else none. */
export function pageUrlOf(referer: string | undefined): string | null {
  if (referer === undefined || referer.length > 2048) return null;
  try {
    const url = new URL(referer);
    return url.protocol === 'https:' || url.protocol === 'http:' ? url.href : null;
  } catch {
    return null;
  }
}

/** What the lead's email is rendered from: the values as the form labels them, in its order. */
function leadPayload(form: LiveForm, checked: CheckedSubmission, context: SubmitContext, submission: SubmissionsTable): LeadPayload {
  const fields: LeadField[] = [];
  for (const name of BUILT_IN_FIELDS) {
    const value = checked.values[name];
    if (value !== undefined) fields.push({ label: BUILT_IN_LABELS[name], value });
  }
  for (const field of form.customFields) {
    const value = checked.custom[field.key];
    if (value !== undefined && value !== null && value !== '') fields.push({ label: field.label, value: valueText(value) });
  }
  const utm = Object.fromEntries(Object.entries(checked.metadata).filter(([key]) => key.startsWith('utm_')));
  return {
    formId: form.id, formTitle: form.title, submissionId: submission.id, contactId: submission.contact_id, fields,
    consentVersion: form.consentVersion, pageUrl: context.pageUrl ?? null, utm, via: context.via ?? 'form',
  };
}

function submissionRow(form: LiveForm, checked: CheckedSubmission, context: SubmitContext, contactId: string, opportunityId: string | null, createdAt: string): SubmissionsTable {
  return {
    id: newTimeOrderedId('sub', createdAt),
    org_id: form.orgId,
    form_id: form.id,
    contact_id: contactId,
    opportunity_id: opportunityId,
    field_values: JSON.stringify(checked.values),
    custom: JSON.stringify(checked.custom),
    consent_version: form.consentVersion,
    metadata: JSON.stringify(checked.metadata),
    ip: context.ip,
    user_agent: context.userAgent === null ? null : context.userAgent.slice(0, LIMITS.userAgent),
    created_at: createdAt,
    values_cleared_at: null,
    conversation_id: context.conversationId ?? null,
  };
}

/**
 * POST /api/public/forms/{slug}/submit after the rate limit and body parsing:
 * form lookup → honeypot → idempotent replay → rules → one transaction for every write.
 */
export function createSubmitService(deps: {
  /** Group commit on SQLite (db/transaction-runner.ts): a unit may share its transaction with other submissions. */
  transact: Transact<SubmitRepos>;
  repo: FormsRepo;
  crm: CrmService;
  cache: FormCache<LiveForm>;
  clock: Clock;
  /**
   * PostgreSQL: writes a new person's submission in one statement (see new-lead-statement.ts);
   * false means "not a plain new lead", and the general path below takes over.
   */
  newLeadAtOnce?: (rows: NewLeadRows, events: NewLeadEvents) => Promise<NewLeadOutcome>;
  /** Told how each submission ended (metrics): `accepted`, `replayed`, `honeypot`, or the error code. */
  onOutcome?: (outcome: string) => void;
  /** Lead notifications are on (SMTP_URL is set): a form with `notify.enabled` queues its emails with each submission. */
  notifyLeads?: boolean;
}) {
  const { transact, repo, crm, cache, clock, newLeadAtOnce } = deps;
  const notifyLeads = deps.notifyLeads ?? false;
  const notifies = (form: LiveForm) => notifyLeads && form.notify.enabled;
  const onOutcome = deps.onOutcome ?? (() => {});

  async function storedResponse(formId: string, key: string, now: number): Promise<SubmitResult | undefined> {
    const stored = await repo.findIdempotencyKey(formId, key);
    if (!stored || Date.parse(stored.created_at) <= now - IDEMPOTENCY_TTL_MS) return undefined;
    return JSON.parse(stored.response) as SubmitResult;
  }

  async function createOpportunity(repos: SubmitRepos, form: LiveForm, checked: CheckedSubmission, contactId: string, submissionId: string) {
    const create = (target: OpportunityTarget) =>
      crm.createOpportunity({
        orgId: form.orgId,
        contactId,
        contactUpserted: true,
        ...target,
        title: opportunityTitle(form, checked),
        source: 'form',
        custom: checked.opportunityCustom,
        submissionId,
      }, repos);
    const cached = form.opportunityTarget;
    // Without a cached target (or when it went stale), resolving in the transaction gives the precise 422.
    if (!cached) return create(await crm.resolveOpportunityTarget(form.orgId, form.pipelineId, form.stageId, repos));
    try {
      return await create(cached);
    } catch (error) {
      if (!isAppError(error) || error.code !== 'STAGE_NOT_FOUND') throw error;
      return create(await crm.resolveOpportunityTarget(form.orgId, form.pipelineId, form.stageId, repos));
    }
  }

  /** The rows of a submission from someone not yet in the CRM, built by the CRM's own row builders. */
  function newLeadRows(form: LiveForm, checked: CheckedSubmission, context: SubmitContext, createdAt: string): NewLeadRows {
    const { values } = checked;
    const contact = newContactRow(
      { orgId: form.orgId, email: values.email, phone: values.phone, name: values.name, company: values.company, custom: checked.contactCustom },
      { email: values.email ?? null, phone: values.phone ?? null },
      'form',
      createdAt,
    );
    const submission = submissionRow(form, checked, context, contact.id, null, createdAt);
    const target = form.createOpportunity ? form.opportunityTarget : null;
    const opportunity = target
      ? newOpportunityRow({ orgId: form.orgId, contactId: contact.id, ...target, title: opportunityTitle(form, checked), source: 'form', custom: checked.opportunityCustom, submissionId: submission.id }, createdAt)
      : null;
    if (opportunity) submission.opportunity_id = opportunity.id;
    const body = context.note ?? values.message;
    const note = body !== undefined ? newNoteRow({ orgId: form.orgId, contactId: contact.id, body, source: 'form', submissionId: submission.id }, createdAt) : null;
    const notice: LeadNoticeRow | null = notifies(form) ? leadNoticeRow(form.orgId, form.notify.recipients, leadPayload(form, checked, context, submission), createdAt) : null;
    return { contact, note, opportunity, submission, notice };
  }

  /** Every write of one submission. Runs in a transaction (maybe with other submissions: see db/transaction-runner.ts). */
  function write(form: LiveForm, checked: CheckedSubmission, context: SubmitContext, result: SubmitResult, now: Date, contactProbablyExists: boolean) {
    const createdAt = now.toISOString();
    return async (repos: SubmitRepos): Promise<void> => {
      const formsRepo = repos.forms;
      // One indexed read: what the org's endpoints receive. None (most orgs) → no payload is built.
      const subscriptions = await repos.webhooks.subscriptions(form.orgId);
      const key = context.idempotencyKey;
      if (key !== undefined) {
        // A key older than 24 h is free again; the insert below then claims it.
        await formsRepo.deleteExpiredIdempotencyKey(form.id, key, new Date(now.getTime() - IDEMPOTENCY_TTL_MS).toISOString());
        const claimed = await formsRepo.insertIdempotencyKey({ form_id: form.id, key, response: JSON.stringify(result), created_at: createdAt });
        if (!claimed) throw new AlreadySubmitted();
      }
      const { values } = checked;
      const { contactId, created, row: contactRow } = await crm.upsertContact(
        repos,
        { orgId: form.orgId, email: values.email, phone: values.phone, name: values.name, company: values.company, custom: checked.contactCustom },
        'form',
        { probablyExists: contactProbablyExists },
      );
      const submission = submissionRow(form, checked, context, contactId, null, createdAt);
      const note = context.note ?? values.message;
      if (note !== undefined) {
        await crm.addNote({ orgId: form.orgId, contactId, contactUpserted: true, body: note, source: 'form', submissionId: submission.id }, repos);
      }
      const opportunity = form.createOpportunity ? await createOpportunity(repos, form, checked, contactId, submission.id) : undefined;
      submission.opportunity_id = opportunity?.opportunityId ?? null;
      await formsRepo.insertSubmission(submission);
      // One INSERT … SELECT: a row per recipient who is a member and has lead emails on (no read here).
      if (notifies(form)) await writeLeadNotice(repos, { orgId: form.orgId, recipients: form.notify.recipients, payload: leadPayload(form, checked, context, submission) }, createdAt);
      if (!subscriptions.empty) await recordSubmissionEvents(repos, subscriptions, { form, checked, submission, contactCreated: created, contactRow, opportunityRow: opportunity?.row }, createdAt);
    };
  }

  async function submit(slug: string, body: Record<string, unknown>, context: SubmitContext): Promise<SubmitOutcome> {
    const form = await cache.get(slug);
    if (!form) throw publicFormNotFound();
    // A bot gets the same generic answer for every form and nothing is processed, not even its idempotency key.
    if (isHoneypotHit(body._hp)) return { result: { ...HONEYPOT_RESPONSE }, replayed: false, honeypot: true };

    const key = context.idempotencyKey;
    if (key !== undefined && !IDEMPOTENCY_KEY.test(key)) {
      throw new AppError('VALIDATION_ERROR', 'The Idempotency-Key header must be 1 to 255 visible ASCII characters, like a UUID.', { field: 'Idempotency-Key' });
    }
    const now = clock.now();
    if (key !== undefined) {
      const previous = await storedResponse(form.id, key, now.getTime());
      if (previous) return { result: previous, replayed: true };
    }

    const checked = checkSubmission(form, body);
    const result: SubmitResult = { ok: true, successMessage: form.successMessage, redirectUrl: form.redirectUrl };
    // Without an Idempotency-Key and with a known opportunity target, a new person's submission
    // needs no decisions from the database: one statement writes it, or writes nothing.
    let contactProbablyExists = false;
    if (newLeadAtOnce && key === undefined && (!form.createOpportunity || form.opportunityTarget)) {
      const rows = newLeadRows(form, checked, context, now.toISOString());
      const outcome = await newLeadAtOnce(rows, (subscriptions) => newLeadEvents(subscriptions, { form, checked, submission: rows.submission, contactCreated: true, contactRow: rows.contact, opportunityRow: rows.opportunity ?? undefined }));
      if (outcome === 'written') return { result, replayed: false };
      contactProbablyExists = true;
    }
    try {
      await transact(write(form, checked, context, result, now, contactProbablyExists));
    } catch (error) {
      if (error instanceof AlreadySubmitted && key !== undefined) {
        const previous = await storedResponse(form.id, key, now.getTime());
        if (previous) return { result: previous, replayed: true };
      }
      throw error;
    }
    return { result, replayed: false };
  }

  /** `submit`, its outcome counted. */
  async function counted(slug: string, body: Record<string, unknown>, context: SubmitContext): Promise<SubmitOutcome> {
    let outcome: SubmitOutcome;
    try {
      outcome = await submit(slug, body, context);
    } catch (error) {
      onOutcome(isAppError(error) ? error.code : 'INTERNAL_ERROR');
      throw error;
    }
    onOutcome(outcome.honeypot ? 'honeypot' : outcome.replayed ? 'replayed' : 'accepted');
    return outcome;
  }

  return { submit: counted };
}



export type SubmitService = ReturnType<typeof createSubmitService>;
