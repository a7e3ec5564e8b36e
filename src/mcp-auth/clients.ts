import { AppError } from '../http/errors.js';
import type { Clock } from '../lib/clock.js';
import { checkEndpoint, type EndpointPolicy } from '../net/endpoint-check.js';
import type { McpAuthRepo } from './repo.js';

/**
 * Who asks for authorization: an MCP host identified by a Client ID Metadata Document (its `client_id` is an
 * `https://` URL serving a JSON document about itself) or registered by Dynamic Client Registration (RFC 7591).
 * Both are public clients (no secret): PKCE is what binds a code to the client that asked for it.
 */
export interface McpClient {
  id: string;
  name: string;
  logoUri: string | null;
  redirectUris: string[];
}

/** A client or redirect URI we cannot trust: the browser must not be sent anywhere (RFC 6749 §4.1.2.1). */
export function untrustedClient(message: string): AppError {
  return new AppError('INVALID_CLIENT', message);
}

const MAX_DOCUMENT_BYTES = 10 * 1024;
const DOCUMENT_TIMEOUT_MS = 5000;
const MAX_CACHE_SECONDS = 24 * 3600;
const DEFAULT_CACHE_SECONDS = 300;
const MAX_CACHED = 1000;
const MAX_REDIRECT_URIS = 10;
const LOOPBACK_HOSTS = new Set(['127.0.0.1', '[::1]', 'localhost']);

function isLoopback(url: URL): boolean {
  return url.protocol === 'http:' && LOOPBACK_HOSTS.has(url.hostname);
}

/** Schemes that are not a desktop app's own: a browser would run, show or send them somewhere else. */
const NOT_APP_SCHEMES = new Set(['http:', 'javascript:', 'data:', 'vbscript:', 'file:', 'blob:', 'about:', 'ftp:', 'ws:', 'wss:', 'mailto:', 'tel:', 'sms:', 'chrome:', 'view-source:', 'filesystem:', 'intent:']);

/**
 * A redirect URI a client may register: `https://`; `http://` on a loopback address (RFC 8252 §7.3); or a desktop
 * app's private-use scheme (RFC 8252 §7.1: `cursor://…`, `com.example.app:/callback`), which only that app opens.
 * Never a fragment, never a scheme a browser runs or sends elsewhere (`javascript:`, `data:`, plain `http:`…).
 */
export function redirectUriProblem(raw: unknown): string | undefined {
  if (typeof raw !== 'string' || raw.length > 2048) return 'must be a URL of at most 2048 characters';
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return 'must be an absolute URL';
  }
  if (url.hash !== '' || raw.includes('#')) return 'must not have a fragment';
  const privateUse = !NOT_APP_SCHEMES.has(url.protocol) && /^[a-z][a-z0-9.+-]*:$/.test(url.protocol);
  if (url.protocol !== 'https:' && !isLoopback(url) && !privateUse) return 'must use https://, http:// on 127.0.0.1, [::1] or localhost, or a desktop app\'s own scheme (cursor://…)';
  return undefined;
}

/**
 * Whether `given` is one of the client's redirect URIs: exactly, except a loopback redirect, whose port may be any
 * (RFC 8252 §7.3: native apps listen on an ephemeral port).
 */
export function redirectUriMatches(registered: readonly string[], given: string): boolean {
  if (registered.includes(given)) return true;
  let url: URL;
  try {
    url = new URL(given);
  } catch {
    return false;
  }
  if (!isLoopback(url)) return false;
  return registered.some((candidate) => {
    try {
      const known = new URL(candidate);
      return isLoopback(known) && known.hostname === url.hostname && known.pathname === url.pathname && known.search === url.search;
    } catch {
      return false;
    }
  });
}

function maxAgeOf(cacheControl: string | null): number {
  if (cacheControl === null) return DEFAULT_CACHE_SECONDS;
  if (/\bno-store\b|\bno-cache\b/i.test(cacheControl)) return 0;
  const maxAge = /\bmax-age=(\d+)/i.exec(cacheControl)?.[1];
  return maxAge === undefined ? DEFAULT_CACHE_SECONDS : Math.min(Number(maxAge), MAX_CACHE_SECONDS);
}

export interface ClientsDeps {
  repo: Pick<McpAuthRepo, 'findClient'>;
  /** The tool HTTP client's fetch: the address policy on every address dialled, its deadline, no redirects. */
  fetch: typeof globalThis.fetch;
  endpointPolicy: EndpointPolicy;
  clock: Clock;
}

export function createClients(deps: ClientsDeps) {
  const { repo, fetch, endpointPolicy, clock } = deps;
  const documents = new Map<string, { client: McpClient; until: number }>();

  /** Fetches and checks a Client ID Metadata Document; cached as its Cache-Control allows (at most a day). */
  async function fromDocument(clientId: string): Promise<McpClient> {
    const cached = documents.get(clientId);
    if (cached && cached.until > clock.now().getTime()) return cached.client;
    try {
      await checkEndpoint(clientId, endpointPolicy, 'publish');
    } catch (error) {
      throw untrustedClient(`The client_id ${clientId} cannot be fetched: ${error instanceof Error ? error.message.replace(/\bendpoint\b/g, 'URL') : 'it is not allowed'}`);
    }
    let response: Response;
    try {
      response = await fetch(clientId, { method: 'GET', headers: { accept: 'application/json' }, signal: AbortSignal.timeout(DOCUMENT_TIMEOUT_MS) });
    } catch {
      throw untrustedClient(`The client's metadata document at ${clientId} could not be fetched in time.`);
    }
    if (response.status !== 200) {
      await response.body?.cancel();
      throw untrustedClient(`The client's metadata document at ${clientId} answered ${response.status}${response.status >= 300 && response.status < 400 ? ' (a redirect, which is not followed)' : ''}.`);
    }
    let text: string;
    try {
      text = await response.text();
    } catch {
      throw untrustedClient(`The client's metadata document at ${clientId} is larger than the server reads, or was cut off.`);
    }
    if (Buffer.byteLength(text) > MAX_DOCUMENT_BYTES) throw untrustedClient(`The client's metadata document at ${clientId} is larger than ${MAX_DOCUMENT_BYTES / 1024} KB.`);
    let document: Record<string, unknown>;
    try {
      document = JSON.parse(text) as Record<string, unknown>;
    } catch {
      throw untrustedClient(`The client's metadata document at ${clientId} is not JSON.`);
    }
    if (document === null || typeof document !== 'object' || Array.isArray(document)) throw untrustedClient(`The client's metadata document at ${clientId} is not a JSON object.`);
    if (document.client_id !== clientId) throw untrustedClient(`The client's metadata document names another client_id than ${clientId}.`);
    const client = clientOf(clientId, document);
    const seconds = maxAgeOf(response.headers.get('cache-control'));
    if (seconds > 0) {
      if (documents.size >= MAX_CACHED) documents.clear();
      documents.set(clientId, { client, until: clock.now().getTime() + seconds * 1000 });
    }
    return client;
  }

  function clientOf(clientId: string, document: Record<string, unknown>): McpClient {
    const uris = document.redirect_uris;
    if (!Array.isArray(uris) || uris.length === 0 || uris.length > MAX_REDIRECT_URIS || uris.some((uri) => redirectUriProblem(uri) !== undefined)) {
      throw untrustedClient(`The client's metadata document must list its redirect_uris (1 to ${MAX_REDIRECT_URIS}; https://, or http:// on loopback).`);
    }
    const name = typeof document.client_name === 'string' && document.client_name.trim() !== '' ? document.client_name.trim().slice(0, 100) : new URL(clientId).host;
    const logo = typeof document.logo_uri === 'string' && /^https:\/\//.test(document.logo_uri) && document.logo_uri.length <= 2048 ? document.logo_uri : null;
    return { id: clientId, name, logoUri: logo, redirectUris: uris as string[] };
  }

  /** The client a `client_id` names, or INVALID_CLIENT. */
  async function resolve(clientId: string | undefined): Promise<McpClient> {
    if (clientId === undefined || clientId === '') throw untrustedClient('The client_id parameter is missing.');
    if (clientId.startsWith('https://')) return fromDocument(clientId);
    const registered = clientId.startsWith('mcpc_') ? await repo.findClient(clientId) : undefined;
    if (!registered) throw untrustedClient('The client_id is not a registered client, nor an https:// URL of a client metadata document.');
    return { id: registered.id, name: registered.client_name, logoUri: null, redirectUris: JSON.parse(registered.redirect_uris) as string[] };
  }

  return { resolve };
}

export type McpClients = ReturnType<typeof createClients>;
