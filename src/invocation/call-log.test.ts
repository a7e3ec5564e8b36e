import { describe, expect, it, vi } from 'vitest';
import type { ToolCallsTable } from '../db/tables.js';
import { DatabaseUnavailableError } from '../db/unavailable.js';
import { AppError } from '../http/errors.js';
import { callNotLogged, createCallLog } from './call-log.js';

function row(n: number): ToolCallsTable {
  return {
    id: `call_${n}`, org_id: 'org_1', agent_id: 'agt_1', tool_id: 'tool_1', revision_id: 'rev_1', installation_id: 'inst_1',
    path: 'operator', outcome: 'OK', http_status: 200, duration_ms: 5, request_bytes: 10, response_bytes: 20, created_at: new Date(0).toISOString(),
    conversation_id: null,
  };
}

/** A repo whose inserts finish when the test says: each call is recorded with its rows and a way to settle it. */
function heldRepo() {
  const inserts: Array<{ ids: string[]; succeed(): void; fail(error: Error): void }> = [];
  return {
    inserts,
    batches: () => inserts.map((insert) => insert.ids),
    repo: {
      insertCalls: (rows: ToolCallsTable[]) =>
        new Promise<void>((resolve, reject) => inserts.push({ ids: rows.map((r) => r.id), succeed: resolve, fail: reject })),
    },
  };
}

/** Lets a few turns of the event loop pass (each batch is taken in a setImmediate), without any clock. */
async function settle(): Promise<void> {
  for (let turn = 0; turn < 5; turn++) await new Promise((resolve) => setImmediate(resolve));
}

/** Watches a promise without awaiting it. */
function track(promise: Promise<unknown>) {
  const state = { settled: 'pending' as 'pending' | 'fulfilled' | 'rejected', error: undefined as unknown };
  promise.then(() => { state.settled = 'fulfilled'; }, (error: unknown) => { state.settled = 'rejected'; state.error = error; });
  return state;
}

describe('call log', () => {
  it('resolves a caller only after the insert of its row resolved', async () => {
    const held = heldRepo();
    const log = createCallLog({ repo: held.repo, log: { error: vi.fn(), warn: vi.fn() } });
    const written = track(log.write(row(1)));
    await settle();
    expect(held.batches()).toEqual([['call_1']]);
    expect(written.settled).toBe('pending');
    held.inserts[0]!.succeed();
    await settle();
    expect(written.settled).toBe('fulfilled');
  });

  it('writes at once when the database is idle: no timer stands between a call and its row', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'setInterval'] });
    try {
      const inserted: string[][] = [];
      const log = createCallLog({ repo: { insertCalls: async (rows) => { inserted.push(rows.map((r) => r.id)); } }, log: { error: vi.fn(), warn: vi.fn() } });
      // With the timers frozen, only a write that waits for none can finish.
      await log.write(row(1));
      expect(inserted).toEqual([['call_1']]);
    } finally {
      vi.useRealTimers();
    }
  });

  it('puts the rows that arrive while a batch is being written into the next multi-row insert, up to the batch size', async () => {
    const held = heldRepo();
    const log = createCallLog({ repo: held.repo, log: { error: vi.fn(), warn: vi.fn() }, maxBatch: 4 });
    // Three calls answered in the same turn of the event loop: one insert.
    const first = [1, 2, 3].map((n) => track(log.write(row(n))));
    await settle();
    expect(held.batches()).toEqual([['call_1', 'call_2', 'call_3']]);
    // Six more while it is being written: they wait for it, then go in batches of at most four.
    const next = [4, 5, 6, 7, 8, 9].map((n) => track(log.write(row(n))));
    await settle();
    expect(held.batches()).toHaveLength(1);
    held.inserts[0]!.succeed();
    await settle();
    expect(first.map((w) => w.settled)).toEqual(['fulfilled', 'fulfilled', 'fulfilled']);
    expect(held.batches()).toEqual([['call_1', 'call_2', 'call_3'], ['call_4', 'call_5', 'call_6', 'call_7']]);
    expect(next.map((w) => w.settled)).toEqual(Array(6).fill('pending'));
    held.inserts[1]!.succeed();
    await settle();
    expect(held.batches()[2]).toEqual(['call_8', 'call_9']);
    held.inserts[2]!.succeed();
    await settle();
    expect(next.map((w) => w.settled)).toEqual(Array(6).fill('fulfilled'));
  });

  it('rejects the callers of a failed insert, and only them, and logs the failure once', async () => {
    const held = heldRepo();
    const error = vi.fn();
    const log = createCallLog({ repo: held.repo, log: { error, warn: vi.fn() } });
    const a = track(log.write(row(1)));
    await settle();
    const [b, c] = [track(log.write(row(2))), track(log.write(row(3)))];
    held.inserts[0]!.succeed();
    await settle();
    const d = track(log.write(row(4)));
    const refused = new Error('disk full');
    held.inserts[1]!.fail(refused);
    await settle();
    expect(held.batches()).toEqual([['call_1'], ['call_2', 'call_3'], ['call_4']]);
    held.inserts[2]!.succeed();
    await settle();
    expect([a, b, c, d].map((w) => w.settled)).toEqual(['fulfilled', 'rejected', 'rejected', 'fulfilled']);
    expect(b.error).toBe(refused);
    expect(c.error).toBe(refused);
    expect(error).toHaveBeenCalledTimes(1);
    expect(error).toHaveBeenCalledWith(expect.objectContaining({ err: refused, rows: 2 }), expect.stringContaining('503'));
  });

  it('logs a database outage as one warning with its reason, not as an error with a stack', async () => {
    const held = heldRepo();
    const [error, warn] = [vi.fn(), vi.fn()];
    const log = createCallLog({ repo: held.repo, log: { error, warn } });
    const a = track(log.write(row(1)));
    await settle();
    held.inserts[0]!.fail(Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' }));
    await settle();
    expect(a.settled).toBe('rejected');
    expect(error).not.toHaveBeenCalled();
    expect(warn).toHaveBeenCalledWith({ reason: 'ECONNREFUSED: connect ECONNREFUSED 127.0.0.1:5432', rows: 1 }, expect.stringContaining('503'));
  });

  it('fails the calls whose rows waited past the acquire limit for their insert to begin, and only them', async () => {
    const held = heldRepo();
    const log = createCallLog({ repo: held.repo, log: { error: vi.fn(), warn: vi.fn() }, maxWaitMs: 50 });
    const first = track(log.write(row(1)));
    await settle();
    // Queued behind an insert that does not finish (a database that stopped answering).
    const waiting = track(log.write(row(2)));
    await new Promise((resolve) => setTimeout(resolve, 120));
    held.inserts[0]!.succeed();
    await settle();
    expect(first.settled).toBe('fulfilled');
    expect(waiting.settled).toBe('rejected');
    expect(waiting.error).toBeInstanceOf(DatabaseUnavailableError);
    expect(held.batches()).toEqual([['call_1']]);
    // The next row is written as usual.
    const next = track(log.write(row(3)));
    await settle();
    held.inserts[1]!.succeed();
    await settle();
    expect(next.settled).toBe('fulfilled');
    await expect(log.close()).resolves.toBeUndefined();
  });

  it('closes only once every row handed to it is written', async () => {
    const held = heldRepo();
    const log = createCallLog({ repo: held.repo, log: { error: vi.fn(), warn: vi.fn() } });
    void log.write(row(1));
    await settle();
    void log.write(row(2));
    const closed = track(log.close());
    await settle();
    expect(closed.settled).toBe('pending');
    held.inserts[0]!.succeed();
    await settle();
    expect(closed.settled).toBe('pending');
    held.inserts[1]!.succeed();
    await settle();
    expect(closed.settled).toBe('fulfilled');
    expect(held.batches()).toEqual([['call_1'], ['call_2']]);
    await expect(log.close()).resolves.toBeUndefined();
  });

  it('answers a call whose row was refused with 503, Retry-After and its callId, saying whether the endpoint was called', () => {
    const cause = new Error('SQLITE_FULL');
    const sent = callNotLogged('call_1', true, cause);
    expect(sent).toBeInstanceOf(AppError);
    expect({ code: sent.code, status: sent.status, headers: sent.headers, extra: sent.extra, cause: sent.cause }).toEqual({
      code: 'SERVICE_UNAVAILABLE', status: 503, headers: { 'Retry-After': '5' }, extra: { callId: 'call_1' }, cause,
    });
    expect(sent.message).toMatch(/endpoint was called.*calls the endpoint again/);
    expect(callNotLogged('call_2', false, cause).message).toMatch(/Nothing was sent to the tool/);
  });
});
