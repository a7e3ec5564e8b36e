import { outcomeLabel } from './format';

/** A call's outcome in a call table: its label as a badge, and for a failure its code and the endpoint's HTTP status. */
export function CallOutcome({ call }: { call: { outcome: string; httpStatus: number | null } }) {
  return (
    <>
      <span className={`badge ${call.outcome === 'OK' ? 'on' : 'off'}`}>{outcomeLabel(call.outcome)}</span>
      {call.outcome !== 'OK' ? (
        <span className="muted small">
          {' '}
          <code>{call.outcome}</code>
        </span>
      ) : null}
      {call.httpStatus !== null ? <span className="muted small"> · HTTP {call.httpStatus}</span> : null}
    </>
  );
}
