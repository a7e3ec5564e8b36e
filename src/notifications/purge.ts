import type { ExpiryPurge } from '../db/expiry-purger.js';
import type { NotificationsRepo } from './repo.js';

/** How long a settled notice (sent or given up) is kept: long enough to answer "was it sent?", then purged. */
export const SETTLED_NOTICE_DAYS = 7;

/** Settled notices older than SETTLED_NOTICE_DAYS, for the expiry purger (db/expiry-purger.ts). */
export function expiredNotices(repo: NotificationsRepo): ExpiryPurge {
  return {
    name: 'notification_outbox',
    purgeBatch: (now, limit) => repo.deleteSettled(new Date(now.getTime() - SETTLED_NOTICE_DAYS * 86_400_000).toISOString(), limit),
  };
}
