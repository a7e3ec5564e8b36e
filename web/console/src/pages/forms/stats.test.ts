import { describe, expect, it } from 'vitest';
import type { FormStats } from '../../api/types';
import { busiestDay, chartBars, formatDay } from './stats';

const days = (counts: Array<[number, number]>): FormStats => ({
  from: '2026-11-01', to: '2026-11-03', views: 0, submissions: 0,
  days: counts.map(([views, submissions], i) => ({ day: `2026-11-0${i + 1}`, views, submissions })),
});

describe('form stats chart', () => {
  it('scales every bar to the busiest day, views and submissions alike', () => {
    const bars = chartBars(days([[100, 10], [50, 5], [0, 0]]), 60);
    expect(bars.map((b) => [b.viewsHeight, b.submissionsHeight])).toEqual([[60, 6], [30, 3], [0, 0]]);
  });

  it('keeps a day with a little traffic visible, and a month without traffic flat', () => {
    expect(chartBars(days([[1000, 1], [0, 0]]), 60)[0]).toMatchObject({ viewsHeight: 60, submissionsHeight: 1 });
    expect(chartBars(days([[0, 0], [0, 0]]), 60).every((b) => b.viewsHeight === 0 && b.submissionsHeight === 0)).toBe(true);
  });

  it('names the busiest day by submissions, then views; none without traffic', () => {
    expect(busiestDay(days([[10, 1], [50, 1], [5, 0]]))?.day).toBe('2026-11-02');
    expect(busiestDay(days([[10, 2], [50, 1]]))?.day).toBe('2026-11-01');
    expect(busiestDay(days([[0, 0]]))).toBeUndefined();
  });

  it('shows a UTC day as that date wherever the browser is', () => {
    expect(formatDay('2026-11-03')).toMatch(/3/);
    expect(formatDay('not a day')).toBe('not a day');
  });
});
