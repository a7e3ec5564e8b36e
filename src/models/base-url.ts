import { isIP } from 'node:net';
import { AppError } from '../http/errors.js';
import { isPublicAddress } from '../net/address-policy.js';
import { checkEndpoint, parseEndpoint, type EndpointPolicy } from '../net/endpoint-check.js';
import { resolveWithin } from '../net/resolver.js';
import type { ProviderKind } from './schema.js';

/**
 * A provider's base URL is checked by the tool endpoints' own policy (net/endpoint-check.ts, purpose
 * `save`: a name that does not resolve yet is accepted; the model client will check every address
 * again when it connects). This file only words the refusals for `baseUrl` and adds the one thing
 * tools never allow: with MODEL_ALLOW_PRIVATE_ENDPOINTS=1, plain http:// to a local model server.
 */

export const DEFAULT_BASE_URLS: Record<ProviderKind, string | undefined> = {
  openai: 'https://api.openai.com/v1',
  anthropic: 'https://api.anthropic.com/v1',
  'openai-compatible': undefined,
};

/** MODEL_ALLOW_PRIVATE_ENDPOINTS as `allowPrivate`, with the same resolver the tool endpoints use. */
export type BaseUrlPolicy = EndpointPolicy;

const DNS_TIMEOUT_MS = 5000;

function refuse(message: string): AppError {
  return new AppError('ENDPOINT_NOT_ALLOWED', message, { field: 'baseUrl' });
}

/** The endpoint policy's refusal, said of a base URL. */
function reworded(error: unknown): unknown {
  if (!(error instanceof AppError) || error.code !== 'ENDPOINT_NOT_ALLOWED') return error;
  return refuse(error.message.replace(/^The endpoint/, 'The base URL').replace(/Tool endpoints must/, 'Model provider base URLs must'));
}

/** Whether the host is a loopback name or an address (or, for a name, every address it resolves to) that is not public. */
async function isLocalHost(host: string, policy: BaseUrlPolicy): Promise<boolean> {
  const name = host.replace(/\.$/, '').toLowerCase();
  if (name === 'localhost' || name.endsWith('.localhost')) return true;
  if (isIP(host) !== 0) return !isPublicAddress(host);
  const resolution = await resolveWithin(policy.resolver, host, policy.dnsTimeoutMs ?? DNS_TIMEOUT_MS);
  return resolution.ok && resolution.addresses.every((address) => !isPublicAddress(address));
}

/**
 * The base URL to store (no trailing slash), or ENDPOINT_NOT_ALLOWED (field `baseUrl`). https:// and
 * public unless `policy.allowPrivate`; then also http:// to a host that is local: plaintext carries
 * the API key, so never to a public address, even in development.
 */
export async function checkBaseUrl(raw: string, policy: BaseUrlPolicy): Promise<string> {
  const value = raw.trim();
  if (!URL.canParse(value)) throw refuse('The base URL is not a valid URL. Use a full address like https://api.openai.com/v1.');
  const plainHttp = /^http:\/\//i.test(value);
  // The endpoint rules' syntax, on the https form of a plain http:// URL (its own check refuses http).
  const syntaxOf = plainHttp ? value.replace(/^http:/i, 'https:') : value;
  let url: URL;
  try {
    url = parseEndpoint(syntaxOf);
  } catch (error) {
    if (plainHttp && !policy.allowPrivate) throw refuse('The base URL must use https://. Plain http:// is only for a local model server, with MODEL_ALLOW_PRIVATE_ENDPOINTS=1 in development.');
    if (error instanceof AppError && /user name or password/.test(error.message)) throw refuse('The base URL must not contain a user name or password: give the key as apiKey.');
    throw reworded(error);
  }
  if (value.includes('?')) throw refuse('The base URL must not have a query (?…): the client adds paths such as /chat/completions to it.');
  if (plainHttp) {
    if (!policy.allowPrivate) throw refuse('The base URL must use https://. Plain http:// is only for a local model server, with MODEL_ALLOW_PRIVATE_ENDPOINTS=1 in development.');
    const host = url.hostname.startsWith('[') ? url.hostname.slice(1, -1) : url.hostname;
    if (!(await isLocalHost(host, policy))) {
      throw refuse(`Plain http:// is only for a model server on a private or loopback address, and ${host} is not one: the API key would cross the internet unencrypted. Use https://.`);
    }
  } else {
    try {
      await checkEndpoint(value, policy, 'save');
    } catch (error) {
      throw reworded(error);
    }
  }
  // Parsed again as http, so its default port is 80 (the https form would have dropped an explicit :443).
  const href = plainHttp ? new URL(value).href : url.href;
  return href.replace(/\/+$/, '');
}
