import type { FastifyBaseLogger } from 'fastify';
import type { ToolCallsTable } from '../db/tables.js';

/**
 * The call log, written off the call path: `record` queues a row and returns at once;
 * queued rows go to the database in a few multi-row inserts per batch, when `maxBatch` are
 * queued or `flushIntervalMs` after the first, and on `close`. A failed batch is logged
 * and dropped (a log row is never worth failing or slowing a call). Rows carry no payloads.
 */
export interface CallLog {
  record(row: ToolCallsTable): void;
  /** Writes what is queued now; resolves when it is written (or dropped). */
  flush(): Promise<void>;
  close(): Promise<void>;
}

export function createCallLog(deps: {
  repo: { insertCalls(rows: ToolCallsTable[]): Promise<unknown> };
  log: Pick<FastifyBaseLogger, 'error'>;
  flushIntervalMs?: number;
  maxBatch?: number;
}): CallLog {
  const flushIntervalMs = deps.flushIntervalMs ?? 250;
  const maxBatch = deps.maxBatch ?? 200;
  let queue: ToolCallsTable[] = [];
  let timer: NodeJS.Timeout | undefined;
  let writing: Promise<void> = Promise.resolve();

  function flush(): Promise<void> {
    if (timer) {
      clearTimeout(timer);
      timer = undefined;
    }
    if (queue.length === 0) return writing;
    const batch = queue;
    queue = [];
    // Batches are written one after another, in order.
    writing = writing.then(async () => {
      try {
        for (let i = 0; i < batch.length; i += maxBatch) await deps.repo.insertCalls(batch.slice(i, i + maxBatch));
      } catch (error) {
        deps.log.error({ err: error, rows: batch.length }, 'could not write tool call log rows; the batch\'s rows from the failed statement on were dropped');
      }
    });
    return writing;
  }

  return {
    record(row) {
      queue.push(row);
      if (queue.length >= maxBatch) void flush();
      else if (!timer) {
        timer = setTimeout(() => void flush(), flushIntervalMs);
        timer.unref();
      }
    },
    flush,
    close: flush,
  };
}
