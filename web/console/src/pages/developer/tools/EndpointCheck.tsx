import { useQuery } from '@tanstack/react-query';
import { useEffect, useState } from 'react';
import { api } from '../../../api/client';
import type { components } from '../../../api/schema';

export type EndpointVerdict = components['schemas']['EndpointVerdict'];
type Address = EndpointVerdict['addresses'][number];

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

function addressText(a: Address): string {
  if (a.public) return `${a.address}: public`;
  const carried = a.embeddedIPv4 ? ` (carries ${a.embeddedIPv4})` : '';
  return `${a.address}${carried}: internal, ${a.reasonText ?? a.reason ?? 'not public'}`;
}

/** One sentence for the polite live region: the verdict, not the details (those are below it). */
export function summary(v: EndpointVerdict): string {
  if (v.problem) return v.problem;
  const internal = v.addresses.filter((a) => !a.public);
  const host = v.host ?? 'The endpoint';
  if (internal.length) {
    const first = internal[0] as Address;
    const reason = first.reasonText ?? 'not public';
    const named = host === first.address ? `${host} is internal: ${reason}.` : `${host} is internal: ${first.address} is ${reason}.`;
    return v.allowedOnlyByPrivateSetting ? `${named} Allowed here only because this server allows private endpoints (local development).` : `${named} Saving would refuse it.`;
  }
  if (v.resolution) return v.save.accepted ? `${host} ${v.resolution}: you can save it, and publish once it resolves to a public address.` : `${host} ${v.resolution}.`;
  if (v.addresses.length) return `${host} is public. Saving and publishing would accept it.`;
  return v.save.accepted ? 'Saving would accept it.' : (v.save.message ?? 'Saving would refuse it.');
}

const verdictText = (p: EndpointVerdict['save']) => (p.accepted ? 'accepted' : `refused: ${p.message ?? ''}`);

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
