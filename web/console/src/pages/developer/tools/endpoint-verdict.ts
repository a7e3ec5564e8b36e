import type { components } from '../../../api/schema';

/** The answer of POST /api/dev/tools/endpoint-check, in words for the editor. */
export type EndpointVerdict = components['schemas']['EndpointVerdict'];
type Address = EndpointVerdict['addresses'][number];

export function addressText(a: Address): string {
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

export const verdictText = (p: EndpointVerdict['save']) => (p.accepted ? 'accepted' : `refused: ${p.message ?? ''}`);

