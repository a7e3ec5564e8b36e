import { AppError } from './errors.js';

/**
 * The refusals of a request's credentials, and the `WWW-Authenticate` challenges they carry
 * (RFC 9110 §11.6.1, RFC 6750 §3 for bearer tokens, RFC 7617 for Basic). Every credential the
 * service takes (org keys, agent keys, the Developer API's access tokens, OAuth clients) belongs
 * to one protection space, so there is one realm: a client keeps one set of credentials for it.
 */
export const REALM = 'switchboard';

/** The `error` of an RFC 6750 challenge: a malformed request (a key in the URL), a bad token, a missing scope. */
type BearerError = 'invalid_request' | 'invalid_token' | 'insufficient_scope';

/**
 * A quoted-string parameter may hold only these (RFC 6750 §3: printable ASCII without `"` and
 * `\`). A message with other characters would make Node refuse the header and the 401 a 500:
 * this check makes it fail in the tests instead.
 */
const QUOTABLE = /^[\x20\x21\x23-\x5B\x5D-\x7E]*$/;

function quoted(name: string, value: string): string {
  if (!QUOTABLE.test(value)) throw new Error(`WWW-Authenticate ${name} may hold only printable ASCII without " or \\: ${JSON.stringify(value)}`);
  return `, ${name}="${value}"`;
}

/** `Bearer realm="switchboard"[, error="…"][, error_description="…"][, scope="…"]`. */
export function bearerChallenge(error?: BearerError, params: { description?: string; scope?: string } = {}): string {
  let challenge = `Bearer realm="${REALM}"`;
  if (error !== undefined) challenge += quoted('error', error);
  if (params.description !== undefined) challenge += quoted('error_description', params.description);
  if (params.scope !== undefined) challenge += quoted('scope', params.scope);
  return challenge;
}

/** `Basic realm="switchboard"[, charset="UTF-8"]`: the charset tells the client how to encode id and secret (RFC 7617 §2.1). */
export function basicChallenge(options: { charset?: boolean } = {}): string {
  return `Basic realm="${REALM}"${options.charset ? ', charset="UTF-8"' : ''}`;
}

/** No credentials at all: 401 UNAUTHORIZED, and the bare challenge says which scheme to use. */
export function missingCredentials(message: string): AppError {
  return new AppError('UNAUTHORIZED', message, { headers: { 'WWW-Authenticate': bearerChallenge() } });
}

/**
 * Credentials that were sent and are not good: 401 INVALID_TOKEN with error="invalid_token" (or
 * "invalid_request" for a request that carries them wrongly, e.g. in the URL). The message goes into
 * the header only when asked (`describe`): a message may hold text that a header cannot.
 */
export function invalidToken(message: string, options: { error?: 'invalid_token' | 'invalid_request'; describe?: boolean } = {}): AppError {
  const challenge = bearerChallenge(options.error ?? 'invalid_token', options.describe ? { description: message } : {});
  return new AppError('INVALID_TOKEN', message, { headers: { 'WWW-Authenticate': challenge } });
}

/** A good token without the scope the route needs: 403 INSUFFICIENT_SCOPE naming that scope. */
export function insufficientScope(message: string, scope: string): AppError {
  return new AppError('INSUFFICIENT_SCOPE', message, { headers: { 'WWW-Authenticate': bearerChallenge('insufficient_scope', { scope }) } });
}

/**
 * A client that failed to authenticate on the OAuth token endpoint: 401 INVALID_CLIENT, with a
 * Basic challenge when it tried Basic (RFC 6749 §5.2 asks for one then) and none otherwise.
 */
export function invalidClient(message: string, basic?: { charset?: boolean }): AppError {
  return new AppError('INVALID_CLIENT', message, { headers: basic ? { 'WWW-Authenticate': basicChallenge(basic) } : {} });
}
