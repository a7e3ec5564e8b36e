import type { Kysely, Transaction } from 'kysely';
import { createGroupCommit } from './group-commit.js';
import type { DB } from './tables.js';
import { DatabaseUnavailableError, isDatabaseUnavailable } from './unavailable.js';

/**
 * Runs units of work, each atomically in a transaction.
 *
 * On PostgreSQL every unit gets its own transaction: the pool runs them in parallel.
 *
 * On SQLite there is one writer and one connection anyway, and a commit costs far
 * more than the statements before it (the WAL append, and now and then a
 * checkpoint). So units that queue up while a transaction runs are committed
 * together ("group commit"): one transaction, one commit for the whole batch. At
 * low load a unit runs alone at once; under load batches grow, which is when the
 * saving matters.
 *
 * A batch is all or nothing. If any unit in it fails, nothing of the batch is
 * written, and every unit is run again alone, so each caller gets exactly the
 * outcome its own unit has by itself. Units must therefore only write through the
 * repos they are given (no other side effects), which makes running one again safe.
 * Except when the batch failed because the database is unavailable (a lock another process
 * holds, a full disk: see unavailable.ts): then every unit fails with that error at once.
 * Running each again alone would fail the same way, one busy wait after another, and with
 * better-sqlite3 each wait holds the whole event loop.
 *
 * A unit waits in the queue at most `maxWaitMs` (DATABASE_ACQUIRE_TIMEOUT_MS) before its
 * batch begins; past it, it fails with DatabaseUnavailableError rather than wait behind
 * batches that are all slow.
 *
 * A unit does not get the transaction itself but the repos bound to it (`bind`, given
 * by the composition root): every unit of one transaction gets the same repos.
 */
export type Unit<R, T> = (repos: R) => Promise<T>;

/** Runs `unit` atomically in one transaction, handing it the repos bound to that transaction. */
export type Transact<R> = <T>(unit: Unit<R, T>) => Promise<T>;

export interface TransactionRunner<R> {
  run: Transact<R>;
}

/** Makes the repos a unit of work gets, over its transaction. */
export type BindRepos<R> = (trx: Transaction<DB>) => R;

export function createDirectRunner<R>(db: Kysely<DB>, bind: BindRepos<R>): TransactionRunner<R> {
  return { run: (unit) => db.transaction().execute((trx) => unit(bind(trx))) };
}

interface Queued<R> {
  unit: Unit<R, unknown>;
  resolve(value: unknown): void;
  reject(error: unknown): void;
}

export function createGroupCommitRunner<R>(db: Kysely<DB>, bind: BindRepos<R>, options: { maxBatch?: number; maxWaitMs?: number } = {}): TransactionRunner<R> {
  // Bounds how long the last unit of a batch waits for the first ones.
  const maxBatch = options.maxBatch ?? 32;
  const maxWaitMs = options.maxWaitMs ?? Infinity;

  async function runAlone(item: Queued<R>): Promise<void> {
    try {
      item.resolve(await db.transaction().execute((trx) => item.unit(bind(trx))));
    } catch (error) {
      item.reject(error);
    }
  }

  async function runBatch(batch: Queued<R>[]): Promise<void> {
    const results: unknown[] = [];
    try {
      await db.transaction().execute(async (trx) => {
        const repos = bind(trx);
        for (const item of batch) results.push(await item.unit(repos));
      });
    } catch (error) {
      if (isDatabaseUnavailable(error)) {
        for (const item of batch) item.reject(error);
        return;
      }
      for (const item of batch) await runAlone(item);
      return;
    }
    batch.forEach((item, index) => item.resolve(results[index]));
  }

  // Units that queue up while a transaction runs form the next one (db/group-commit.ts); a unit that
  // has waited past maxWaitMs for its batch fails instead of waiting behind batches that are all slow.
  const group = createGroupCommit<Queued<R>>((batch) => (batch.length === 1 ? runAlone(batch[0]!) : runBatch(batch)), {
    maxBatch,
    maxWaitMs,
    expire: (item) => item.reject(new DatabaseUnavailableError(`Waited more than ${maxWaitMs} ms for the database.`)),
  });

  return {
    run: <T>(unit: Unit<R, T>) =>
      new Promise<T>((resolve, reject) => group.add({ unit, resolve: resolve as (value: unknown) => void, reject })),
  };
}
