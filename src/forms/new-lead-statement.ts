import { sql, type Kysely } from 'kysely';
import type { ContactsTable, DB, NotesTable, OpportunitiesTable, SubmissionsTable } from '../db/tables.js';

export interface NewLeadRows {
  contact: ContactsTable;
  note: NotesTable | null;
  /** Written only if its stage still exists in its pipeline; so is everything else. */
  opportunity: OpportunitiesTable | null;
  submission: SubmissionsTable;
}

const list = (values: unknown[]) => sql.join(values.map((value) => sql`${value}`));

/**
 * PostgreSQL only: a submission from a new person, written in ONE statement (data-modifying
 * CTEs, atomic by themselves), instead of a transaction of six round trips. Returns false,
 * having written nothing, when the email or phone already belongs to a contact, or when the
 * opportunity's stage is gone: the caller then takes the general path (upsert and merge,
 * or the precise 422), which decides those cases.
 */
export async function insertNewLeadAtOnce(db: Kysely<DB>, rows: NewLeadRows): Promise<boolean> {
  const { contact, note, opportunity, submission } = rows;
  const stageGate = opportunity
    ? sql`where exists (select 1 from stages where id = ${opportunity.stage_id} and pipeline_id = ${opportunity.pipeline_id} and org_id = ${opportunity.org_id})`
    : sql``;
  const noteInsert = note
    ? sql`, n as (
        insert into notes (id, org_id, contact_id, body, source, submission_id, created_at)
        select ${note.id}, ${note.org_id}, c.id, ${note.body}, ${note.source}, ${note.submission_id}, ${note.created_at} from c)`
    : sql``;
  const opportunityInsert = opportunity
    ? sql`, o as (
        insert into opportunities (id, org_id, contact_id, pipeline_id, stage_id, title, source, custom, submission_id, created_at, updated_at)
        select ${opportunity.id}, ${opportunity.org_id}, c.id, ${opportunity.pipeline_id}, ${opportunity.stage_id}, ${opportunity.title},
               ${opportunity.source}, ${opportunity.custom}, ${opportunity.submission_id}, ${opportunity.created_at}, ${opportunity.updated_at} from c
        returning id)`
    : sql``;
  const opportunityId = opportunity ? sql`(select id from o)` : sql`null`;
  const result = await sql<{ contact_id: string | null }>`
    with c as (
      insert into contacts (id, org_id, email, phone, name, company, source, custom, created_at, updated_at)
      select ${list([contact.id, contact.org_id, contact.email, contact.phone, contact.name, contact.company, contact.source, contact.custom, contact.created_at, contact.updated_at])}
      ${stageGate}
      on conflict do nothing
      returning id)
    ${noteInsert}
    ${opportunityInsert}
    , s as (
      insert into submissions (id, org_id, form_id, contact_id, opportunity_id, field_values, custom, consent_version, metadata, ip, user_agent, created_at)
      select ${submission.id}, ${submission.org_id}, ${submission.form_id}, c.id, ${opportunityId}, ${submission.field_values}, ${submission.custom},
             ${submission.consent_version}, ${submission.metadata}, ${submission.ip}, ${submission.user_agent}, ${submission.created_at} from c)
    select (select id from c) as contact_id`.execute(db);
  return result.rows[0]?.contact_id === contact.id;
}
