import { useQuery } from '@tanstack/react-query';
import { useId } from 'react';
import { LoadError, Loading } from '../../../components/QueryState';
import { TableWrap } from '../../../components/TableWrap';
import { formatDate } from '../../../lib/format';
import { outcomeLabel } from '../../tools/format';
import { outcomesOf } from './chartData';
import { fetchStats, toolPageKeys, type ToolCallDay } from './toolPageApi';

/**
 * Two small SVG charts drawn by hand (no chart library: two charts of 30 points are ~150 lines, a library
 * would add tens of KB to the page). Each is an image with a title and a description that states the
 * totals, and its numbers are in a table beside it for screen readers and anyone who prefers numbers.
 */

const W = 600;
const H = 180;
const PAD = { left: 44, right: 8, top: 10, bottom: 24 };
const plotW = W - PAD.left - PAD.right;
const plotH = H - PAD.top - PAD.bottom;
/** Colour classes for outcomes, OK first (tool-page.css): more than six outcomes share the last. */
const SERIES = 6;

const shortDay = (date: string) => formatDate(`${date}T12:00:00Z`);

export function StatsSection({ toolId }: { toolId: string }) {
  const stats = useQuery({ queryKey: toolPageKeys.stats(toolId), queryFn: ({ signal }) => fetchStats(toolId, signal) });
  return (
    <section className="card" aria-labelledby="tool-stats-title">
      <h2 id="tool-stats-title">Last 30 days</h2>
      <p className="small muted">Businesses&rsquo; calls only (UTC days): your test calls are not counted.</p>
      {stats.isPending ? <Loading label="Loading statistics…" /> : stats.isError ? <LoadError error={stats.error} retry={() => void stats.refetch()} /> : <Charts days={stats.data.days} />}
    </section>
  );
}

function Charts({ days }: { days: ToolCallDay[] }) {
  const total = days.reduce((sum, day) => sum + day.calls, 0);
  if (!total) return <p>No calls in the last 30 days.</p>;
  return (
    <>
      <CallsChart days={days} />
      <LatencyChart days={days} />
    </>
  );
}

function CallsChart({ days }: { days: ToolCallDay[] }) {
  const id = useId();
  const outcomes = outcomesOf(days);
  const max = Math.max(1, ...days.map((day) => day.calls));
  const slot = plotW / days.length;
  const totals = outcomes.map((outcome) => [outcome, days.reduce((sum, day) => sum + (day.outcomes[outcome] ?? 0), 0)] as const);
  const total = days.reduce((sum, day) => sum + day.calls, 0);
  const description = `${total.toLocaleString()} calls from ${shortDay(days[0]!.date)} to ${shortDay(days.at(-1)!.date)}: ${totals.map(([o, n]) => `${outcomeLabel(o)} ${n.toLocaleString()}`).join(', ')}. Busiest day: ${shortDay(days.reduce((a, b) => (b.calls > a.calls ? b : a)).date)} with ${max.toLocaleString()}.`;

  return (
    <figure className="tool-chart">
      <svg viewBox={`0 0 ${W} ${H}`} role="img" aria-labelledby={`${id}-title ${id}-desc`}>
        <title id={`${id}-title`}>Calls per day by outcome</title>
        <desc id={`${id}-desc`}>{description}</desc>
        <Axes max={max} unit="" first={days[0]!.date} last={days.at(-1)!.date} />
        {days.map((day, i) => {
          let y = PAD.top + plotH;
          return (
            <g key={day.date}>
              {outcomes.map((outcome, s) => {
                const count = day.outcomes[outcome] ?? 0;
                if (!count) return null;
                const h = (count / max) * plotH;
                y -= h;
                return <rect key={outcome} className={`tool-chart-s${Math.min(s, SERIES - 1)}`} x={PAD.left + i * slot + 1} y={y} width={Math.max(1, slot - 2)} height={h} />;
              })}
            </g>
          );
        })}
      </svg>
      <figcaption>
        <ul className="tool-chart-legend">
          {outcomes.map((outcome, s) => (
            <li key={outcome}>
              <svg viewBox="0 0 10 10" className="tool-chart-swatch" aria-hidden="true">
                <rect className={`tool-chart-s${Math.min(s, SERIES - 1)}`} width="10" height="10" />
              </svg>
              {outcomeLabel(outcome)} {outcome !== 'OK' ? <code>{outcome}</code> : null}
            </li>
          ))}
        </ul>
      </figcaption>
      <details>
        <summary>Calls per day as a table</summary>
        <TableWrap label="Calls per day">
          <table>
            <caption className="visually-hidden">Calls per day by outcome</caption>
            <thead>
              <tr>
                <th scope="col">Day</th>
                <th scope="col" className="num">Calls</th>
                {outcomes.map((outcome) => (
                  <th key={outcome} scope="col" className="num">
                    {outcomeLabel(outcome)}
                  </th>
                ))}
              </tr>
            </thead>
            <tbody>
              {days.filter((day) => day.calls > 0).map((day) => (
                <tr key={day.date}>
                  <th scope="row">{shortDay(day.date)}</th>
                  <td className="num">{day.calls.toLocaleString()}</td>
                  {outcomes.map((outcome) => (
                    <td key={outcome} className="num">
                      {(day.outcomes[outcome] ?? 0).toLocaleString()}
                    </td>
                  ))}
                </tr>
              ))}
            </tbody>
          </table>
        </TableWrap>
        <p className="small muted">Days without calls are left out.</p>
      </details>
    </figure>
  );
}

function LatencyChart({ days }: { days: ToolCallDay[] }) {
  const id = useId();
  const max = Math.max(1, ...days.map((day) => day.p95Ms ?? 0));
  const slot = plotW / days.length;
  const x = (i: number) => PAD.left + i * slot + slot / 2;
  const y = (ms: number) => PAD.top + plotH - (ms / max) * plotH;
  /** A line through the days that have a value; a day without calls breaks it. */
  const path = (pick: (day: ToolCallDay) => number | null) => {
    let d = '';
    let pen = false;
    days.forEach((day, i) => {
      const value = pick(day);
      if (value === null) {
        pen = false;
        return;
      }
      d += `${pen ? 'L' : 'M'}${x(i).toFixed(1)},${y(value).toFixed(1)}`;
      pen = true;
    });
    return d;
  };
  const withCalls = days.filter((day) => day.p50Ms !== null);
  const worst = withCalls.reduce((a, b) => ((b.p95Ms ?? 0) > (a.p95Ms ?? 0) ? b : a));
  const latest = withCalls.at(-1)!;
  const description = `On ${withCalls.length} days with calls. Latest, ${shortDay(latest.date)}: median ${latest.p50Ms} ms, 95th percentile ${latest.p95Ms} ms. Slowest 95th percentile: ${worst.p95Ms} ms on ${shortDay(worst.date)}.`;

  return (
    <figure className="tool-chart">
      <svg viewBox={`0 0 ${W} ${H}`} role="img" aria-labelledby={`${id}-title ${id}-desc`}>
        <title id={`${id}-title`}>Latency per day, median and 95th percentile</title>
        <desc id={`${id}-desc`}>{description}</desc>
        <Axes max={max} unit=" ms" first={days[0]!.date} last={days.at(-1)!.date} />
        <path className="tool-chart-p95" d={path((day) => day.p95Ms)} />
        <path className="tool-chart-p50" d={path((day) => day.p50Ms)} />
        {days.map((day, i) =>
          day.p50Ms === null ? null : (
            <g key={day.date}>
              <circle className="tool-chart-p95-dot" cx={x(i)} cy={y(day.p95Ms ?? 0)} r="3" />
              <circle className="tool-chart-p50-dot" cx={x(i)} cy={y(day.p50Ms)} r="3" />
            </g>
          ),
        )}
      </svg>
      <figcaption>
        <ul className="tool-chart-legend">
          <li>
            <svg viewBox="0 0 20 10" className="tool-chart-swatch wide" aria-hidden="true">
              <path className="tool-chart-p50" d="M0,5L20,5" />
            </svg>
            Median (p50), solid line
          </li>
          <li>
            <svg viewBox="0 0 20 10" className="tool-chart-swatch wide" aria-hidden="true">
              <path className="tool-chart-p95" d="M0,5L20,5" />
            </svg>
            95th percentile (p95), dashed line
          </li>
        </ul>
      </figcaption>
      <details>
        <summary>Latency per day as a table</summary>
        <TableWrap label="Latency per day">
          <table>
            <caption className="visually-hidden">Latency per day in milliseconds</caption>
            <thead>
              <tr>
                <th scope="col">Day</th>
                <th scope="col" className="num">Calls</th>
                <th scope="col" className="num">Median (ms)</th>
                <th scope="col" className="num">95th percentile (ms)</th>
              </tr>
            </thead>
            <tbody>
              {withCalls.map((day) => (
                <tr key={day.date}>
                  <th scope="row">{shortDay(day.date)}</th>
                  <td className="num">{day.calls.toLocaleString()}</td>
                  <td className="num">{day.p50Ms?.toLocaleString()}</td>
                  <td className="num">{day.p95Ms?.toLocaleString()}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </TableWrap>
      </details>
    </figure>
  );
}

/** The value axis (0 and the maximum) and the first and last day; decorative, the description says it all. */
function Axes({ max, unit, first, last }: { max: number; unit: string; first: string; last: string }) {
  const bottom = PAD.top + plotH;
  return (
    <g className="tool-chart-axes" aria-hidden="true">
      <line x1={PAD.left} y1={bottom} x2={W - PAD.right} y2={bottom} />
      <line x1={PAD.left} y1={PAD.top} x2={W - PAD.right} y2={PAD.top} className="tool-chart-grid" />
      <text x={PAD.left - 4} y={bottom} textAnchor="end" dominantBaseline="middle">0</text>
      <text x={PAD.left - 4} y={PAD.top} textAnchor="end" dominantBaseline="middle">{`${max.toLocaleString()}${unit}`}</text>
      <text x={PAD.left} y={H - 6}>{shortDay(first)}</text>
      <text x={W - PAD.right} y={H - 6} textAnchor="end">{shortDay(last)}</text>
    </g>
  );
}
