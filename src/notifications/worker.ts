import type { FastifyBaseLogger } from 'fastify';
import { failureFields, isDatabaseUnavailable } from '../db/unavailable.js';
import type { Clock } from '../lib/clock.js';
import type { Mailer } from '../lib/mailer.js';
import { handoffEmail, leadEmail, type RenderedEmail } from './email.js';
import type { HandoffPayload, LeadPayload } from './outbox.js';
import type { ClaimedNotice, NotificationsRepo } from './repo.js';

export interface NotificationSchedule {
  /** Between polls when the last one found nothing due. */
  pollMs: number;
  /** Notices claimed (and sent, one after another over the mailer's connection) per poll. */
  batchSize: number;
}

const DEFAULT_SCHEDULE: NotificationSchedule = { pollMs: 1000, batchSize: 10 };

/**
 * Attempts per notice: the first, then after 30 s, 1, 2, 4, 8, 16 and 32 minutes (each wait a random 50–100% of
 * that): about an hour of an SMTP server being down or refusing. After the last, the notice is `failed` and a
 * warning logged; an email later than that would be news of a lead the console already shows.
 */
export const MAX_ATTEMPTS = 8;
const FIRST_WAIT_MS = 30_000;
/** Waits after an accepted send whose row could not be marked sent (the database was away), before trying again. */
const MARK_RETRY_MS = [200, 1000, 5000];

/** The wait after the `attempts`-th failed attempt (1 = the first), with jitter from `random` in [0, 1). */
export function retryWaitMs(attempts: number, random: () => number): number {
  return Math.round(FIRST_WAIT_MS * 2 ** Math.min(attempts - 1, 10) * (0.5 + random() / 2));
}

/**
 * An SMTP answer that another attempt cannot change: 550–554 (no such mailbox, refused by policy, a message the
 * server will never take). Anything else (no connection, a timeout, 4xx, an authentication failure the operator
 * may fix) is tried again.
 */
function permanent(error: unknown): boolean {
  const code = (error as { responseCode?: unknown } | null)?.responseCode;
  return typeof code === 'number' && code >= 550 && code <= 554;
}

function describe(error: unknown): string {
  const code = (error as { responseCode?: unknown } | null)?.responseCode;
  const message = error instanceof Error ? error.message : String(error);
  return (typeof code === 'number' ? `SMTP ${code}: ${message}` : message).slice(0, 500);
}

export interface NotificationWorkerDeps {
  repo: NotificationsRepo;
  mailer: Mailer;
  clock: Clock;
  log: Pick<FastifyBaseLogger, 'warn' | 'error' | 'info'>;
  /** Links in the emails start with it (PUBLIC_URL). */
  publicUrl: string;
  /** How long a claim holds a notice: longer than a send can take (the mailer's timeouts). */
  leaseMs: number;
  /** Jitter of the backoff; tests pass a fixed one. */
  random?: () => number;
  schedule?: Partial<NotificationSchedule>;
}

/**
 * Sends the notification outbox, on every node: claims due notices with a lease (repo.claimDue: never one row on
 * two nodes at once), renders each email (email.ts) and sends it through the mailer (nodemailer over SMTP_URL),
 * then marks it sent, or due again after a backoff, or failed after MAX_ATTEMPTS.
 *
 * What a crash does:
 * - Between the producer's commit and the claim, or between the claim and the send: nothing was sent. The row
 *   is still pending (with a lease that runs out after `leaseMs`); a node that starts, or any other node, sends it.
 *   No notice is lost and none repeated.
 * - THE AT-LEAST-ONCE WINDOW: after the SMTP server accepted the message (its 250 to DATA) and before the row
 *   is marked sent. A process killed there, or a database that refuses the mark, leaves the row pending: the
 *   email is sent again when its lease runs out. SMTP has no way to make the send and our write one step, so the
 *   window is made as small as it can be: the mark is the very next thing the worker does (one update by primary
 *   key, nothing in between), it is tried again briefly if the database was away, and every attempt of a
 *   notice carries the same Message-ID (`<notice id>.<user id>@<PUBLIC_URL's host>`), so a second copy is
 *   recognisably the same email to a mail client or a deduplicating server.
 */
export function createNotificationWorker(deps: NotificationWorkerDeps) {
  const { repo, mailer, clock, log, publicUrl } = deps;
  const random = deps.random ?? Math.random;
  const schedule = { ...DEFAULT_SCHEDULE, ...deps.schedule };
  const host = new URL(publicUrl).hostname || 'localhost';
  let timer: NodeJS.Timeout | undefined;
  let stopped = true;
  let polling: Promise<unknown> | undefined;

  function render(notice: ClaimedNotice): RenderedEmail {
    return notice.kind === 'lead'
      ? leadEmail(JSON.parse(notice.payload) as LeadPayload, publicUrl)
      : handoffEmail(JSON.parse(notice.payload) as HandoffPayload, publicUrl);
  }

  async function markSent(notice: ClaimedNotice): Promise<void> {
    for (let attempt = 0; ; attempt += 1) {
      try {
        if (!(await repo.markSent(notice, notice.locked_until, clock.now().toISOString()))) {
          log.warn({ noticeId: notice.notice_id, userId: notice.user_id }, 'a notification email was sent after its lease ran out: it may be sent twice');
        }
        return;
      } catch (error) {
        const wait = MARK_RETRY_MS[attempt];
        if (wait === undefined || !isDatabaseUnavailable(error)) throw error;
        await new Promise((resolve) => setTimeout(resolve, wait));
      }
    }
  }

  async function attempt(notice: ClaimedNotice): Promise<void> {
    if (notice.email === null) {
      await repo.markUnsent(notice, notice.locked_until, 'The recipient is no longer a member of the organization.', null);
      return;
    }
    const email = render(notice);
    try {
      await mailer.send({ to: notice.email, subject: email.subject, text: email.text, html: email.html, messageId: `${notice.notice_id}.${notice.user_id}@${host}` });
    } catch (error) {
      const attempts = notice.attempts + 1;
      const reason = describe(error);
      const giveUp = permanent(error) || attempts >= MAX_ATTEMPTS;
      const next = giveUp ? null : new Date(clock.now().getTime() + retryWaitMs(attempts, random)).toISOString();
      await repo.markUnsent(notice, notice.locked_until, reason, next);
      if (giveUp) log.warn({ noticeId: notice.notice_id, userId: notice.user_id, orgId: notice.org_id, kind: notice.kind, attempts, reason }, 'a notification email could not be sent; gave up');
      return;
    }
    // Accepted by the SMTP server: marked at once (the at-least-once window, see above).
    await markSent(notice);
  }

  /** Claims what is due and sends it; resolves to how many it claimed. */
  async function poll(): Promise<number> {
    const now = clock.now();
    const claimed = await repo.claimDue(now.toISOString(), new Date(now.getTime() + deps.leaseMs).toISOString(), schedule.batchSize);
    for (const notice of claimed) {
      // One at a time over the mailer's connection; a row whose attempt could not be recorded is taken again when its lease runs out.
      await attempt(notice).catch((error: unknown) => {
        if (isDatabaseUnavailable(error)) log.warn({ ...failureFields(error), noticeId: notice.notice_id }, 'a notification attempt could not be recorded');
        else log.error({ err: error, noticeId: notice.notice_id }, 'a notification attempt could not be recorded');
      });
    }
    return claimed.length;
  }

  /** One poll (tests; a node polls on its timer). */
  function runOnce(): Promise<number> {
    return poll();
  }

  /** Polls until nothing is due (tests). */
  async function runUntilIdle(maxRounds = 100): Promise<void> {
    for (let round = 0; round < maxRounds; round += 1) if ((await poll()) === 0) return;
  }

  function schedulePoll(ms: number): void {
    if (stopped || polling) return;
    clearTimeout(timer);
    timer = setTimeout(() => {
      timer = undefined;
      const current = poll();
      polling = current;
      current.then(
        (claimed) => {
          polling = undefined;
          // A full batch: there may be more.
          schedulePoll(claimed >= schedule.batchSize ? 0 : schedule.pollMs);
        },
        (error: unknown) => {
          polling = undefined;
          log.warn(failureFields(error), 'notification poll failed; trying again');
          schedulePoll(schedule.pollMs);
        },
      );
    }, ms);
    timer.unref();
  }

  return {
    runOnce,
    runUntilIdle,
    /** Polls on a timer from now on (every node that serves), the first time at once: what a crash left is sent. */
    start(): void {
      if (!stopped) return;
      stopped = false;
      schedulePoll(0);
    },
    /** No new poll; waits for the one running (its sends recorded). */
    async stop(): Promise<void> {
      stopped = true;
      clearTimeout(timer);
      await polling?.catch(() => undefined);
    },
  };
}

export type NotificationWorker = ReturnType<typeof createNotificationWorker>;
