import type { FormStats } from '../../api/types';

export interface ChartBar {
  day: string;
  views: number;
  submissions: number;
  /** Bar heights in chart units (0–`height`), views and submissions on one scale. */
  viewsHeight: number;
  submissionsHeight: number;
}

/**
 * The 30 days as bars on one scale (the busiest day's views fill the chart). A day with any
 * traffic keeps at least one unit, so it never looks like a day without any.
 */
export function chartBars(stats: FormStats, height: number): ChartBar[] {
  const top = Math.max(1, ...stats.days.map((d) => Math.max(d.views, d.submissions)));
  const scale = (count: number) => (count === 0 ? 0 : Math.max(1, Math.round((count / top) * height)));
  return stats.days.map((d) => ({ ...d, viewsHeight: scale(d.views), submissionsHeight: scale(d.submissions) }));
}

/** "Nov 3", in the browser's language; the day is a UTC date, and is shown as that date. */
const dayLabel = new Intl.DateTimeFormat(undefined, { month: 'short', day: 'numeric', timeZone: 'UTC' });
export function formatDay(day: string): string {
  const date = new Date(`${day}T00:00:00Z`);
  return Number.isNaN(date.getTime()) ? day : dayLabel.format(date);
}

/** The busiest day by submissions (then views), for the chart's summary; undefined when there was no traffic. */
export function busiestDay(stats: FormStats): FormStats['days'][number] | undefined {
  let best: FormStats['days'][number] | undefined;
  for (const d of stats.days) {
    if (d.views === 0 && d.submissions === 0) continue;
    if (!best || d.submissions > best.submissions || (d.submissions === best.submissions && d.views > best.views)) best = d;
  }
  return best;
}
