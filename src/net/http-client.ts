import { readFileSync } from 'node:fs';
import { STATUS_CODES } from 'node:http';
import { isIP, type LookupFunction } from 'node:net';
import { performance } from 'node:perf_hooks';
import * as tls from 'node:tls';
import { Agent, buildConnector, type Dispatcher } from 'undici';
import { jsonTooDeep, MAX_JSON_DEPTH } from '../lib/json.js';
import { createGuardedFetch } from './guarded-fetch.js';
import { classifyAddress, describeReason, type AddressVerdict } from './address-policy.js';
import type { HostResolver } from './resolver.js';

/**
 * The one HTTP client that talks to tool endpoints. Everything that makes a call to a
 * developer's server safe to make on a business's behalf lives here:
 *
 * - The address check runs on the address actually dialled. Host names are resolved by a
 *   connect-time `lookup` that refuses the connection when any answer is not public (the
 *   classifier in src/net), so a name that pointed to a public address when the tool was
 *   published and points to an internal one now is blocked before a socket exists. IP
 *   literals never reach `lookup`, so they are checked before dispatch and again in the
 *   connector.
 * - TLS is verified against the default roots, plus a development/test CA file if given.
 * - Redirects are never followed: a 3xx is a TOOL_HTTP_ERROR.
 * - One deadline covers the whole call (connect, DNS, TLS, headers, body); connecting has
 *   its own shorter limit.
 * - The response body is read as a stream and cut at the cap + 1 byte, so memory stays
 *   bounded whatever the endpoint sends.
 * - Every expected failure is a typed outcome, never a throw, each with a message a model
 *   and a person can act on.
 *
 * Connections are kept alive and pooled per origin (one undici Agent).
 */

export const DEFAULT_CONNECT_TIMEOUT_MS = 3000;
export const DEFAULT_MAX_REQUEST_BYTES = 100 * 1024;
export const DEFAULT_MAX_RESPONSE_BYTES = 100 * 1024;

export interface ToolHttpClientOptions {
  /** TOOL_ALLOW_PRIVATE_ENDPOINTS: skip the address check (local development and tests only). */
  allowPrivate: boolean;
  /** Resolves host names at connect time; the same one the endpoint checks use. */
  resolver: HostResolver;
  /** TOOL_CA_FILE: a PEM file of extra trusted CAs, read once here. */
  caFile?: string;
  connectTimeoutMs?: number;
  /** TOOL_CALL_TIMEOUT_MS: the deadline of the whole call. */
  callTimeoutMs: number;
  maxRequestBytes?: number;
  maxResponseBytes?: number;
  /** `Switchboard/<version>`. */
  userAgent: string;
}

export interface ToolHttpRequest {
  method: string;
  /** The tool's endpoint, https only. */
  url: string;
  /** Auth and signature headers. Content-Type, Accept and User-Agent are always the client's own. */
  headers?: Record<string, string>;
  /** The serialized JSON body, sent exactly as given. */
  body: Buffer;
}

/** What every outcome carries for the call log. */
interface Measured {
  durationMs: number;
  requestBytes: number;
  responseBytes: number;
}

export type ToolHttpSuccess = Measured & { ok: true; status: number; json: unknown };

/** A failure before the measurements are added: its code, a message, and what the code documents. */
export type ToolHttpFailureReason = { message: string } & (
  | { code: 'TOOL_BLOCKED'; address?: string }
  | { code: 'TOOL_TIMEOUT' }
  | { code: 'TOOL_UNREACHABLE'; cause?: string }
  | { code: 'TOOL_HTTP_ERROR'; status: number; body?: unknown }
  | { code: 'TOOL_INVALID_RESPONSE'; status: number }
  | { code: 'TOOL_RESPONSE_TOO_LARGE'; status: number }
  /** The request body is over the limit; nothing was sent. */
  | { code: 'INVALID_ARGUMENTS' }
  /** A header value (the only caller-supplied ones are credentials) cannot be sent; nothing was sent. */
  | { code: 'TOOL_CREDENTIALS_MISSING' }
);

export type ToolHttpFailure = Measured & { ok: false } & ToolHttpFailureReason;

export type ToolHttpOutcome = ToolHttpSuccess | ToolHttpFailure;

/**
 * What `post` answers: any HTTP status as it came (the caller judges it), with the Retry-After header
 * and the body's first bytes; or the same typed failure `send` gives when no answer came (blocked,
 * timeout, unreachable) or nothing could be sent. Webhook deliveries use it (src/webhooks).
 */
export type RawHttpOutcome = Measured & (
  | { ok: true; status: number; retryAfter: string | undefined; body: Buffer; complete: boolean }
  | ({ ok: false } & ToolHttpFailureReason)
);

export interface ToolHttpClient {
  send(request: ToolHttpRequest): Promise<ToolHttpOutcome>;
  /**
   * The same request through the same pool, address checks, deadline and caps, but the answer is not
   * judged as a tool's: no JSON required, a 3xx is returned as it is (still never followed).
   */
  post(request: ToolHttpRequest): Promise<RawHttpOutcome>;
  /**
   * A `fetch` over the same pool and address checks, with the call deadline and the response cap, for a protocol
   * library that takes one (oauth4webapi, connections/). Never follows a redirect.
   */
  fetch: typeof globalThis.fetch;
  /** Closes pooled connections once in-flight calls finish. */
  close(): Promise<void>;
}

// ---------------------------------------------------------------------------
// Address checks

/** Thrown inside the connector or lookup, turned into TOOL_BLOCKED by send(). */
export class BlockedAddressError extends Error {
  readonly code = 'ERR_TOOL_ADDRESS_BLOCKED';
  readonly host: string;
  readonly verdict: Extract<AddressVerdict, { allowed: false }>;
  constructor(host: string, verdict: Extract<AddressVerdict, { allowed: false }>) {
    const embedded = verdict.embeddedIPv4 ? ` (which carries ${verdict.embeddedIPv4})` : '';
    const target = host === verdict.address ? `${verdict.address}${embedded}` : `${host}, which resolves to ${verdict.address}${embedded}`;
    super(`The tool's endpoint points to ${target}, ${describeReason(verdict.reason)}. Tools can only call public internet addresses, so no request was sent.`);
    this.name = 'BlockedAddressError';
    this.host = host;
    this.verdict = verdict;
  }
}

/** A resolver that answered nothing. */
class NoAddressError extends Error {
  readonly code = 'ENODATA';
  constructor(host: string) {
    super(`${host} has no A or AAAA record`);
  }
}

function unbracket(hostname: string): string {
  return hostname.startsWith('[') && hostname.endsWith(']') ? hostname.slice(1, -1) : hostname;
}

/**
 * For a host that is an IP literal (as the URL parser normalizes it: `2130706433`,
 * `0177.0.0.1` and `127.1` are all 127.0.0.1 by then), the verdict; undefined for a name.
 */
export function checkLiteralHost(hostname: string, allowPrivate: boolean): BlockedAddressError | undefined {
  const host = unbracket(hostname);
  if (isIP(host) === 0 || allowPrivate) return undefined;
  const verdict = classifyAddress(host);
  return verdict.allowed ? undefined : new BlockedAddressError(host, verdict);
}

type LookupAddress = { address: string; family: number };

/**
 * The `lookup` given to every socket the client opens: resolves with the injected
 * resolver and, unless private endpoints are allowed, refuses the connection when any
 * answer is not public (one internal answer is enough for a rebinding attack). Exported so
 * the allowed path can be tested by its decision, without dialling a public address.
 */
export function createGuardedLookup(options: { allowPrivate: boolean; resolver: HostResolver }): LookupFunction {
  const lookup = (hostname: string, lookupOptions: { family?: number | string; all?: boolean }, callback: (...args: any[]) => void): void => {
    const fail = (error: Error) => (lookupOptions.all ? callback(error, []) : callback(error, '', 0));
    options.resolver(hostname).then(
      (answers) => {
        if (answers.length === 0) return fail(new NoAddressError(hostname));
        const addresses: LookupAddress[] = [];
        for (const address of answers) {
          const family = isIP(address);
          if (!options.allowPrivate) {
            const verdict = classifyAddress(address);
            if (!verdict.allowed) return fail(new BlockedAddressError(hostname, verdict));
          } else if (family === 0) {
            return fail(Object.assign(new Error(`The resolver answered ${JSON.stringify(address)} for ${hostname}, which is not an IP address`), { code: 'EINVAL' }));
          }
          addresses.push({ address, family });
        }
        const wanted = lookupOptions.family === 4 || lookupOptions.family === 'IPv4' ? 4 : lookupOptions.family === 6 || lookupOptions.family === 'IPv6' ? 6 : 0;
        const usable = wanted === 0 ? addresses : addresses.filter((a) => a.family === wanted);
        if (usable.length === 0) return fail(new NoAddressError(hostname));
        if (lookupOptions.all) callback(null, usable);
        else callback(null, usable[0]!.address, usable[0]!.family);
      },
      (error: unknown) => fail(error instanceof Error ? error : new Error(String(error))),
    );
  };
  return lookup as unknown as LookupFunction;
}

/**
 * undici's connector, wrapped so an IP-literal host (which Node connects to without
 * calling `lookup`) is checked here too, at the last step before a socket is created.
 */
export function createGuardedConnector(options: {
  allowPrivate: boolean;
  resolver: HostResolver;
  connectTimeoutMs: number;
  ca?: string[];
}): buildConnector.connector {
  const connect = buildConnector({
    timeout: options.connectTimeoutMs,
    lookup: createGuardedLookup(options),
    autoSelectFamily: true,
    rejectUnauthorized: true,
    // One TLS context for every connection: given `ca`, tls.connect would build a new context and
    // parse the whole root list for each socket (~2 ms of CPU every time the pool opens a connection).
    secureContext: tls.createSecureContext(options.ca ? { ca: options.ca } : {}),
  });
  return (connectOptions, callback) => {
    const blocked = checkLiteralHost(connectOptions.hostname, options.allowPrivate);
    if (blocked) {
      callback(blocked, null);
      return;
    }
    connect(connectOptions, callback);
  };
}

/** The default roots, plus the CA file's certificates. */
function trustedCertificates(caFile: string | undefined): string[] | undefined {
  if (caFile === undefined) return undefined;
  const extra = readFileSync(caFile, 'utf8');
  // Node ≥ 22.15 can say which roots are in effect (including --use-system-ca); older Nodes use the bundled list.
  const getCACertificates = (tls as { getCACertificates?: (type: string) => string[] }).getCACertificates;
  const defaults = typeof getCACertificates === 'function' ? getCACertificates('default') : [...tls.rootCertificates];
  return [...defaults, extra];
}

// ---------------------------------------------------------------------------
// Requests

/** Headers the client sets itself or that frame the message; a caller's value for them is dropped. */
const FRAMING_HEADERS = new Set([
  'host', 'content-length', 'transfer-encoding', 'connection', 'keep-alive', 'upgrade', 'te', 'trailer', 'expect',
  'proxy-connection', 'proxy-authorization', 'content-type', 'accept', 'user-agent', 'content-encoding',
]);

/**
 * The headers send() puts on the wire (also what the developer console shows): the
 * caller's auth and signature headers as named, then Content-Type, Accept and User-Agent.
 */
export function buildRequestHeaders(userAgent: string, extra: Record<string, string> = {}): Record<string, string> {
  const byLowerName = new Map<string, [string, string]>();
  for (const [name, value] of Object.entries(extra)) {
    const lower = name.toLowerCase();
    if (!FRAMING_HEADERS.has(lower)) byLowerName.set(lower, [name, value]);
  }
  const headers: Record<string, string> = Object.fromEntries(byLowerName.values());
  headers['Content-Type'] = 'application/json';
  headers['Accept'] = 'application/json';
  headers['User-Agent'] = userAgent;
  return headers;
}

const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
/** Visible ASCII, space and tab: what a credential may be to travel in a header unchanged. */
const HEADER_VALUE = /^[\t\x20-\x7e]*$/;

/** The first caller-supplied header that cannot go on the wire as given, if any. */
function unsendableHeader(headers: Record<string, string>): string | undefined {
  return Object.entries(headers).find(([name, value]) => !HEADER_NAME.test(name) || typeof value !== 'string' || !HEADER_VALUE.test(value))?.[0];
}

/** `application/json`, `application/problem+json`, any parameters. */
function isJsonMediaType(contentType: string | string[] | undefined): boolean {
  const value = Array.isArray(contentType) ? contentType[0] : contentType;
  if (value === undefined) return false;
  const essence = value.split(';', 1)[0]!.trim().toLowerCase();
  return essence === 'application/json' || /^application\/[a-z0-9!#$&^_.-]+\+json$/.test(essence);
}

function mediaTypeOf(contentType: string | string[] | undefined): string {
  const value = Array.isArray(contentType) ? contentType[0] : contentType;
  return value === undefined || value.trim() === '' ? 'no Content-Type' : `Content-Type ${value.split(';', 1)[0]!.trim()}`;
}

type ReadResult = { complete: true; bytes: Buffer } | { complete: false; bytesRead: number };

/** What came back from the endpoint, read at most to the cap; or the transport error that ended the exchange. */
type Exchange =
  | { ok: true; status: number; contentType: string | string[] | undefined; retryAfter: string | undefined; declaredLength: number; read: ReadResult }
  | { ok: false; error: unknown; deadlinePassed: boolean };

/** Why the client ended an exchange itself (undici reports it to onResponseError, after the exchange has settled). */
class ExchangeEnded extends Error {}

/**
 * One request through the pool, with undici's handler interface rather than `request()`: the
 * response is read as it arrives into at most `cap` bytes (on the first byte past it the
 * exchange is aborted, which closes the connection), and the deadline is one timer that ends
 * the exchange at once, even while a connection is still being made. Profiled under the tools
 * benchmark, `request()` with an AbortSignal and an async-iterated body stream cost about 40 µs
 * of CPU more per call than this.
 */
function exchange(agent: Agent, options: Dispatcher.DispatchOptions, limits: { cap: number; deadlineMs: number }): Promise<Exchange> {
  return new Promise((resolve) => {
    let controller: Dispatcher.DispatchController | undefined;
    let settled = false;
    let status = 0;
    let contentType: string | string[] | undefined;
    let retryAfter: string | undefined;
    let declaredLength = Number.NaN;
    const chunks: Buffer[] = [];
    let size = 0;

    const settle = (result: Exchange) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve(result);
    };
    /** Ends the exchange with what was read so far, discarding the rest of the response. */
    const stopReading = (read: ReadResult) => {
      settle({ ok: true, status, contentType, retryAfter, declaredLength, read });
      controller?.abort(new ExchangeEnded('response over the cap'));
    };
    const timer = setTimeout(() => {
      settle({ ok: false, error: new ExchangeEnded('deadline'), deadlinePassed: true });
      controller?.abort(new ExchangeEnded('deadline'));
    }, limits.deadlineMs);

    try {
      agent.dispatch(options, {
        onRequestStart(started) {
          controller = started;
          // The deadline passed while the connection was being made: do not send.
          if (settled) started.abort(new ExchangeEnded('deadline'));
        },
        onResponseStart(_controller, statusCode, headers) {
          if (statusCode < 200) return; // 1xx: the final response follows
          status = statusCode;
          contentType = headers['content-type'];
          const retry = headers['retry-after'];
          retryAfter = Array.isArray(retry) ? retry[0] : retry;
          declaredLength = Number(headers['content-length']);
          // Known to be too large: do not read it at all.
          if (Number.isFinite(declaredLength) && declaredLength > limits.cap) stopReading({ complete: false, bytesRead: 0 });
        },
        onResponseData(_controller, chunk) {
          if (settled) return;
          size += chunk.length;
          if (size > limits.cap) stopReading({ complete: false, bytesRead: size });
          else chunks.push(chunk);
        },
        onResponseEnd() {
          settle({ ok: true, status, contentType, retryAfter, declaredLength, read: { complete: true, bytes: Buffer.concat(chunks, size) } });
        },
        onResponseError(_controller, error) {
          settle({ ok: false, error, deadlinePassed: false });
        },
      });
    } catch (error) {
      settle({ ok: false, error, deadlinePassed: false });
    }
  });
}

const UTF8 = new TextDecoder('utf-8', { fatal: true });

/**
 * The endpoint's JSON, or why not. Nesting past MAX_JSON_DEPTH is refused as for request bodies:
 * the value goes on to JSON.stringify, the response serializer and MCP's zod checks, all recursive
 * (a 10,000-deep answer made the Operator API answer 500).
 */
function parseJson(bytes: Buffer): { ok: true; value: unknown } | { ok: false; tooDeep?: true } {
  try {
    const text = UTF8.decode(bytes);
    if (jsonTooDeep(text)) return { ok: false, tooDeep: true };
    return { ok: true, value: JSON.parse(text) as unknown };
  } catch {
    return { ok: false };
  }
}

function statusText(status: number): string {
  const phrase = STATUS_CODES[status];
  return phrase ? `${status} ${phrase}` : String(status);
}

function sizeText(bytes: number): string {
  return bytes % 1024 === 0 ? `${bytes / 1024} KB` : `${bytes} bytes`;
}

function errorCode(error: unknown): string | undefined {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' ? code : undefined;
}

/** An AggregateError from trying several addresses: the first cause names the problem. */
function innermost(error: unknown): unknown {
  if (error instanceof AggregateError && error.errors.length > 0) return error.errors[0];
  return error;
}

const TLS_CODE = /^(ERR_TLS_|ERR_SSL_|CERT_|UNABLE_TO_|DEPTH_ZERO_|SELF_SIGNED_|HOSTNAME_MISMATCH|ERR_OSSL_)/;

/** A transport error (no response), as an outcome. Unknown errors are unreachable, with their code. */
function transportFailure(rawError: unknown, context: { host: string; connectTimeoutMs: number; callTimeoutMs: number; deadlinePassed: boolean }): ToolHttpFailureReason {
  if (context.deadlinePassed) {
    return { code: 'TOOL_TIMEOUT', message: `The tool's endpoint did not answer within ${context.callTimeoutMs / 1000} s. The call was cancelled; it may or may not have taken effect.` };
  }
  const error = innermost(rawError);
  if (error instanceof BlockedAddressError) return { code: 'TOOL_BLOCKED', message: error.message, address: error.verdict.address };
  const code = errorCode(error) ?? 'unknown error';
  const host = context.host;
  switch (code) {
    case 'UND_ERR_HEADERS_TIMEOUT':
    case 'UND_ERR_BODY_TIMEOUT':
      return { code: 'TOOL_TIMEOUT', message: `The tool's endpoint did not answer within ${context.callTimeoutMs / 1000} s. The call was cancelled; it may or may not have taken effect.` };
    case 'UND_ERR_CONNECT_TIMEOUT':
      return { code: 'TOOL_UNREACHABLE', cause: code, message: `The tool's endpoint (${host}) did not accept a connection within ${context.connectTimeoutMs / 1000} s. No request was sent; the endpoint may be down or unreachable.` };
    case 'ECONNREFUSED':
      return { code: 'TOOL_UNREACHABLE', cause: code, message: `The tool's endpoint refused the connection (ECONNREFUSED). No request was sent; the endpoint's server may be down.` };
    case 'ENOTFOUND':
    case 'EAI_NONAME':
    case 'ENODATA':
      return { code: 'TOOL_UNREACHABLE', cause: code, message: `The tool's endpoint host ${host} does not resolve (${code}). No request was sent.` };
    case 'EAI_AGAIN':
    case 'ETIMEOUT':
      return { code: 'TOOL_UNREACHABLE', cause: code, message: `The tool's endpoint host ${host} could not be resolved right now (${code}, a temporary DNS failure). No request was sent; try again later.` };
    case 'EHOSTUNREACH':
    case 'ENETUNREACH':
    case 'EHOSTDOWN':
    case 'ENETDOWN':
    case 'ETIMEDOUT':
      return { code: 'TOOL_UNREACHABLE', cause: code, message: `The tool's endpoint (${host}) could not be reached (${code}). No request was sent.` };
    case 'ECONNRESET':
    case 'EPIPE':
    case 'UND_ERR_SOCKET':
    case 'UND_ERR_CLOSED':
      return { code: 'TOOL_UNREACHABLE', cause: code, message: `The connection to the tool's endpoint was closed before it answered (${code}). The request may or may not have taken effect.` };
    default:
      if (TLS_CODE.test(code)) {
        const certificate = /CERT|SIGNATURE|ISSUER|SELF_SIGNED|DEPTH_ZERO|HOSTNAME|ALTNAME/.test(code);
        return {
          code: 'TOOL_UNREACHABLE',
          cause: code,
          message: certificate
            ? `The tool's endpoint presented a TLS certificate that could not be verified for ${host} (${code}). No request was sent; the endpoint needs a valid certificate from a public certificate authority.`
            : `The TLS handshake with the tool's endpoint failed (${code}). No request was sent.`,
        };
      }
      return { code: 'TOOL_UNREACHABLE', cause: code, message: `The request to the tool's endpoint failed (${code}).` };
  }
}

/** An endpoint URL that may be called: where requests go, and its host for messages. */
interface Target {
  origin: string;
  path: string;
  host: string;
}

/** Endpoint URLs whose decision each client keeps (see `targetOf`). */
const MAX_TARGETS = 1000;

/** Where an endpoint URL leads, or why no request may be sent to it (not a URL, not https, an internal address). */
function resolveTarget(endpoint: string, allowPrivate: boolean): Target | ToolHttpFailureReason {
  let url: URL;
  try {
    url = new URL(endpoint);
  } catch {
    return { code: 'TOOL_UNREACHABLE', message: "The tool's endpoint is not a valid URL. No request was sent." };
  }
  if (url.protocol !== 'https:') {
    return { code: 'TOOL_BLOCKED', message: `The tool's endpoint must use https:// (it uses ${url.protocol}//). No request was sent.` };
  }
  const blocked = checkLiteralHost(url.hostname, allowPrivate);
  if (blocked) return { code: 'TOOL_BLOCKED', message: blocked.message, address: blocked.verdict.address };
  return { origin: url.origin, path: `${url.pathname}${url.search}`, host: unbracket(url.hostname) };
}

export function createToolHttpClient(options: ToolHttpClientOptions): ToolHttpClient {
  const connectTimeoutMs = options.connectTimeoutMs ?? DEFAULT_CONNECT_TIMEOUT_MS;
  const maxRequestBytes = options.maxRequestBytes ?? DEFAULT_MAX_REQUEST_BYTES;
  const maxResponseBytes = options.maxResponseBytes ?? DEFAULT_MAX_RESPONSE_BYTES;
  const { callTimeoutMs, allowPrivate } = options;
  const ca = trustedCertificates(options.caFile);
  const limits = { cap: maxResponseBytes, deadlineMs: callTimeoutMs };

  const agent = new Agent({
    connect: createGuardedConnector({ allowPrivate, resolver: options.resolver, connectTimeoutMs, ...(ca ? { ca } : {}) }),
    // Backstops: the call's deadline (one timer per call, in exchange()) normally fires first.
    headersTimeout: callTimeoutMs,
    bodyTimeout: callTimeoutMs,
  });

  /**
   * Where an endpoint URL leads, or why it may not be called: decided once per URL (an agent's
   * tools use a few), since parsing it and checking its host were a tenth of the client's own time
   * per call. Bounded, so endpoints that come and go cannot grow it.
   */
  const targets = new Map<string, Target | ToolHttpFailureReason>();
  function targetOf(endpoint: string): Target | ToolHttpFailureReason {
    let target = targets.get(endpoint);
    if (target === undefined) {
      target = resolveTarget(endpoint, allowPrivate);
      if (targets.size >= MAX_TARGETS) targets.clear();
      targets.set(endpoint, target);
    }
    return target;
  }

  /** The checks made before anything is sent: the request to dispatch, or why nothing is sent. Shared by `send` and `post`. */
  function prepare(request: ToolHttpRequest): { ok: false; reason: ToolHttpFailureReason } | { ok: true; target: Target; options: Dispatcher.DispatchOptions } {
    const target = targetOf(request.url);
    if ('code' in target) return { ok: false, reason: target };
    const badHeader = unsendableHeader(request.headers ?? {});
    if (badHeader !== undefined) {
      return {
        ok: false,
        reason: {
          code: 'TOOL_CREDENTIALS_MISSING',
          message: `The credentials for this tool cannot be sent: the ${JSON.stringify(badHeader)} header would contain a line break or other character not allowed in HTTP headers. Enter the credentials again. No request was sent.`,
        },
      };
    }
    if (request.body.length > maxRequestBytes) {
      return {
        ok: false,
        reason: {
          code: 'INVALID_ARGUMENTS',
          message: `The arguments make a request body of ${request.body.length} bytes; the limit is ${sizeText(maxRequestBytes)}. Send shorter values. No request was sent.`,
        },
      };
    }
    const dispatchOptions: Dispatcher.DispatchOptions = {
      origin: target.origin,
      path: target.path,
      method: request.method as Dispatcher.HttpMethod,
      headers: buildRequestHeaders(options.userAgent, request.headers),
      body: request.body,
    };
    return { ok: true, target, options: dispatchOptions };
  }

  /** The exchange of a prepared request, as an outcome the callers read. */
  async function dispatch(request: ToolHttpRequest): Promise<{ ok: false; reason: ToolHttpFailureReason } | { ok: true; exchanged: Extract<Exchange, { ok: true }> }> {
    const prepared = prepare(request);
    if (!prepared.ok) return prepared;
    const result = await exchange(agent, prepared.options, limits);
    if (!result.ok) return { ok: false, reason: transportFailure(result.error, { host: prepared.target.host, connectTimeoutMs, callTimeoutMs, deadlinePassed: result.deadlinePassed }) };
    return { ok: true, exchanged: result };
  }

  async function post(request: ToolHttpRequest): Promise<RawHttpOutcome> {
    const started = performance.now();
    const outcome = await dispatch(request);
    const durationMs = Math.round(performance.now() - started);
    if (!outcome.ok) return { ok: false, ...outcome.reason, durationMs, requestBytes: request.body.length, responseBytes: 0 };
    const { status, retryAfter, read } = outcome.exchanged;
    const body = read.complete ? read.bytes : Buffer.alloc(0);
    return { ok: true, status, retryAfter, body, complete: read.complete, durationMs, requestBytes: request.body.length, responseBytes: read.complete ? read.bytes.length : read.bytesRead };
  }

  async function send(request: ToolHttpRequest): Promise<ToolHttpOutcome> {
    const started = performance.now();
    const requestBytes = request.body.length;
    let responseBytes = 0;
    const measured = (): Measured => ({ durationMs: Math.round(performance.now() - started), requestBytes, responseBytes });
    const finish = (reason: ToolHttpFailureReason): ToolHttpFailure => ({ ok: false, ...reason, ...measured() });

    // Prepared and exchanged here rather than through `dispatch`: one async step fewer on every call.
    const prepared = prepare(request);
    if (!prepared.ok) return finish(prepared.reason);
    const result = await exchange(agent, prepared.options, limits);
    if (!result.ok) return finish(transportFailure(result.error, { host: prepared.target.host, connectTimeoutMs, callTimeoutMs, deadlinePassed: result.deadlinePassed }));
    const { status, contentType, declaredLength, read } = result;
    responseBytes = read.complete ? read.bytes.length : read.bytesRead;

    if (status >= 300 && status < 400) {
      return finish({
        code: 'TOOL_HTTP_ERROR',
        status,
        message: `The tool's endpoint answered ${statusText(status)}, a redirect. Redirects are not followed; the tool's developer must change the endpoint to the final address.`,
      });
    }
    const success = status >= 200 && status < 300;
    if (!success) {
      const parsed = read.complete && isJsonMediaType(contentType) ? parseJson(read.bytes) : { ok: false as const };
      return finish({
        code: 'TOOL_HTTP_ERROR',
        status,
        ...(parsed.ok ? { body: parsed.value } : {}),
        message: `The tool's endpoint answered ${statusText(status)}.${status >= 500 ? ' The error is on the endpoint\'s side.' : ''}`,
      });
    }
    if (!read.complete) {
      return finish({
        code: 'TOOL_RESPONSE_TOO_LARGE',
        status,
        message: `The tool's endpoint answered with more than ${sizeText(maxResponseBytes)}${Number.isFinite(declaredLength) ? ` (Content-Length ${declaredLength})` : ''}, the limit for a tool's response. The response was discarded.`,
      });
    }
    if (!isJsonMediaType(contentType)) {
      return finish({
        code: 'TOOL_INVALID_RESPONSE',
        status,
        message: `The tool's endpoint answered ${statusText(status)} with ${mediaTypeOf(contentType)}, not JSON. A tool must answer with Content-Type application/json.`,
      });
    }
    const parsed = parseJson(read.bytes);
    if (!parsed.ok) {
      return finish({
        code: 'TOOL_INVALID_RESPONSE',
        status,
        message: read.bytes.length === 0
          ? `The tool's endpoint answered ${statusText(status)} with an empty body. A tool must answer with a JSON value.`
          : parsed.tooDeep
            ? `The tool's endpoint answered ${statusText(status)} with JSON nested more than ${MAX_JSON_DEPTH} levels deep, the limit for a tool's response. The response was discarded.`
            : `The tool's endpoint answered ${statusText(status)} with a body that is not valid JSON.`,
      });
    }
    return { ok: true, status, json: parsed.value, ...measured() };
  }

  const fetch = createGuardedFetch(agent, {
    timeoutMs: callTimeoutMs,
    timeoutError: () => Object.assign(new Error(`No answer within ${callTimeoutMs / 1000} s.`), { name: 'TimeoutError' }),
    maxResponseBytes,
  });

  return {
    send,
    post,
    fetch,
    close: () => agent.close(),
  };
}
