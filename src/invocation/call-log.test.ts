import { afterEach, describe, expect, it, vi } from 'vitest';
import type { ToolCallsTable } from '../db/tables.js';
import { createCallLog } from './call-log.js';

function row(n: number): ToolCallsTable {
  return {
    id: `call_${n}`, org_id: 'org_1', agent_id: 'agt_1', tool_id: 'tool_1', revision_id: 'rev_1', installation_id: 'inst_1',
    path: 'operator', outcome: 'OK', http_status: 200, duration_ms: 5, request_bytes: 10, response_bytes: 20, created_at: new Date(0).toISOString(),
  };
}

describe('call log', () => {
  afterEach(() => vi.useRealTimers());

  it('returns at once and writes queued rows in one insert after the interval', async () => {
    vi.useFakeTimers();
    const inserts: ToolCallsTable[][] = [];
    const log = createCallLog({ repo: { insertCalls: async (rows) => { inserts.push(rows); } }, log: { error: vi.fn() }, flushIntervalMs: 100 });
    log.record(row(1));
    log.record(row(2));
    log.record(row(3));
    expect(inserts).toEqual([]);
    await vi.advanceTimersByTimeAsync(100);
    expect(inserts.map((batch) => batch.map((r) => r.id))).toEqual([['call_1', 'call_2', 'call_3']]);
  });

  it('writes at once when a batch is full, and what is left on close', async () => {
    const inserts: string[][] = [];
    const log = createCallLog({ repo: { insertCalls: async (rows) => { inserts.push(rows.map((r) => r.id)); } }, log: { error: vi.fn() }, flushIntervalMs: 60_000, maxBatch: 2 });
    for (let n = 1; n <= 5; n++) log.record(row(n));
    await log.close();
    expect(inserts).toEqual([['call_1', 'call_2'], ['call_3', 'call_4'], ['call_5']]);
  });

  it('logs and drops a batch the database refused, without throwing to anyone', async () => {
    const error = vi.fn();
    const log = createCallLog({ repo: { insertCalls: async () => { throw new Error('disk full'); } }, log: { error }, flushIntervalMs: 60_000 });
    log.record(row(1));
    await expect(log.flush()).resolves.toBeUndefined();
    expect(error).toHaveBeenCalledWith(expect.objectContaining({ rows: 1 }), expect.stringContaining('dropped'));
  });
});
