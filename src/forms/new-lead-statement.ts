import { sql, type Kysely } from 'kysely';
import { newLeadCtes } from '../crm/new-lead-ctes.js';
import { queryTemplate, type QueryTemplate } from '../db/query-template.js';
import { CONTACT_COLUMNS, NOTE_COLUMNS, OPPORTUNITY_COLUMNS, SUBMISSION_COLUMNS } from '../db/tables.js';
import type { ContactsTable, DB, NotesTable, OpportunitiesTable, SubmissionsTable } from '../db/tables.js';

export interface NewLeadRows {
  contact: ContactsTable;
  note: NotesTable | null;
  /** Written only if its stage still exists in its pipeline; so is everything else. */
  opportunity: OpportunitiesTable | null;
  submission: SubmissionsTable;
}

function without(columns: Record<string, true>, ...skip: string[]): Record<string, true> {
  return Object.fromEntries(Object.keys(columns).filter((column) => !skip.includes(column)).map((column) => [column, true]));
}

/** The statement for a lead with or without a note and an opportunity: four shapes, each compiled once. */
/**
 * What a new lead emits (docs/webhooks.md): the org has an enabled endpoint subscribed to one of these,
 * the statement writes nothing and answers `webhooks`, and the general path writes the lead with its
 * events in one transaction (recordWebhookEvent). Why not insert the events here too: their deliveries
 * need one id per subscribed endpoint and the payloads the CRM's presenters build, which this statement
 * cannot do without becoming a second outbox writer to keep in step with the first. Why not decide
 * from a cache of "orgs with webhooks": a stale entry would write a lead without its event, the one
 * thing the outbox must never do. Decided here, in the statement that writes the lead, it is as exact
 * as the general path's own read of the endpoints. An org without webhooks pays one index probe
 * (webhook_endpoints by org_id) inside the same round trip.
 */
const NEW_LEAD_EVENTS = ['submission.created', 'contact.created', 'opportunity.created'] as const;

/** What the one statement did: wrote the lead; wrote nothing as the person (or the stage) says so; wrote nothing as the org has webhooks. */
export type NewLeadOutcome = 'written' | 'not-new' | 'webhooks';

function leadTemplate(withNote: boolean, withOpportunity: boolean): QueryTemplate<NewLeadRows, { contact_id: string | null; webhooks: boolean }> {
  // The note, opportunity and submission take the contact (and the opportunity) id from the CTEs.
  const keys = {
    contact: CONTACT_COLUMNS,
    ...(withNote ? { note: without(NOTE_COLUMNS, 'contact_id') } : {}),
    ...(withOpportunity ? { opportunity: without(OPPORTUNITY_COLUMNS, 'contact_id') } : {}),
    submission: without(SUBMISSION_COLUMNS, 'contact_id', 'opportunity_id'),
  };
  // The CRM's CTEs write the contact, note and opportunity (crm/new-lead-ctes.ts); forms adds its
  // submission (s), which takes the contact (and the opportunity) id from them.
  return queryTemplate(keys, (db, { contact, note, opportunity, submission: s }) => {
    const subscribed = sql.join(NEW_LEAD_EVENTS.map((type) => sql`events like ${`%${JSON.stringify(type)}%`}`), sql` or `);
    const crm = newLeadCtes(contact, withNote ? note : null, withOpportunity ? opportunity : null, sql`not (select subscribed from w)`);
    const statement = sql<{ contact_id: string | null; webhooks: boolean }>`
      with w as (select exists (select 1 from webhook_endpoints where org_id = ${contact.org_id} and enabled = 1 and (${subscribed})) as subscribed),
      ${crm.contact}
      ${crm.note}
      ${crm.opportunity}
      , s as (
        insert into submissions (id, org_id, form_id, contact_id, opportunity_id, field_values, custom, consent_version, metadata, ip, user_agent, created_at)
        select ${s.id}, ${s.org_id}, ${s.form_id}, c.id, ${crm.opportunityId}, ${s.field_values}, ${s.custom},
               ${s.consent_version}, ${s.metadata}, ${s.ip}, ${s.user_agent}, ${s.created_at} from c)
      select (select id from c) as contact_id, (select subscribed from w) as webhooks`;
    return { compile: () => statement.compile(db) };
  });
}

const templates = [leadTemplate(false, false), leadTemplate(false, true), leadTemplate(true, false), leadTemplate(true, true)];

/**
 * PostgreSQL only: a submission from a new person, written in ONE statement (data-modifying
 * CTEs, atomic by themselves), instead of a transaction of six round trips. Answers `not-new`,
 * having written nothing, when the email or phone already belongs to a contact, or when the
 * opportunity's stage is gone, and `webhooks` when the org receives a new lead's events (above): the caller then takes the general path (upsert and merge,
 * or the precise 422), which decides those cases. Compiled once per shape and run as a
 * prepared statement (see db/query-template.ts and db/pg-prepared.ts).
 */
export async function insertNewLeadAtOnce(db: Kysely<DB>, rows: NewLeadRows): Promise<NewLeadOutcome> {
  const template = templates[(rows.note ? 2 : 0) + (rows.opportunity ? 1 : 0)]!;
  const result = await template(db, rows);
  const row = result.rows[0];
  if (row?.contact_id === rows.contact.id) return 'written';
  return row?.webhooks ? 'webhooks' : 'not-new';
}
