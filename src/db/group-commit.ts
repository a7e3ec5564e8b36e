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
  /** Resolves once every item added so far has been through `commit`: what a shutdown awaits before the database closes. */
  drained(): Promise<void>;
}

export function createGroupCommit<T>(commit: (batch: T[]) => Promise<void>, options: { maxBatch: number }): GroupCommit<T> {
  const queue: T[] = [];
  let scheduled = false;
  let running = false;
  let waiters: Array<() => void> = [];

  const idle = () => !scheduled && !running && queue.length === 0;

  function schedule(): void {
    if (scheduled) return;
    scheduled = true;
    setImmediate(() => {
      scheduled = false;
      running = true;
      const batch = queue.splice(0, options.maxBatch);
      // `commit` settles its items; a throw here would leave them waiting, so it is only swallowed.
      void commit(batch).catch(() => undefined).finally(() => {
        running = false;
        if (queue.length > 0) schedule();
        else if (idle()) {
          const done = waiters;
          waiters = [];
          for (const resolve of done) resolve();
        }
      });
    });
  }

  return {
    add(item) {
      queue.push(item);
      if (!running) schedule();
    },
    drained: () => (idle() ? Promise.resolve() : new Promise<void>((resolve) => waiters.push(resolve))),
  };
}
