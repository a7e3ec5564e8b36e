import { useQuery } from '@tanstack/react-query';
import { useEffect, useState } from 'react';
import { api } from '../../../api/client';
import { addressText, summary, verdictText, type EndpointVerdict } from './endpoint-verdict';

/**
 * How long typing must pause before the endpoint is checked: 600 ms lets a word be typed without a
 * request per key, and the route allows 120 checks a minute (src/tools/routes.ts, ENDPOINT_CHECKS).
 */
const PAUSE_MS = 600;
const MAX_LENGTH = 2048;

function useSettled(value: string): string {
  const [settled, setSettled] = useState(value);
  useEffect(() => {
    const timer = setTimeout(() => setSettled(value), PAUSE_MS);
    return () => clearTimeout(timer);
  }, [value]);
  return settled;
}

/**
 * The endpoint's check as it is typed (POST /api/dev/tools/endpoint-check, DNS only): after a pause in
 * typing, never blocking it. The summary is announced politely; the details stay for reading.
 */
export function EndpointCheck({ endpoint, id }: { endpoint: string; id: string }) {
  const settled = useSettled(endpoint.trim());
  const enabled = settled !== '' && settled.length <= MAX_LENGTH;
  const check = useQuery({
    queryKey: ['developer', 'endpoint-check', settled],
    queryFn: ({ signal }) => api.post<EndpointVerdict>('/api/dev/tools/endpoint-check', { endpoint: settled }, { signal }),
    enabled,
    staleTime: 30_000,
    retry: false,
  });
  const v = enabled ? check.data : undefined;
  const pending = endpoint.trim() !== settled || (enabled && check.isFetching);
  const status = !endpoint.trim() ? '' : check.isError && enabled ? `The endpoint could not be checked: ${check.error.message}` : v ? summary(v) : '';
  const internal = v ? v.addresses.some((a) => !a.public) : false;

  return (
    <div className={`endpoint-check${internal ? ' internal' : ''}`} id={id}>
      <p role="status" className="endpoint-summary">
        {status}
      </p>
      {pending && endpoint.trim() ? <p className="hint">Checking…</p> : null}
      {v && !pending ? (
        <dl className="endpoint-details">
          <dt>HTTPS</dt>
          <dd>{v.https ? 'Yes' : 'No: tool endpoints must use https://'}</dd>
          {v.host ? (
            <>
              <dt>Host</dt>
              <dd>{v.host}</dd>
            </>
          ) : null}
          {v.addresses.length ? (
            <>
              <dt>Addresses</dt>
              <dd>
                <ul>
                  {v.addresses.map((a) => (
                    <li key={a.address}>{addressText(a)}</li>
                  ))}
                </ul>
              </dd>
            </>
          ) : null}
          <dt>Saving</dt>
          <dd>{verdictText(v.save)}</dd>
          <dt>Publishing</dt>
          <dd>{verdictText(v.publish)}</dd>
        </dl>
      ) : null}
    </div>
  );
}
