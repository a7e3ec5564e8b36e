import { describe, expect, it } from 'vitest';
import { outcomesOf } from './chartData';
import type { ToolCallDay } from './toolPageApi';

const day = (date: string, outcomes: Record<string, number>): ToolCallDay => {
  const calls = Object.values(outcomes).reduce((a, b) => a + b, 0);
  return { date, calls, errors: calls - (outcomes.OK ?? 0), errorRate: 0, p50Ms: calls ? 1 : null, p95Ms: calls ? 1 : null, outcomes };
};

describe('the series of the calls chart', () => {
  it('puts OK first, then the failure kinds of the period, most frequent first', () => {
    const days = [day('2026-11-01', { TOOL_TIMEOUT: 1, OK: 5 }), day('2026-11-02', {}), day('2026-11-03', { TOOL_HTTP_ERROR: 2, TOOL_TIMEOUT: 2 })];
    expect(outcomesOf(days)).toEqual(['OK', 'TOOL_TIMEOUT', 'TOOL_HTTP_ERROR']);
  });

  it('has no OK series when nothing succeeded, and none at all without calls', () => {
    expect(outcomesOf([day('2026-11-01', { TOOL_UNREACHABLE: 3 })])).toEqual(['TOOL_UNREACHABLE']);
    expect(outcomesOf([day('2026-11-01', {})])).toEqual([]);
  });
});
