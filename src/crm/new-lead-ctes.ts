import { sql, type RawBuilder } from 'kysely';
import type { ContactsTable, NotesTable, OpportunitiesTable } from '../db/tables.js';

/** The parts of a new lead's statement that write the CRM's tables, each a data-modifying CTE (or empty). */
export interface NewLeadCtes {
  /** `c`: the contact, written only if its opportunity's stage still exists; `returning id`. */
  contact: RawBuilder<unknown>;
  /** `, n`: the note, on the contact of `c`. */
  note: RawBuilder<unknown>;
  /** `, o`: the opportunity, on the contact of `c`; `returning id`. */
  opportunity: RawBuilder<unknown>;
  /** The opportunity's id as a scalar for later CTEs, or `null`. */
  opportunityId: RawBuilder<unknown>;
}

/**
 * The CRM's share of the one-statement write of a new person's form submission (PostgreSQL;
 * forms/new-lead-statement.ts composes the statement and adds the submission). The SQL that
 * writes contacts, notes and opportunities lives here because a feature writes only its own
 * tables (db/table-owners.ts); forms keeps the one round trip by embedding these CTEs.
 * c, n, o: the rows of the contact, note and opportunity (in a query template, rows of markers:
 * db/query-template.ts), named like their CTEs; a lead without a note or opportunity passes null.
 */
export function newLeadCtes(c: ContactsTable, n: NotesTable | null | undefined, o: OpportunitiesTable | null | undefined, gate?: RawBuilder<unknown>): NewLeadCtes {
  // `gate`: the caller's own condition (a boolean expression); false writes nothing, like a gone stage.
  const conditions = [
    ...(o ? [sql`exists (select 1 from stages where id = ${o.stage_id} and pipeline_id = ${o.pipeline_id} and org_id = ${o.org_id})`] : []),
    ...(gate ? [gate] : []),
  ];
  const stageGate = conditions.length > 0 ? sql`where ${sql.join(conditions, sql` and `)}` : sql``;
  return {
    contact: sql`c as (
        insert into contacts (id, org_id, email, phone, name, company, source, custom, created_at, updated_at)
        select ${c.id}, ${c.org_id}, ${c.email}, ${c.phone}, ${c.name}, ${c.company}, ${c.source}, ${c.custom}, ${c.created_at}, ${c.updated_at}
        ${stageGate}
        on conflict do nothing
        returning id)`,
    note: n
      ? sql`, n as (
          insert into notes (id, org_id, contact_id, body, source, submission_id, created_at)
          select ${n.id}, ${n.org_id}, c.id, ${n.body}, ${n.source}, ${n.submission_id}, ${n.created_at} from c)`
      : sql``,
    opportunity: o
      ? sql`, o as (
          insert into opportunities (id, org_id, contact_id, pipeline_id, stage_id, title, source, custom, submission_id, created_at, updated_at)
          select ${o.id}, ${o.org_id}, c.id, ${o.pipeline_id}, ${o.stage_id}, ${o.title},
                 ${o.source}, ${o.custom}, ${o.submission_id}, ${o.created_at}, ${o.updated_at} from c
          returning id)`
      : sql``,
    opportunityId: o ? sql`(select id from o)` : sql`null`,
  };
}
