import type { FastifyBaseLogger } from 'fastify';
import { failureFields } from './unavailable.js';
import type { Clock } from '../lib/clock.js';

/** One table whose rows expire. Each feature's repo supplies the query; the purger only schedules it. */
export interface ExpiryPurge {
  /** The table, as logs name it. */
  name: string;
  /** Deletes up to `limit` rows that have expired at `now`; resolves to how many it deleted. */
  purgeBatch(now: Date, limit: number): Promise<number>;
  /**
   * The most batches of this table in one run; the rest waits for the next run. Absent: until the table is clean.
   * For tables where a setting can expire a large backlog at once (retention: src/retention-purges.ts).
   */
  maxBatchesPerRun?: number;
}

export interface PurgeSchedule {
  /** The first run, after start-up has settled. */
  firstRunAfterMs: number;
  /** From the end of one run to the start of the next, so runs never overlap. */
  intervalMs: number;
  /** Rows per delete statement: each one holds SQLite's single writer only briefly. */
  batchSize: number;
  /** Between batches, so requests waiting for the writer go first. */
  pauseMs: number;
}

const DEFAULT_SCHEDULE: PurgeSchedule = { firstRunAfterMs: 5_000, intervalMs: 60_000, batchSize: 500, pauseMs: 10 };

/** Timers of a background job must not keep the process alive. */
function pause(ms: number): Promise<void> {
  // setImmediate when there is no pause to wait: it always lets pending I/O and callbacks run first,
  // where a 0 ms timer may fire before them.
  if (ms <= 0) return new Promise((resolve) => setImmediate(resolve));
  return new Promise((resolve) => setTimeout(resolve, ms).unref());
}

/**
 * Deletes expired rows of every table in `purges`, in small batches, on a timer. Safe on every
 * node at once: deleting an expired row is idempotent, and on PostgreSQL each batch skips rows
 * another node's batch holds (see the repos' queries).
 */
export function createExpiryPurger(deps: {
  purges: ExpiryPurge[];
  clock: Clock;
  log: Pick<FastifyBaseLogger, 'debug' | 'warn'>;
  schedule?: Partial<PurgeSchedule>;
}) {
  const { purges, clock, log } = deps;
  const schedule = { ...DEFAULT_SCHEDULE, ...deps.schedule };
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<unknown> | undefined;
  let stopped = false;

  async function purgeTable(purge: ExpiryPurge): Promise<number> {
    let deleted = 0;
    try {
      for (let batches = 1; ; batches++) {
        const count = await purge.purgeBatch(clock.now(), schedule.batchSize);
        deleted += count;
        // A short batch means the table is clean (or, on PostgreSQL, another node holds the rest).
        if (count < schedule.batchSize) return deleted;
        if (purge.maxBatchesPerRun !== undefined && batches >= purge.maxBatchesPerRun) return deleted;
        await pause(schedule.pauseMs);
        if (stopped) return deleted;
      }
    } catch (error) {
      log.warn({ ...failureFields(error), table: purge.name }, 'could not purge expired rows; the next run tries again');
      return deleted;
    }
  }

  /** One pass over every table; resolves to the rows deleted per table. */
  async function runOnce(): Promise<Record<string, number>> {
    const started = Date.now();
    const deleted: Record<string, number> = {};
    for (const purge of purges) {
      if (stopped) break;
      deleted[purge.name] = await purgeTable(purge);
    }
    log.debug({ deleted, ms: Date.now() - started }, 'purged expired rows');
    return deleted;
  }

  function scheduleRun(delayMs: number): void {
    timer = setTimeout(() => {
      timer = undefined;
      running = runOnce().finally(() => {
        running = undefined;
        if (!stopped) scheduleRun(schedule.intervalMs);
      });
    }, delayMs).unref();
  }

  return {
    runOnce,
    start(): void {
      if (timer === undefined && running === undefined && !stopped) scheduleRun(schedule.firstRunAfterMs);
    },
    /** Cancels the next run and waits for one in progress, which ends after its current batch. */
    async stop(): Promise<void> {
      stopped = true;
      clearTimeout(timer);
      timer = undefined;
      await running;
    },
  };
}
