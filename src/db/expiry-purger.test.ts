import { afterEach, describe, expect, it, vi } from 'vitest';
import { TestClock } from '../../test/support/context.js';
import { createExpiryPurger, type ExpiryPurge } from './expiry-purger.js';

const quietLog = { debug: vi.fn(), warn: vi.fn() };

/** A table of `rows` expired rows: each batch deletes up to `limit` of them. */
function fakeTable(name: string, rows: number) {
  const batches: number[] = [];
  const purge: ExpiryPurge = {
    name,
    purgeBatch: async (_now, limit) => {
      const deleted = Math.min(limit, rows);
      rows -= deleted;
      batches.push(deleted);
      return deleted;
    },
  };
  return { purge, batches, remaining: () => rows };
}

describe('expiry purger', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it('deletes in batches of at most batchSize until a batch comes back short, table after table', async () => {
    const tokens = fakeTable('access_tokens', 1250);
    const keys = fakeTable('idempotency_keys', 30);
    const purger = createExpiryPurger({ purges: [tokens.purge, keys.purge], clock: new TestClock(), log: quietLog, schedule: { batchSize: 500, pauseMs: 0 } });
    expect(await purger.runOnce()).toEqual({ access_tokens: 1250, idempotency_keys: 30 });
    expect(tokens.batches).toEqual([500, 500, 250]);
    expect(keys.batches).toEqual([30]);
    expect(tokens.remaining()).toBe(0);
  });

  it('asks with the clock’s time', async () => {
    const clock = new TestClock(Date.parse('2026-01-01T00:00:00Z'));
    const seen: string[] = [];
    const purger = createExpiryPurger({
      purges: [{ name: 't', purgeBatch: async (now) => (seen.push(now.toISOString()), 0) }],
      clock,
      log: quietLog,
    });
    clock.advance(3600_000);
    await purger.runOnce();
    expect(seen).toEqual(['2026-01-01T01:00:00.000Z']);
  });

  it('lets other work run between batches (SQLite has one writer)', async () => {
    const table = fakeTable('access_tokens', 5000);
    const purger = createExpiryPurger({ purges: [table.purge], clock: new TestClock(), log: quietLog, schedule: { batchSize: 1000, pauseMs: 0 } });
    const run = purger.runOnce();
    let batchesBeforeOtherWork = -1;
    setImmediate(() => (batchesBeforeOtherWork = table.batches.length));
    await run;
    expect(batchesBeforeOtherWork).toBe(1);
  });

  it('logs a table that fails and still purges the others', async () => {
    const log = { debug: vi.fn(), warn: vi.fn() };
    const keys = fakeTable('idempotency_keys', 3);
    const failing: ExpiryPurge = { name: 'access_tokens', purgeBatch: () => Promise.reject(new Error('database is locked')) };
    const purger = createExpiryPurger({ purges: [failing, keys.purge], clock: new TestClock(), log });
    expect(await purger.runOnce()).toEqual({ access_tokens: 0, idempotency_keys: 3 });
    expect(log.warn).toHaveBeenCalledWith(expect.objectContaining({ table: 'access_tokens', err: expect.any(Error) }), expect.any(String));
  });

  it('runs shortly after start, then every interval, on timers that do not hold the process open', async () => {
    vi.useFakeTimers();
    const table = fakeTable('access_tokens', 0);
    const purger = createExpiryPurger({ purges: [table.purge], clock: new TestClock(), log: quietLog, schedule: { firstRunAfterMs: 5000, intervalMs: 60_000 } });
    const setTimeoutSpy = vi.spyOn(globalThis, 'setTimeout');
    purger.start();
    expect(setTimeoutSpy.mock.results.map((r) => (r.value as NodeJS.Timeout).hasRef())).toEqual([false]);
    await vi.advanceTimersByTimeAsync(4999);
    expect(table.batches).toHaveLength(0);
    await vi.advanceTimersByTimeAsync(1);
    expect(table.batches).toHaveLength(1);
    await vi.advanceTimersByTimeAsync(60_000);
    expect(table.batches).toHaveLength(2);
    expect(setTimeoutSpy.mock.results.every((r) => !(r.value as NodeJS.Timeout).hasRef())).toBe(true);
    await purger.stop();
    expect(vi.getTimerCount()).toBe(0);
    await vi.advanceTimersByTimeAsync(10 * 60_000);
    expect(table.batches).toHaveLength(2);
  });

  it('stop() waits for the batch in flight and runs no further batch, in this table or the next', async () => {
    let release: () => void = () => {};
    let calls = 0;
    const slow: ExpiryPurge = {
      name: 'access_tokens',
      purgeBatch: async (_now, limit) => {
        calls++;
        await new Promise<void>((resolve) => (release = resolve));
        return limit;
      },
    };
    const next = fakeTable('idempotency_keys', 10);
    const purger = createExpiryPurger({ purges: [slow, next.purge], clock: new TestClock(), log: quietLog, schedule: { firstRunAfterMs: 0, pauseMs: 0 } });
    purger.start();
    await vi.waitFor(() => expect(calls).toBe(1));
    let stopped = false;
    const stopping = purger.stop().then(() => (stopped = true));
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(stopped).toBe(false);
    release();
    await stopping;
    expect(calls).toBe(1);
    expect(next.batches).toEqual([]);
  });
});
