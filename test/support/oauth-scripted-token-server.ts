import { delayed, json, redirect, startHttpsEndpoint, type RecordedRequest, type Responder } from './https-endpoint.js';

/**
 * An odd OAuth 2.0 token endpoint for tests: HTTPS on 127.0.0.1 (startHttpsEndpoint, the test CA's certificate),
 * answering each request with the next answer of a script, so a test can make a token endpoint misbehave in
 * exactly the way it needs: no `expires_in`, a refresh without a new refresh token, invalid_grant, a slow
 * answer, a redirect, a 503.
 *
 *   const server = await startScriptedTokenServer();
 *   server.script(tokens({ accessToken: 'a1', refreshToken: 'r1', expiresIn: 60 }), oauthError('invalid_grant'));
 *   … the client under test uses server.tokenUrl (and server.caFile as its CA) …
 *   server.requests[0].grantType, .code, .codeVerifier, .refreshToken, .clientId, .clientAuth, .authorization
 *
 * Every path answers as the token endpoint (tokenUrl is `<origin>/token`). Once the script is used up, requests
 * answer 500 `{"error":"unscripted"}`, which a test sees in its client's error.
 */

export interface TokenEndpointRequest {
  method: string;
  path: string;
  /** The form body, decoded. */
  form: URLSearchParams;
  grantType?: string;
  code?: string;
  codeVerifier?: string;
  redirectUri?: string;
  refreshToken?: string;
  scope?: string;
  /** client_id: from the Basic credentials, else from the body. */
  clientId?: string;
  /** client_secret: from the Basic credentials, else from the body. */
  clientSecret?: string;
  /** Credentials in an Authorization: Basic header, in the body, or none at all. */
  clientAuth: 'client_secret_basic' | 'client_secret_post' | 'none';
  /** The Authorization header as sent. */
  authorization?: string;
  raw: RecordedRequest;
}

export interface ScriptedTokenServer {
  /** https://127.0.0.1:<port> */
  origin: string;
  /** `${origin}/token` */
  tokenUrl: string;
  caFile: string;
  /** Every request, in arrival order. */
  requests: TokenEndpointRequest[];
  /** Adds answers to the script; each request takes the next one. */
  script(...answers: Responder[]): void;
  /** Answers not taken yet. */
  readonly pending: number;
  close(): Promise<void>;
}

// --- Answers -------------------------------------------------------------------

const NO_STORE = { 'cache-control': 'no-store', pragma: 'no-cache' };

/** A successful token answer; only what is given is sent (leave out expiresIn for an answer without `expires_in`). */
export function tokens(answer: { accessToken: string; refreshToken?: string; expiresIn?: number; scope?: string; idToken?: string; tokenType?: string }): Responder {
  return json(200, {
    access_token: answer.accessToken,
    token_type: answer.tokenType ?? 'Bearer',
    ...(answer.expiresIn !== undefined ? { expires_in: answer.expiresIn } : {}),
    ...(answer.refreshToken !== undefined ? { refresh_token: answer.refreshToken } : {}),
    ...(answer.scope !== undefined ? { scope: answer.scope } : {}),
    ...(answer.idToken !== undefined ? { id_token: answer.idToken } : {}),
  }, NO_STORE);
}

/** `{access_token, token_type: 'Bearer'}` and nothing else: no expires_in, no refresh_token. */
export function accessTokenOnly(accessToken: string): Responder {
  return tokens({ accessToken });
}

/** A refresh answer without a new refresh token (the client keeps its old one). */
export function refreshWithoutNewRefreshToken(accessToken: string, expiresIn = 3600): Responder {
  return tokens({ accessToken, expiresIn });
}

/** An OAuth error answer (RFC 6749 §5.2), 400 by default (invalid_client is usually 401). */
export function oauthError(error: string, options: { status?: number; description?: string } = {}): Responder {
  return json(options.status ?? 400, { error, ...(options.description ? { error_description: options.description } : {}) }, NO_STORE);
}

/** `{"error":"invalid_grant"}` with 400: a refresh token revoked or expired, a code used twice. */
export function invalidGrant(description?: string): Responder {
  return oauthError('invalid_grant', description ? { description } : {});
}

/** Waits `ms` before answering with `then` (stops waiting if the client hangs up). */
export function slow(ms: number, then: Responder): Responder {
  return delayed(ms, then);
}

/** A redirect (302 by default) to `location`, which a token client must not follow. */
export function redirectTo(location: string, status = 302): Responder {
  return redirect(status, location);
}

/** 503 Service Unavailable, with Retry-After when given. */
export function unavailable(retryAfterSeconds?: number): Responder {
  return json(503, { error: 'temporarily_unavailable' }, retryAfterSeconds !== undefined ? { 'retry-after': String(retryAfterSeconds) } : {});
}

// --- Server --------------------------------------------------------------------

function parse(raw: RecordedRequest): TokenEndpointRequest {
  const form = new URLSearchParams(raw.body.toString('utf8'));
  const authorization = raw.headers.authorization;
  let basic: { id: string; secret: string } | undefined;
  const encoded = /^Basic\s+(\S+)$/i.exec(authorization ?? '')?.[1];
  if (encoded) {
    const decoded = Buffer.from(encoded, 'base64').toString('utf8');
    const colon = decoded.indexOf(':');
    // RFC 6749 §2.3.1: both halves are form-urlencoded before they are joined.
    const unform = (value: string) => decodeURIComponent(value.replace(/\+/g, ' '));
    if (colon >= 0) basic = { id: unform(decoded.slice(0, colon)), secret: unform(decoded.slice(colon + 1)) };
  }
  const field = (name: string) => form.get(name) ?? undefined;
  const clientId = basic?.id ?? field('client_id');
  const clientSecret = basic?.secret ?? field('client_secret');
  return {
    method: raw.method,
    path: raw.path,
    form,
    grantType: field('grant_type'),
    code: field('code'),
    codeVerifier: field('code_verifier'),
    redirectUri: field('redirect_uri'),
    refreshToken: field('refresh_token'),
    scope: field('scope'),
    clientId,
    clientSecret,
    clientAuth: basic ? 'client_secret_basic' : form.has('client_secret') ? 'client_secret_post' : 'none',
    authorization,
    raw,
  };
}

export async function startScriptedTokenServer(...answers: Responder[]): Promise<ScriptedTokenServer> {
  const queue: Responder[] = [...answers];
  const requests: TokenEndpointRequest[] = [];
  const endpoint = await startHttpsEndpoint((raw, response) => {
    requests.push(parse(raw));
    const next = queue.shift() ?? json(500, { error: 'unscripted', error_description: 'the test scripted no answer for this request' });
    return next(raw, response);
  });
  return {
    origin: endpoint.origin,
    tokenUrl: endpoint.url('/token'),
    caFile: endpoint.caFile,
    requests,
    script(...more) {
      queue.push(...more);
    },
    get pending() {
      return queue.length;
    },
    close: () => endpoint.close(),
  };
}
