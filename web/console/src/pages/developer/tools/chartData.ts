import type { ToolCallDay } from './toolPageApi';

/** OK first, then the failure kinds seen in the period, most frequent first. */
export function outcomesOf(days: ToolCallDay[]): string[] {
  const totals = new Map<string, number>();
  for (const day of days) for (const [outcome, count] of Object.entries(day.outcomes)) totals.set(outcome, (totals.get(outcome) ?? 0) + count);
  const failures = [...totals.entries()].filter(([o]) => o !== 'OK').sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0])).map(([o]) => o);
  return totals.has('OK') ? ['OK', ...failures] : failures;
}
