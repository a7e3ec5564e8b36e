import type { FastifyBaseLogger } from 'fastify';
import { createGroupCommit } from '../db/group-commit.js';
import { DatabaseUnavailableError, failureFields } from '../db/unavailable.js';
import type { ToolCallsTable } from '../db/tables.js';
import { AppError } from '../http/errors.js';
import type { Transact } from '../db/transaction-runner.js';
import { CALLS_PER_STATEMENT, type InvocationRepo } from './repo.js';
import { recordToolCallFailed, emitsToolCallFailed, type ToolCallEventRepos } from './webhook-events.js';

/**
 * The call log. A call's answer waits for its row: `write` resolves once the row is committed,
 * so a caller who received a result (or a failure with a `callId`) can rely on the row being
 * there, after a crash too. Rows are group-committed (db/group-commit.ts, the mechanism of the
 * submissions' transaction runner): rows that arrive while a batch is being inserted go together
 * in the next multi-row insert, one statement and one commit, so the log keeps up with the calls
 * under load, and an idle database writes a row at once, with no fixed delay. A failed insert
 * rejects the callers of that batch, and only them. Rows carry no payloads.
 */
export interface CallLog {
  /**
   * Resolves once `row` is committed; rejects (with the database's error) when it could not be.
   * `toolName`: the tool's name, for the `tool_call.failed` webhook event of a failed call.
   */
  write(row: ToolCallsTable, toolName?: string): Promise<void>;
  /** Resolves once every row handed to `write` so far is committed or refused: the app's close awaits it before the database closes. */
  close(): Promise<void>;
}

interface Pending {
  row: ToolCallsTable;
  toolName: string | undefined;
  resolve(): void;
  reject(error: unknown): void;
}

export function createCallLog(deps: {
  repo: { insertCalls(rows: ToolCallsTable[]): Promise<unknown> };
  log: Pick<FastifyBaseLogger, 'error' | 'warn'>;
  /** At most one statement's worth (repo.ts), so a batch is written or refused as a whole. */
  maxBatch?: number;
  /** How long a row may wait for its insert to begin (DATABASE_ACQUIRE_TIMEOUT_MS); past it, its call fails like a refused row. */
  maxWaitMs?: number;
  /**
   * Units of work in a transaction: a batch holding a failed call is inserted in one, with the
   * failed calls' `tool_call.failed` events (webhooks/outbox.ts), so a row and its event commit
   * together. A batch of OK calls never needs it and is written as before. Absent (tests of the
   * batching alone): no events.
   */
  transact?: Transact<ToolCallEventRepos & { invocation: Pick<InvocationRepo, 'insertCalls'> }> | undefined;
  /** Told of every row handed in (metrics: each tool call's outcome, path and duration). */
  onWrite?: ((row: ToolCallsTable) => void) | undefined;
}): CallLog {
  const maxBatch = Math.min(deps.maxBatch ?? CALLS_PER_STATEMENT, CALLS_PER_STATEMENT);

  async function commit(batch: Pending[]): Promise<void> {
    try {
      const rows = batch.map((pending) => pending.row);
      const failed = deps.transact ? batch.filter((pending) => emitsToolCallFailed(pending.row)) : [];
      if (failed.length === 0) {
        await deps.repo.insertCalls(rows);
      } else {
        await deps.transact!(async (repos) => {
          await repos.invocation.insertCalls(rows);
          await recordToolCallFailed(repos, failed);
        });
      }
    } catch (error) {
      // An outage is a warning (its reason, one line); anything else is a bug of ours, with its stack.
      const fields = { ...failureFields(error), rows: batch.length };
      const message = 'could not write tool call log rows; their calls are answered 503 SERVICE_UNAVAILABLE';
      if ('reason' in fields) deps.log.warn(fields, message);
      else deps.log.error(fields, message);
      for (const pending of batch) pending.reject(error);
      return;
    }
    for (const pending of batch) pending.resolve();
  }

  const group = createGroupCommit(commit, {
    maxBatch,
    ...(deps.maxWaitMs !== undefined ? { maxWaitMs: deps.maxWaitMs } : {}),
    expire: (pending) => pending.reject(new DatabaseUnavailableError(`Waited more than ${deps.maxWaitMs} ms for the database.`)),
  });

  return {
    write: (row, toolName) => {
      deps.onWrite?.(row);
      return new Promise<void>((resolve, reject) => group.add({ row, toolName, resolve, reject }));
    },
    close: () => group.drained(),
  };
}

/**
 * Seconds a caller is asked to wait when a call's row could not be written: the database has just
 * refused a write (an outage, a full disk, a lock held elsewhere), which a retry within a second or
 * two would most likely meet again.
 */
export const CALL_LOG_RETRY_AFTER_SECONDS = 5;

/**
 * What a caller gets when its call's row could not be committed: 503 SERVICE_UNAVAILABLE with
 * `Retry-After` and the `callId`, instead of the outcome, since an answer is only given for a
 * logged call. `sent` says whether the tool's endpoint was called, which the caller needs to
 * know before calling again (the endpoint would see the call twice).
 */
export function callNotLogged(callId: string, sent: boolean, cause: unknown): AppError {
  const what = sent
    ? 'The tool\'s endpoint was called, but the call could not be recorded in the call log, so its outcome is withheld. Calling again calls the endpoint again.'
    : 'The call could not be recorded in the call log. Nothing was sent to the tool.';
  return new AppError('SERVICE_UNAVAILABLE', `${what} Try again in a few seconds.`, {
    headers: { 'Retry-After': String(CALL_LOG_RETRY_AFTER_SECONDS) },
    extra: { callId },
    cause,
  });
}
