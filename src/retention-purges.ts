import type { ExpiryPurge } from './db/expiry-purger.js';
import type { Repos } from './repos.js';
import type { RetentionColumn } from './orgs/retention.js';

const DAY_MS = 86_400_000;

/**
 * The most batches of each retention purge in one run of the expiry purger (every minute by default): 20 × 500 rows
 * is 10,000 rows per table per run, 600,000 an hour, so a first setting over years of data is worked off in the
 * background without holding SQLite's writer for long, and the other tables' purges still run every minute.
 */
export const RETENTION_BATCHES_PER_RUN = 20;

/**
 * An organization's retention settings (orgs/retention.ts; docs/privacy.md, "Retention") as purges of the expiry purger
 * (db/expiry-purger.ts). Each batch reads the distinct values of the setting (a handful: orgs choose 30, 90, 365 …),
 * then asks the feature that owns the rows to purge, per value, what is older than that many days before `now`, until
 * `limit` rows are done: a few statements, each bounded by `limit` and each through an index (the retention migration).
 * Nothing here touches a row of an organization that has no setting, and the audit log is no purge's.
 */
export function retentionPurges(repos: Pick<Repos, 'orgs' | 'forms' | 'conversations' | 'invocation' | 'webhooks'>): ExpiryPurge[] {
  function purge(name: string, column: RetentionColumn, batch: (days: number, before: string, now: Date, limit: number) => Promise<number>): ExpiryPurge {
    return {
      name,
      maxBatchesPerRun: RETENTION_BATCHES_PER_RUN,
      async purgeBatch(now, limit) {
        let done = 0;
        for (const days of await repos.orgs.retentionDaysInUse(column)) {
          done += await batch(days, new Date(now.getTime() - days * DAY_MS).toISOString(), now, limit - done);
          if (done >= limit) break;
        }
        return done;
      },
    };
  }
  return [
    purge('submissions (retention)', 'retention_submissions_days', (days, before, now, limit) => repos.forms.clearSubmissionsPastRetention(days, before, now.toISOString(), limit)),
    purge('conversations (retention)', 'retention_conversations_days', (days, before, _now, limit) => repos.conversations.deletePastRetention(days, before, limit)),
    purge('tool_calls (retention)', 'retention_call_log_days', (days, before, _now, limit) => repos.invocation.deleteCallsPastRetention(days, before, limit)),
    purge('webhook_deliveries (bodies, retention)', 'retention_webhook_bodies_days', (days, before, _now, limit) => repos.webhooks.forgetBodiesPastRetention(days, before, limit)),
  ];
}
