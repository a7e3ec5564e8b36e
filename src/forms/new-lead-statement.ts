import { sql, type Kysely } from 'kysely';
import { newLeadCtes } from '../crm/new-lead-ctes.js';
import { queryTemplate, type QueryTemplate } from '../db/query-template.js';
import { CONTACT_COLUMNS, NOTE_COLUMNS, OPPORTUNITY_COLUMNS, SUBMISSION_COLUMNS, WEBHOOK_OUTBOX_COLUMNS, type WebhookOutboxTable } from '../db/tables.js';
import type { ContactsTable, DB, NotesTable, OpportunitiesTable, SubmissionsTable } from '../db/tables.js';
import { outboxRow, type WebhookEventInput } from '../webhooks/outbox.js';
import { outboxCte, subscriptionsCurrent } from '../webhooks/outbox-ctes.js';
import type { WebhooksRepo } from '../webhooks/repo.js';
import type { Subscriptions } from '../webhooks/subscriptions.js';
import { LEAD_NOTICE_COLUMNS, type LeadNoticeRow } from '../notifications/outbox.js';
import { leadNoticeCte } from '../notifications/outbox-sql.js';

export interface NewLeadRows {
  contact: ContactsTable;
  note: NotesTable | null;
  /** Written only if its stage still exists in its pipeline; so is everything else. */
  opportunity: OpportunitiesTable | null;
  submission: SubmissionsTable;
  /** The lead's notification (notifications/outbox.ts), when the form notifies: one row per recipient, written with the lead. */
  notice: LeadNoticeRow | null;
}

/** What the one statement did: wrote the lead (with its webhook events); wrote nothing as the person (or the stage) says so. */
export type NewLeadOutcome = 'written' | 'not-new';

/** The webhook events of the lead, for the subscriptions the statement is built with (none: an empty list). */
export type NewLeadEvents = (subscriptions: Subscriptions) => WebhookEventInput[];

type StatementRow = NewLeadRows & { fingerprint: string; outbox: WebhookOutboxTable | null };

function without(columns: Record<string, true>, ...skip: string[]): Record<string, true> {
  return Object.fromEntries(Object.keys(columns).filter((column) => !skip.includes(column)).map((column) => [column, true]));
}

/** The statement for a lead with or without a note and an opportunity: four shapes, each compiled once. */
function leadTemplate(withNote: boolean, withOpportunity: boolean): QueryTemplate<StatementRow, { contact_id: string | null; current: boolean }> {
  // The note, opportunity and submission take the contact (and the opportunity) id from the CTEs.
  const keys = {
    contact: CONTACT_COLUMNS,
    ...(withNote ? { note: without(NOTE_COLUMNS, 'contact_id') } : {}),
    ...(withOpportunity ? { opportunity: without(OPPORTUNITY_COLUMNS, 'contact_id') } : {}),
    // A new submission is never cleared yet: values_cleared_at stays null (the column's default).
    submission: without(SUBMISSION_COLUMNS, 'contact_id', 'opportunity_id', 'values_cleared_at'),
    fingerprint: true,
    outbox: WEBHOOK_OUTBOX_COLUMNS,
    notice: LEAD_NOTICE_COLUMNS,
  } as const;
  // The CRM's CTEs write the contact, note and opportunity (crm/new-lead-ctes.ts), gated on the
  // subscriptions being current; forms adds its submission (s), which takes the contact (and the
  // opportunity) id from them; the outbox's CTE (webhooks/outbox-ctes.ts) writes the unit's events when c did, and
  // the notification outbox's (notifications/outbox-sql.ts) one row per recipient of the lead's email, also when c did:
  // a form that notifies keeps the one-statement path (the recipients are read by the statement itself).
  return queryTemplate(keys, (db, { contact, note, opportunity, submission: s, fingerprint, outbox, notice }) => {
    const crm = newLeadCtes(contact, withNote ? note : null, withOpportunity ? opportunity : null, sql`(select current from w)`);
    const statement = sql<{ contact_id: string | null; current: boolean }>`
      with w as (select ${subscriptionsCurrent(contact.org_id, fingerprint)} as current),
      ${crm.contact}
      ${crm.note}
      ${crm.opportunity}
      , s as (
        insert into submissions (id, org_id, form_id, contact_id, opportunity_id, field_values, custom, consent_version, metadata, ip, user_agent, created_at, conversation_id)
        select ${s.id}, ${s.org_id}, ${s.form_id}, c.id, ${crm.opportunityId}, ${s.field_values}, ${s.custom},
               ${s.consent_version}, ${s.metadata}, ${s.ip}, ${s.user_agent}, ${s.created_at}, ${s.conversation_id} from c)
      ${outboxCte(outbox!, sql`exists (select 1 from c)`)}
      ${leadNoticeCte(notice!, sql`exists (select 1 from c)`)}
      select (select id from c) as contact_id, (select current from w) as current`;
    return { compile: () => statement.compile(db) };
  });
}

const templates = [leadTemplate(false, false), leadTemplate(false, true), leadTemplate(true, false), leadTemplate(true, true)];

/** Orgs whose subscriptions a node keeps; past it, the oldest entry goes (a miss costs one read). */
const MAX_ORGS_KEPT = 10_000;

/**
 * PostgreSQL only: a submission from a new person, written in ONE statement (data-modifying CTEs,
 * atomic by themselves) with its webhook events (one outbox row), instead of a transaction of seven
 * round trips. Answers `not-new`, having written nothing, when the email or phone already
 * belongs to a contact, or when the opportunity's stage is gone: the caller then takes the general path
 * (upsert and merge, or the precise 422), which decides those cases. Compiled once per shape and run as
 * a prepared statement (see db/query-template.ts and db/pg-prepared.ts).
 *
 * The outbox row names the endpoints each event goes to, so it needs the org's subscriptions before the statement is built. The node
 * keeps each org's subscriptions with their fingerprint, and the statement writes only when the
 * fingerprint is still current (webhooks/outbox-ctes.ts): a stale entry (an endpoint added, changed or
 * removed, on any node) writes nothing; the subscriptions are read again and the statement runs once
 * more, so an org's first submission on a node, or the first after a change, costs one read and one
 * statement more. Nothing is ever written against stale subscriptions: an org without webhooks pays the
 * fingerprint's one index probe, and a lead is never written without the events its endpoints receive.
 */
export function createNewLeadWriter(db: Kysely<DB>, webhooks: Pick<WebhooksRepo, 'subscriptionsWithFingerprint'>) {
  const kept = new Map<string, { subscriptions: Subscriptions; fingerprint: string }>();

  async function read(orgId: string) {
    const entry = await webhooks.subscriptionsWithFingerprint(orgId);
    kept.delete(orgId);
    if (kept.size >= MAX_ORGS_KEPT) kept.delete(kept.keys().next().value!);
    kept.set(orgId, entry);
    return entry;
  }

  async function attempt(rows: NewLeadRows, events: NewLeadEvents, entry: { subscriptions: Subscriptions; fingerprint: string }) {
    const outbox = entry.subscriptions.empty ? undefined : outboxRow(entry.subscriptions, events(entry.subscriptions), rows.submission.created_at);
    const template = templates[(rows.note ? 2 : 0) + (rows.opportunity ? 1 : 0)]!;
    const result = await template(db, { ...rows, fingerprint: entry.fingerprint, outbox: outbox?.row ?? null });
    return result.rows[0];
  }

  return async function insertNewLeadAtOnce(rows: NewLeadRows, events: NewLeadEvents): Promise<NewLeadOutcome> {
    const orgId = rows.contact.org_id;
    let row = await attempt(rows, events, kept.get(orgId) ?? (await read(orgId)));
    // Stale subscriptions: nothing was written; once more with them read again.
    if (row && !row.current) row = await attempt(rows, events, await read(orgId));
    if (row?.contact_id === rows.contact.id) return 'written';
    // Still stale (endpoints changing under heavy churn), or the person or stage says so: the general path decides.
    return 'not-new';
  };
}
