import type { FastifyBaseLogger } from 'fastify';
import { failureFields } from '../db/unavailable.js';
import type { Clock } from '../lib/clock.js';
import type { FormsRepo } from './repo.js';

/**
 * Form views, counted in memory and written in batches: a page load or config read only bumps a
 * number (no await, nothing waits for the database). Every `flushMs` the counts gathered so far are
 * added to the daily counters in one transaction-free pass of upserts (one per form and day), like a
 * group commit. A failed flush puts its counts back for the next one. `flush()` also runs before the
 * Operator API reads the counts (so this node's pending views show at once) and when the app closes.
 *
 * What counts as a view: each load of the hosted page `/f/{slug}` (and `?embed=1`, the iframe), and
 * each read of the public config (`GET /api/public/forms/{slug}`), which form-embed.js makes once per
 * distinct slug on a page, so a page showing the same form twice counts one view.
 */
export interface ViewedForm {
  id: string;
  orgId: string;
}

/** Past this many distinct (form, day) pairs pending, a flush starts at once. */
const MAX_PENDING = 10_000;
const DAY_MS = 86_400_000;

interface PendingViews { form_id: string; day: string; views: number }

export function createFormViews(deps: { repo: FormsRepo; clock: Clock; log: FastifyBaseLogger; flushMs?: number }) {
  const { repo, clock, log } = deps;
  const flushMs = deps.flushMs ?? 1000;
  // Day → form id → its pending count. Two lookups by strings that are already made (the form's id, the day
  // kept below), where one key per view (`${id}|${day}`) was a new string to build and hash on every request.
  let pending = new Map<string, Map<string, PendingViews>>();
  let pendingCount = 0;
  let timer: ReturnType<typeof setTimeout> | undefined;
  let flushing: Promise<void> = Promise.resolve();
  let stopped = false;
  // Today's UTC day, written out once a day rather than per view (toISOString was most of a view's cost).
  let day = '';
  let dayStart = 0;
  let dayEnd = -Infinity;

  function dayAt(ms: number): string {
    if (ms >= dayEnd || ms < dayStart) {
      day = new Date(ms).toISOString().slice(0, 10);
      dayStart = Date.parse(day);
      dayEnd = dayStart + DAY_MS;
    }
    return day;
  }

  function add(formId: string, onDay: string, views: number): void {
    let forms = pending.get(onDay);
    if (!forms) pending.set(onDay, (forms = new Map()));
    const entry = forms.get(formId);
    if (entry) entry.views += views;
    else {
      forms.set(formId, { form_id: formId, day: onDay, views });
      pendingCount++;
    }
  }

  function record(form: ViewedForm): void {
    add(form.id, dayAt(clock.now().getTime()), 1);
    if (pendingCount >= MAX_PENDING) void flush();
    else if (!timer) {
      timer = setTimeout(() => void flush(), flushMs);
      timer.unref();
    }
  }

  /** Writes what is pending; resolves when it (and any flush before it) is written or put back. */
  function flush(): Promise<void> {
    clearTimeout(timer);
    timer = undefined;
    const batch = [...pending.values()].flatMap((forms) => [...forms.values()]);
    pending = new Map();
    pendingCount = 0;
    flushing = flushing.then(async () => {
      if (batch.length === 0) return;
      try {
        await repo.addViews(batch);
      } catch (error) {
        log.warn(failureFields(error), 'form views could not be written; keeping them for the next flush');
        for (const row of batch) add(row.form_id, row.day, row.views);
        if (!timer && !stopped) {
          timer = setTimeout(() => void flush(), flushMs);
          timer.unref();
        }
      }
    });
    return flushing;
  }

  /** The last flush: the app's close awaits it before the database closes. */
  function stop(): Promise<void> {
    stopped = true;
    return flush();
  }

  return { record, flush, stop };
}

export type FormViews = ReturnType<typeof createFormViews>;
