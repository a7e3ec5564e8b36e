import { sql, type RawBuilder } from 'kysely';

/**
 * The INSERT … SELECT of a notice: one row per recipient, read from the members and their preferences in the
 * statement that writes the notice (no read on the producer's path). The repo runs it in a transaction
 * (repo.ts); forms/new-lead-statement.ts runs the lead's as a CTE of its one statement (PostgreSQL). Values
 * are cast to text: PostgreSQL cannot infer a parameter's type in a select list.
 */

/** The row values of a lead notice: what forms/new-lead-statement.ts writes in its one statement, too. */
export interface LeadNoticeRow {
  notice_id: string;
  org_id: string;
  payload: string;
  /** null: the owners; else a JSON array of user ids. */
  recipients: string | null;
  created_at: string;
}

export const LEAD_NOTICE_COLUMNS: Record<keyof LeadNoticeRow, true> = { notice_id: true, org_id: true, payload: true, recipients: true, created_at: true };

/** Members of the row's org (a person with a role), wanted by the lead's recipients, who left lead notices on. */
export function leadNoticeInsert(row: Record<keyof LeadNoticeRow, unknown>, postgres: boolean, gate?: RawBuilder<unknown>): RawBuilder<unknown> {
  // One type per parameter (a prepared statement refuses a parameter read as text here and as jsonb there).
  const recipients = sql`cast(${row.recipients} as text)`;
  // null: the owners; else the JSON array's ids (each still a member of the org: the join says so).
  const named = postgres ? sql`u.id in (select jsonb_array_elements_text(cast(${recipients} as jsonb)))` : sql`u.id in (select value from json_each(${row.recipients}))`;
  return sql`insert into notification_outbox (notice_id, user_id, org_id, kind, payload, status, attempts, next_attempt_at, created_at)
      select cast(${row.notice_id} as text), u.id, u.org_id, 'lead', cast(${row.payload} as text), 'pending', 0, cast(${row.created_at} as text), cast(${row.created_at} as text)
      from users u left join notification_preferences p on p.user_id = u.id
      where u.org_id = cast(${row.org_id} as text) and u.role is not null and coalesce(p.leads, 1) = 1
        and ((${recipients} is null and u.role = 'owner') or ${named})${gate ? sql` and ${gate}` : sql``}`;
}

/** `, ntc as (…)`: the lead's notice in a one-statement write, when `gate` holds and there is one (a notice id of null: none). */
export function leadNoticeCte(row: Record<keyof LeadNoticeRow, unknown>, gate: RawBuilder<unknown>): RawBuilder<unknown> {
  return sql`, ntc as (${leadNoticeInsert(row, true, sql`cast(${row.notice_id} as text) is not null and ${gate}`)})`;
}
