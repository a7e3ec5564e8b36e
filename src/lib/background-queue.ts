/** Where a failed job is reported. */
interface ErrorLog {
  error(object: { err: unknown }, message: string): void;
}

/**
 * Work taken off the response path: `push` returns at once and the job runs after the current
 * answer is sent (from the event loop's next check phase), a few at a time, in arrival order.
 * A job that fails is logged, never thrown to anyone. The app's close drains it before the
 * database closes, so nothing queued is lost on a graceful shutdown.
 */
export interface BackgroundQueue {
  /** Queues `job`; `what` names it in the log if it fails or is dropped. */
  push(what: string, job: () => Promise<void>): void;
  /** Resolves once every job pushed so far has finished (tests wait on it; so does the app's close). */
  idle(): Promise<void>;
  /** Jobs waiting or running. */
  size(): number;
}

export interface BackgroundQueueOptions {
  log: ErrorLog;
  /** Jobs run at once (default 4): an email can wait on a slow SMTP server without holding the others back. */
  concurrency?: number;
  /**
   * Jobs waiting at most (default 10,000). Past it a new job is dropped and logged: the queue
   * never grows without bound, whatever the inflow (the routes that feed it are rate limited).
   */
  maxWaiting?: number;
}

export function createBackgroundQueue(options: BackgroundQueueOptions): BackgroundQueue {
  const concurrency = options.concurrency ?? 4;
  const maxWaiting = options.maxWaiting ?? 10_000;
  const waiting: Array<{ what: string; job: () => Promise<void> }> = [];
  let running = 0;
  let scheduled = false;
  let idleWaiters: Array<() => void> = [];

  function settleIfIdle(): void {
    if (running > 0 || waiting.length > 0) return;
    const waiters = idleWaiters;
    idleWaiters = [];
    for (const resolve of waiters) resolve();
  }

  function startNext(): void {
    while (running < concurrency && waiting.length > 0) {
      const { what, job } = waiting.shift()!;
      running++;
      // A job that throws synchronously is caught like one that rejects.
      Promise.resolve()
        .then(job)
        .catch((error: unknown) => options.log.error({ err: error }, `${what} failed (background job)`))
        .finally(() => {
          running--;
          startNext();
          settleIfIdle();
        });
    }
  }

  return {
    push(what, job) {
      if (waiting.length >= maxWaiting) {
        options.log.error({ err: new Error(`${maxWaiting} jobs are waiting`) }, `${what} dropped: the background queue is full`);
        return;
      }
      waiting.push({ what, job });
      // setImmediate, not a microtask: the job starts only after the answer has been written.
      if (!scheduled) {
        scheduled = true;
        setImmediate(() => {
          scheduled = false;
          startNext();
        });
      }
    },
    idle: () => (running === 0 && waiting.length === 0 ? Promise.resolve() : new Promise((resolve) => idleWaiters.push(resolve))),
    size: () => running + waiting.length,
  };
}
