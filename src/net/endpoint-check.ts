import { isIP } from 'node:net';
import { AppError } from '../http/errors.js';
import { classifyAddress, describeReason, type AddressVerdict, type InternalReason } from './address-policy.js';
import { resolveWithin, type HostResolver } from './resolver.js';

export interface EndpointPolicy {
  /** TOOL_ALLOW_PRIVATE_ENDPOINTS: local development only; https is still required. */
  allowPrivate: boolean;
  resolver: HostResolver;
  dnsTimeoutMs?: number;
}

/**
 * `save`: create and update, where a name that does not resolve yet is accepted (it may
 * not be deployed). `publish`: the name must resolve, and only to public addresses.
 */
export type EndpointCheckPurpose = 'save' | 'publish';

const DEFAULT_DNS_TIMEOUT_MS = 5000;
// Control characters are exactly what this must catch (header and request-line injection).
// eslint-disable-next-line no-control-regex
const FORBIDDEN_CHARACTERS = /[\s\u0000-\u001f\u007f]/;

function refuse(message: string): AppError {
  return new AppError('ENDPOINT_NOT_ALLOWED', message, { field: 'endpoint' });
}

function describeBlocked(verdict: Extract<AddressVerdict, { allowed: false }>): string {
  const embedded = verdict.embeddedIPv4 ? ` (which carries ${verdict.embeddedIPv4})` : '';
  return `${verdict.address}${embedded}, ${describeReason(verdict.reason)}`;
}

/** Syntax rules that hold in every mode; returns the parsed URL. */
export function parseEndpoint(raw: string): URL {
  if (FORBIDDEN_CHARACTERS.test(raw)) throw refuse('The endpoint must not contain spaces or control characters.');
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw refuse('The endpoint is not a valid URL. Use a full address like https://api.example.com/tools/quote.');
  }
  if (url.protocol !== 'https:') throw refuse(`The endpoint must use https:// (got ${url.protocol}//).`);
  if (url.username !== '' || url.password !== '') {
    throw refuse('The endpoint must not contain a user name or password. Choose an authType instead; businesses enter credentials when they install the tool.');
  }
  if (raw.includes('#')) throw refuse('The endpoint must not contain a fragment (#…); fragments are never sent to a server.');
  if (url.port === '0') throw refuse('The endpoint port must be from 1 to 65535.');
  return url;
}

function isLocalhostName(hostname: string): boolean {
  const name = hostname.replace(/\.$/, '');
  return name === 'localhost' || name.endsWith('.localhost');
}

/**
 * Throws ENDPOINT_NOT_ALLOWED (field `endpoint`) when the URL is not https, carries
 * userinfo or a fragment, or points to an address that is not public. Every A/AAAA
 * answer must be public: one internal answer is enough for a rebinding attack.
 */
export async function checkEndpoint(raw: string, policy: EndpointPolicy, purpose: EndpointCheckPurpose): Promise<void> {
  const url = parseEndpoint(raw);
  if (policy.allowPrivate) return;

  const host = url.hostname.startsWith('[') ? url.hostname.slice(1, -1) : url.hostname;
  if (isIP(host) !== 0) {
    const verdict = classifyAddress(host);
    if (!verdict.allowed) throw refuse(`The endpoint points to ${describeBlocked(verdict)}. Tool endpoints must be public internet addresses.`);
    return;
  }
  if (isLocalhostName(host)) throw refuse(`The endpoint points to ${host}, a loopback name. Tool endpoints must be public internet addresses.`);

  const resolution = await resolveWithin(policy.resolver, host, policy.dnsTimeoutMs ?? DEFAULT_DNS_TIMEOUT_MS);
  if (!resolution.ok) {
    if (purpose === 'save') return;
    throw refuse(`The endpoint host ${host} ${resolution.problem}. A tool can be published once its name resolves to a public address.`);
  }
  for (const address of resolution.addresses) {
    const verdict = classifyAddress(address);
    if (!verdict.allowed) throw refuse(`The endpoint resolves to ${describeBlocked(verdict)}. Tool endpoints must resolve only to public internet addresses.`);
  }
}

/** One address the endpoint's host resolves to (or the host itself, when it is an IP literal), judged by the one policy. */
export type JudgedAddress =
  | { address: string; public: true }
  | { address: string; public: false; reason: InternalReason; reasonText: string; embeddedIPv4?: string };

/** Whether create/update (`save`) or publish would take the endpoint now, with the refusal they would give. */
export interface PurposeVerdict {
  accepted: boolean;
  message: string | null;
}

/**
 * What the portal's editor shows as an endpoint is typed: the URL's scheme and host, every address the
 * host resolves to with its verdict, and what save and publish would answer. DNS only, never a
 * connection. Internal addresses are named as such even when TOOL_ALLOW_PRIVATE_ENDPOINTS lets them
 * through (`allowedOnlyByPrivateSetting` then says so), so a developer learns before deploying.
 */
export interface EndpointVerdict {
  https: boolean;
  /** The host as the URL names it (IPv6 without brackets); null when the text is not a URL. */
  host: string | null;
  /** Why the text cannot be an endpoint in any mode (not https, user info, fragment…); null when it can. */
  problem: string | null;
  /** The host's addresses; an IP literal is its own one address. Empty when it was not resolved. */
  addresses: JudgedAddress[];
  /** Why the host could not be resolved ("does not resolve"…); null when it resolved or is a literal. */
  resolution: string | null;
  save: PurposeVerdict;
  publish: PurposeVerdict;
  /** Some address is internal, and save and publish accept it only because of TOOL_ALLOW_PRIVATE_ENDPOINTS. */
  allowedOnlyByPrivateSetting: boolean;
}

function judge(address: string): JudgedAddress {
  const verdict = classifyAddress(address);
  if (verdict.allowed) return { address, public: true };
  return {
    address,
    public: false,
    reason: verdict.reason,
    reasonText: describeReason(verdict.reason),
    ...(verdict.embeddedIPv4 ? { embeddedIPv4: verdict.embeddedIPv4 } : {}),
  };
}

/** Runs `checkEndpoint` and says what it answered: the verdicts below are the save and publish checks themselves. */
async function wouldAccept(raw: string, policy: EndpointPolicy, purpose: EndpointCheckPurpose): Promise<PurposeVerdict> {
  try {
    await checkEndpoint(raw, policy, purpose);
    return { accepted: true, message: null };
  } catch (error) {
    if (error instanceof AppError && error.code === 'ENDPOINT_NOT_ALLOWED') return { accepted: false, message: error.message };
    throw error;
  }
}

export async function describeEndpoint(raw: string, policy: EndpointPolicy): Promise<EndpointVerdict> {
  // One lookup per host for the description and both checks, made at once: they share its deadline.
  const lookups = new Map<string, Promise<string[]>>();
  const resolver: HostResolver = (hostname) => {
    let lookup = lookups.get(hostname);
    if (!lookup) lookups.set(hostname, (lookup = policy.resolver(hostname)));
    return lookup;
  };
  const shared: EndpointPolicy = { ...policy, resolver };

  let url: URL | null = null;
  try {
    url = new URL(raw);
  } catch {
    url = null;
  }
  let problem: string | null = null;
  try {
    parseEndpoint(raw);
  } catch (error) {
    if (!(error instanceof AppError)) throw error;
    problem = error.message;
  }
  const host = url && url.hostname !== '' ? (url.hostname.startsWith('[') ? url.hostname.slice(1, -1) : url.hostname) : null;

  // Only a URL with a host, and only an http(s) one: other schemes name no host worth a lookup.
  const describable = host !== null && url !== null && (url.protocol === 'https:' || url.protocol === 'http:') && !FORBIDDEN_CHARACTERS.test(raw);
  const described = (async (): Promise<{ addresses: JudgedAddress[]; resolution: string | null }> => {
    if (!describable) return { addresses: [], resolution: null };
    if (isIP(host) !== 0) return { addresses: [judge(host)], resolution: null };
    const resolution = await resolveWithin(resolver, host, policy.dnsTimeoutMs ?? DEFAULT_DNS_TIMEOUT_MS);
    return resolution.ok ? { addresses: resolution.addresses.map(judge), resolution: null } : { addresses: [], resolution: resolution.problem };
  })();
  const [{ addresses, resolution }, save, publish] = await Promise.all([described, wouldAccept(raw, shared, 'save'), wouldAccept(raw, shared, 'publish')]);

  return {
    https: url?.protocol === 'https:',
    host,
    problem,
    addresses,
    resolution,
    save,
    publish,
    allowedOnlyByPrivateSetting: policy.allowPrivate && problem === null && addresses.some((address) => !address.public),
  };
}
