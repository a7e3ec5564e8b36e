import type { IncomingHttpHeaders } from 'node:http';
import { stdSerializers } from 'pino';

const REDACTED = '[redacted]';

/** Keys that hold a secret wherever a log line has them: at its top level (`log.warn({password})`) or one level down. */
const SECRET_KEYS = ['client_secret', 'clientSecret', 'access_token', 'accessToken', 'refresh_token', 'refreshToken', 'password', 'token', 'apiKey', 'secret', 'credentials'];

/** Log paths that may carry secrets; pino replaces them before a line is written. */
export const redactPaths = [
  'req.headers.authorization',
  'req.headers.cookie',
  'req.headers["x-csrf-token"]',
  'req.headers["x-api-key"]',
  'res.headers["set-cookie"]',
  ...SECRET_KEYS.flatMap((key) => [key, `*.${key}`]),
];

/** Every secret we issue starts `svc_` (`svc_at_…`, `svc_cs_…`, `svc_org_…`, `svc_agt_…`, `svc_ses_…`, `svc_inv_…`, `svc_rst_…`: lib/ids.ts). */
const OUR_SECRET = /svc_/i;

/**
 * Query parameter names that usually carry a credential: access_token, refresh_token,
 * client_secret, api_key, apikey, x-api-key, key, password, pwd, code, session, signature…
 * Matching a harmless name (postcode) only costs a value in the log.
 */
const CREDENTIAL_NAME = /token|secret|key|pass|pwd|code|auth|session|credential|signature/i;

/** Percent-decoded, or as it was when it is not valid percent-encoding. */
function decoded(part: string): string {
  if (!part.includes('%') && !part.includes('+')) return part;
  try {
    return decodeURIComponent(part.replace(/\+/g, ' '));
  } catch {
    return part;
  }
}

function carriesOurSecret(part: string): boolean {
  if (OUR_SECRET.test(part)) return true;
  const plain = decoded(part);
  return plain !== part && OUR_SECRET.test(plain);
}

function redactParam(param: string): string {
  const eq = param.indexOf('=');
  const name = eq < 0 ? param : param.slice(0, eq);
  if (carriesOurSecret(name)) return REDACTED;
  if (eq < 0) return param;
  return CREDENTIAL_NAME.test(decoded(name)) || carriesOurSecret(param.slice(eq + 1)) ? `${name}=${REDACTED}` : param;
}

/**
 * A request URL fit for a log line: query parameters named like a credential, and any
 * parameter or path segment holding one of our secrets, become `[redacted]`. Clients do
 * put tokens in URLs (`?access_token=`, `/tools/svc_at_…`), and the request is logged
 * before anything refuses it. A URL without `?` and without `svc_` is returned as is.
 */
export function redactUrl(url: string): string {
  const q = url.indexOf('?');
  let path = q < 0 ? url : url.slice(0, q);
  if (carriesOurSecret(path)) path = path.split('/').map((segment) => (carriesOurSecret(segment) ? REDACTED : segment)).join('/');
  if (q < 0) return path;
  return `${path}?${url.slice(q + 1).split('&').map(redactParam).join('&')}`;
}

/** What the `req` serializer reads: a Fastify request, or Node's request when a handler logs `request.raw`. */
interface LoggedRequest {
  method?: string;
  url?: string;
  headers?: IncomingHttpHeaders;
  host?: string;
  ip?: string;
  socket?: { remotePort?: number } | null;
}

function callIdOf(extra: unknown): { callId?: unknown } {
  const callId = typeof extra === 'object' && extra !== null ? (extra as { callId?: unknown }).callId : undefined;
  return typeof callId === 'string' ? { callId } : {};
}

/**
 * Serializers for the Fastify logger. `req` has the fields of Fastify's own serializer
 * with the URL redacted, so "incoming request" and every other line carrying `req` are
 * safe. `err` is pino's, without the `rawPacket` Node attaches to a malformed request's
 * error (those raw bytes, headers and all, would reach the "client error" line at trace), and
 * without an AppError's payload (`extra` but its call id, `details`).
 */
export const logSerializers = {
  req: (req: LoggedRequest) => ({
    method: req.method,
    url: req.url === undefined ? undefined : redactUrl(req.url),
    version: req.headers?.['accept-version']?.toString(),
    host: req.host,
    remoteAddress: req.ip,
    remotePort: req.socket?.remotePort,
  }),
  err: (err: Error) => {
    const serialized = stdSerializers.err(err);
    if (serialized === (err as unknown)) return serialized;
    if ('rawPacket' in serialized) serialized.rawPacket = REDACTED;
    // An AppError's `extra` and `details` are its answer to the client: for a failed tool call, the
    // endpoint's error body (the call's result), logged at error level with every 502 until this.
    // The log keeps the call id, which leads to the call log, and no payload.
    if ('extra' in serialized) serialized.extra = callIdOf(serialized.extra);
    if ('details' in serialized) serialized.details = REDACTED;
    return serialized;
  },
};
