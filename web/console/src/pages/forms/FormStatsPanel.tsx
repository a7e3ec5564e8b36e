import { useQuery } from '@tanstack/react-query';
import { api, seg } from '../../api/client';
import { queryKeys } from '../../api/lists';
import type { FormStats } from '../../api/types';
import { TableWrap } from '../../components/TableWrap';
import { conversion, plural } from '../../lib/format';
import { busiestDay, chartBars, formatDay } from './stats';
import './form-stats.css';

const CHART_HEIGHT = 60;
/** Each day is a slot of 10 units: the views bar, then the submissions bar. */
const SLOT = 10;

/** The form's last 30 days: totals, conversion, a bar per day, and the same numbers as a table. */
export function FormStatsPanel({ formId }: { formId: string }) {
  const stats = useQuery({ queryKey: queryKeys.formStats(formId), queryFn: () => api.get<FormStats>(`/api/org/forms/${seg(formId)}/stats`) });
  // The submissions list is the page's point: a failed chart says so quietly and does not block it.
  if (stats.isPending) return null;
  if (stats.isError) return <p className="muted small">The last 30 days could not be loaded: {stats.error.message}</p>;
  return <StatsBody stats={stats.data} />;
}

function StatsBody({ stats }: { stats: FormStats }) {
  const bars = chartBars(stats, CHART_HEIGHT);
  const busiest = busiestDay(stats);
  const summary =
    stats.views === 0 && stats.submissions === 0
      ? `No views or submissions from ${formatDay(stats.from)} to ${formatDay(stats.to)}.`
      : `${plural(stats.views, 'view')} and ${plural(stats.submissions, 'submission')} from ${formatDay(stats.from)} to ${formatDay(stats.to)}` +
        (busiest ? `; the busiest day was ${formatDay(busiest.day)}, with ${plural(busiest.views, 'view')} and ${plural(busiest.submissions, 'submission')}.` : '.');
  return (
    <section className="card form-stats" aria-labelledby="form-stats-title">
      <h2 id="form-stats-title" className="card-title">
        Last 30 days
      </h2>
      <dl className="stat-figures">
        <div>
          <dt>Views</dt>
          <dd>{stats.views.toLocaleString()}</dd>
        </div>
        <div>
          <dt>Submissions</dt>
          <dd>{stats.submissions.toLocaleString()}</dd>
        </div>
        <div>
          <dt>Conversion</dt>
          <dd>{conversion(stats.views, stats.submissions)}</dd>
        </div>
      </dl>
      <svg className="stats-chart" viewBox={`0 0 ${bars.length * SLOT} ${CHART_HEIGHT}`} preserveAspectRatio="none" role="img" aria-label={summary}>
        {bars.map((bar, i) => (
          <g key={bar.day}>
            <rect className="bar-views" x={i * SLOT + 1} y={CHART_HEIGHT - bar.viewsHeight} width={4} height={bar.viewsHeight} />
            <rect className="bar-submissions" x={i * SLOT + 5} y={CHART_HEIGHT - bar.submissionsHeight} width={4} height={bar.submissionsHeight} />
          </g>
        ))}
      </svg>
      <p className="stats-legend small" aria-hidden="true">
        <span className="key key-views" /> Views <span className="key key-submissions" /> Submissions
        <span className="stats-range">
          {formatDay(stats.from)} – {formatDay(stats.to)}
        </span>
      </p>
      <details className="history">
        <summary>Day by day</summary>
        <TableWrap label="Views and submissions by day">
          <table>
            <caption className="visually-hidden">Views and submissions by day, oldest first</caption>
            <thead>
              <tr>
                <th scope="col">Day</th>
                <th scope="col">Views</th>
                <th scope="col">Submissions</th>
                <th scope="col">Conversion</th>
              </tr>
            </thead>
            <tbody>
              {stats.days.map((d) => (
                <tr key={d.day}>
                  <th scope="row">{formatDay(d.day)}</th>
                  <td>{d.views.toLocaleString()}</td>
                  <td>{d.submissions.toLocaleString()}</td>
                  <td>{conversion(d.views, d.submissions)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </TableWrap>
      </details>
    </section>
  );
}
