import { isIP } from 'node:net';
import { AppError } from '../http/errors.js';
import { classifyAddress, describeReason, type AddressVerdict } from './address-policy.js';
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
