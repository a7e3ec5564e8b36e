import type { OrgsTable } from '../db/tables.js';
import type { Retention, RetentionPatch } from './schema.js';
export { MAX_RETENTION_DAYS, MAX_WEBHOOK_BODIES_DAYS } from './schema.js';

/**
 * An organization's retention settings (issue 36, part 3; docs/privacy.md, "Retention"): how many days it keeps
 * each kind of personal data; null keeps it as before. Stored in four columns of `orgs`; the expiry purger applies
 * them (src/retention-purges.ts), each through the repo of the feature that owns the rows.
 */

/** Each wire field and its column of `orgs`. */
export const RETENTION_COLUMNS = {
  submissionsDays: 'retention_submissions_days',
  conversationsDays: 'retention_conversations_days',
  callLogDays: 'retention_call_log_days',
  webhookBodiesDays: 'retention_webhook_bodies_days',
} as const satisfies Record<keyof Retention, keyof OrgsTable>;

export type RetentionColumn = (typeof RETENTION_COLUMNS)[keyof Retention];

/** A new organization keeps everything, as every organization did before retention existed. */
export const NO_RETENTION: Pick<OrgsTable, RetentionColumn> = {
  retention_submissions_days: null,
  retention_conversations_days: null,
  retention_call_log_days: null,
  retention_webhook_bodies_days: null,
};

export function presentRetention(row: Pick<OrgsTable, RetentionColumn>): Retention {
  return {
    submissionsDays: row.retention_submissions_days,
    conversationsDays: row.retention_conversations_days,
    callLogDays: row.retention_call_log_days,
    webhookBodiesDays: row.retention_webhook_bodies_days,
  };
}

/** The columns a patch changes: only the fields given (null clears one). Bounds are the wire schema's. */
export function retentionChanges(patch: RetentionPatch): Partial<Pick<OrgsTable, RetentionColumn>> {
  const set: Partial<Pick<OrgsTable, RetentionColumn>> = {};
  for (const field of Object.keys(RETENTION_COLUMNS) as (keyof Retention)[]) {
    const value = patch[field];
    if (value !== undefined) set[RETENTION_COLUMNS[field]] = value;
  }
  return set;
}
