/**
 * Group commit: items that arrive while a batch is being written go together in the next one.
 *
 * One batch is written at a time. An item that arrives while nothing is being written is taken
 * at the next `setImmediate`, not after a fixed delay: an idle database sees each write at once,
 * a busy one sees batches that grow with the load, which is when sharing a commit pays.
 *
 * better-sqlite3 is synchronous, so a whole SQLite write runs in one turn of the event loop and
 * no request is read meanwhile. Taking a batch from a setImmediate callback (after the poll
 * phase) lets every request that has arrived reach the queue first.
 *
 * `commit` settles each item of its batch itself (the submissions' transaction runner runs a
 * failed batch's units again alone; the call log fails exactly that batch's callers), so a
 * batch's failure never reaches another batch.
 */
export interface GroupCommit<T> {
  add(item: T): void;
  /** Resolves once every item added so far has been through `commit` (or `expire`): what a shutdown awaits before the database closes. */
  drained(): Promise<void>;
}

export interface GroupCommitOptions<T> {
  maxBatch: number;
  /**
   * How long an item may wait for its batch to begin (DATABASE_ACQUIRE_TIMEOUT_MS): an item that
   * waited longer goes to `expire` instead, so nothing waits behind batches that are all slow
   * (a database that does not answer). Default: no limit.
   */
  maxWaitMs?: number;
  expire?: (item: T) => void;
}

export function createGroupCommit<T>(commit: (batch: T[]) => Promise<void>, options: GroupCommitOptions<T>): GroupCommit<T> {
  const maxWaitMs = options.maxWaitMs ?? Infinity;
  const queue: Array<{ item: T; since: number }> = [];
  let scheduled = false;
  let running = false;
  let waiters: Array<() => void> = [];

  const idle = () => !scheduled && !running && queue.length === 0;

  function settleWaiters(): void {
    if (!idle()) return;
    const done = waiters;
    waiters = [];
    for (const resolve of done) resolve();
  }

  /** The next batch, after handing the items that waited too long to `expire`. */
  function takeBatch(): T[] {
    if (maxWaitMs !== Infinity) {
      const now = performance.now();
      while (queue.length > 0 && now - queue[0]!.since > maxWaitMs) options.expire?.(queue.shift()!.item);
    }
    return queue.splice(0, options.maxBatch).map((entry) => entry.item);
  }

  function schedule(): void {
    if (scheduled) return;
    scheduled = true;
    setImmediate(() => {
      scheduled = false;
      const batch = takeBatch();
      if (batch.length === 0) return settleWaiters();
      running = true;
      // `commit` settles its items; a throw here would leave them waiting, so it is only swallowed.
      void commit(batch).catch(() => undefined).finally(() => {
        running = false;
        if (queue.length > 0) schedule();
        else settleWaiters();
      });
    });
  }

  return {
    add(item) {
      queue.push({ item, since: maxWaitMs === Infinity ? 0 : performance.now() });
      if (!running) schedule();
    },
    drained: () => (idle() ? Promise.resolve() : new Promise<void>((resolve) => waiters.push(resolve))),
  };
}
