import { createHash, generateKeyPair, randomBytes, randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { createServer } from 'node:https';
import type { AddressInfo, Socket } from 'node:net';
import type {
  Adapter,
  AdapterPayload,
  ClientMetadata,
  Configuration,
  InteractionResults,
  KoaContextWithOIDC,
  default as ProviderType,
} from 'oidc-provider';
import { Agent, request } from 'undici';
import { testCertificates } from './https-endpoint.js';

/**
 * A real third-party OAuth 2.0 / OpenID Connect authorization server for tests: `oidc-provider`
 * (panva) on HTTPS at 127.0.0.1 only, with the test CA's certificate (test/support/https-endpoint.ts:
 * our server trusts it through TOOL_CA_FILE). The issuer is exactly the origin
 * `https://127.0.0.1:<port>`, with no path.
 *
 *   const provider = await startOAuthProvider({ clients: [{ clientId, clientSecret, redirectUris }] });
 *   provider.issuer, .authorizationUrl, .tokenUrl, .revocationUrl, .introspectionUrl, .userinfoUrl, .jwksUrl
 *   provider.resource                      the resource indicator that resource scopes (calendar.read) are issued for
 *   await provider.authorize(url, { accountId?, deny? })  → the redirect to the client (code and state, or error)
 *   provider.tokenRequests                 every token request: grant type, status, error, client auth, refresh token fingerprint
 *   provider.revocationRequests            every revocation request: status and the token's fingerprint
 *   await provider.verifyAccessToken(token) → { active, sub?, scope? } (introspection, as a protected API would)
 *   await provider.introspect(token)       the raw introspection answer (access or refresh token)
 *   await provider.revokeGrants(accountId?) every grant of the account (or of everyone) gone: its tokens answer invalid_grant
 *   await provider.close()
 *
 * What the provider does, as configured here:
 * - Clients: the given ones, authorization_code + refresh_token grants, `code` response type; PKCE S256 is
 *   required of every client (a request without code_challenge answers invalid_request). Each client must use
 *   its registered token endpoint auth method: client_secret_post from a client_secret_basic client is
 *   invalid_client. The authorization response carries `iss` (RFC 9207), and an ID token's `iss` is the issuer.
 * - Scopes: `openid`, `offline_access`, `email`, `profile`, and the resource scopes (default `calendar.read`,
 *   `calendar.write`). `openid` is not required; with it the token answer carries an id_token. oidc-provider
 *   only knows non-OpenID scopes as a Resource Server's (RFC 8707): when a resource scope is asked for, the
 *   request is bound to `resource` without the client sending `resource`, and the access token is then for that
 *   API: its `scope` (in the token answer and in introspection) holds only the resource scopes, and it does not
 *   work at the userinfo endpoint. Without a resource scope the access token is the userinfo endpoint's.
 * - Refresh tokens: issued on every code exchange, with or without `offline_access`, unless
 *   `requireOfflineAccess`. Then note oidc-provider's rule (OpenID Connect Core §11): `offline_access` is
 *   dropped from a request without `prompt=consent`, so no refresh token comes unless the client sends both.
 *   With `rotateRefreshTokens` (default), each refresh answers a new refresh token and
 *   consumes the old one; presenting a consumed one again answers invalid_grant AND revokes the whole grant
 *   (oidc-provider's reuse detection): the newest refresh token and the access tokens stop working too.
 * - Login and consent: small pages of our own at /interaction/:uid (oidc-provider's devInteractions pages load a
 *   Google font, which a browser test must not fetch, and have no labels). Login: "Username" and "Password"
 *   fields and a "Sign in" button (any username signs in as that account; the password is not checked).
 *   Consent: the scopes asked for, an "Authorize" button and a "Deny" button (Deny answers access_denied to the
 *   redirect URI). `authorize()` submits these same forms over HTTP, so a Chromium test can click them instead
 *   (the pages load nothing else; the browser must accept the test CA, e.g. `ignoreHTTPSErrors`).
 * - Accounts: any id; claims `{ sub: id, email: '<id>@example.test', email_verified: true, name }`.
 * - Access tokens are opaque; their lifetime is `accessTokenTtlSeconds` (whole seconds; a token expires within
 *   that many seconds of its issue, as oidc-provider counts expiry in whole seconds).
 * - Storage is in memory, per provider; signing keys (RS256) are made per test process.
 */

export interface OAuthProviderClient {
  clientId: string;
  clientSecret: string;
  redirectUris: string[];
  /** How the client authenticates at the token, revocation and introspection endpoints; default client_secret_basic. */
  tokenEndpointAuthMethod?: 'client_secret_basic' | 'client_secret_post';
}

export interface OAuthProviderOptions {
  clients: OAuthProviderClient[];
  /** Lifetime of access tokens; short for expiry tests (2-5 s). Default 3600. */
  accessTokenTtlSeconds?: number;
  /** Default true: every refresh returns a new refresh token, and the old one answers invalid_grant (see above). */
  rotateRefreshTokens?: boolean;
  /** Issue a refresh token only when `offline_access` was granted (it needs `prompt=consent` too). Default false: always. */
  requireOfflineAccess?: boolean;
  /** Scopes of the resource API (non-OpenID scopes). Default ['calendar.read', 'calendar.write']. */
  resourceScopes?: string[];
}

export interface TokenRequestRecord {
  /** The `grant_type` sent ('' when none). */
  grantType: string;
  /** The answer's HTTP status. */
  status: number;
  /** The OAuth error code of an error answer (invalid_grant, invalid_client, …). */
  error?: string;
  /** How the client authenticated: an Authorization header (basic), client_secret in the body (post), or neither. */
  clientAuth: 'client_secret_basic' | 'client_secret_post' | 'none';
  /** For refresh requests: `tokenFingerprint(refresh_token)`, never the token itself. */
  refreshTokenFingerprint?: string;
}

export interface RevocationRequestRecord {
  status: number;
  /** `tokenFingerprint(token)` of the revoked token. */
  tokenFingerprint?: string;
  tokenTypeHint?: string;
}

export interface IntrospectionAnswer {
  active: boolean;
  sub?: string;
  scope?: string;
  client_id?: string;
  exp?: number;
  aud?: string | string[];
  /** 'Bearer' for an access token; absent for a refresh token. */
  token_type?: string;
  [claim: string]: unknown;
}

export interface AuthorizeOptions {
  /** The account to sign in as (any id works). Default 'alice'. */
  accountId?: string;
  /** Press "Deny" on the consent page: the provider answers error=access_denied to the redirect URI. */
  deny?: boolean;
}

export interface OAuthProvider {
  /** https://127.0.0.1:<port> */
  issuer: string;
  authorizationUrl: string;
  tokenUrl: string;
  revocationUrl: string;
  introspectionUrl: string;
  userinfoUrl: string;
  jwksUrl: string;
  /** The resource indicator (RFC 8707) resource-scope access tokens are issued for (their `aud`). */
  resource: string;
  /** The test CA's PEM file, which trusts this server's certificate. */
  caFile: string;
  /** Every request to the token endpoint, in order. */
  tokenRequests: TokenRequestRecord[];
  /** Every request to the revocation endpoint, in order. */
  revocationRequests: RevocationRequestRecord[];
  /**
   * Completes an authorization in the browser's place, with plain HTTP: opens `authorizationUrl` (built by the
   * client under test), signs in as `accountId`, consents (or denies), and returns the URL the provider then
   * redirects to (the client's redirect_uri with code and state, or with error), without following it. Throws
   * when the provider answers an error page instead (unknown client, redirect_uri not registered, no PKCE…).
   */
  authorize(authorizationUrl: string, options?: AuthorizeOptions): Promise<string>;
  /** Revokes every grant of `accountId` (of every account when omitted): its access and refresh tokens stop working. */
  revokeGrants(accountId?: string): Promise<void>;
  /** What a protected API does with a bearer token: introspection. A refresh token is never active here. */
  verifyAccessToken(token: string): Promise<{ active: boolean; sub?: string; scope?: string }>;
  /** The provider's introspection answer for any token it issued. */
  introspect(token: string): Promise<IntrospectionAnswer>;
  close(): Promise<void>;
}

/** A short, stable, non-reversible name for a token, for records and messages (never log the token). */
export function tokenFingerprint(token: string): string {
  return createHash('sha256').update(token).digest('hex').slice(0, 12);
}

const ROUTES = {
  authorization: '/auth',
  token: '/token',
  revocation: '/token/revocation',
  introspection: '/token/introspection',
  userinfo: '/me',
  jwks: '/jwks',
};
/** The client the harness itself introspects with (a resource server's credentials). */
const INTROSPECTOR_ID = 'test-resource-server';
const RESOURCE = 'urn:switchboard-test:calendar-api';

// --- Loading oidc-provider quietly -------------------------------------------

let providerModule: Promise<typeof import('oidc-provider')> | undefined;

/**
 * oidc-provider v9 supports Node.js 22 LTS and later and says so on import under older LTS releases (Node 20
 * here); it runs fine on 20.19+. That one line is dropped so test output stays clean; every other warning passes.
 */
function loadOidcProvider(): Promise<typeof import('oidc-provider')> {
  providerModule ??= (async () => {
    const warn = console.warn;
    console.warn = (...args: unknown[]) => {
      if (typeof args[0] === 'string' && args[0].includes('oidc-provider WARNING: Unsupported runtime')) return;
      warn(...args);
    };
    try {
      return await import('oidc-provider');
    } finally {
      console.warn = warn;
    }
  })();
  return providerModule;
}

let signingKeys: Promise<{ keys: Record<string, unknown>[] }> | undefined;

/** Our own RS256 key (oidc-provider warns about its built-in development keys), made once per process. */
function signingJwks(): Promise<{ keys: Record<string, unknown>[] }> {
  signingKeys ??= new Promise((resolve, reject) => {
    generateKeyPair('rsa', { modulusLength: 2048 }, (error, _publicKey, privateKey) => {
      if (error) return reject(error);
      resolve({ keys: [{ ...privateKey.export({ format: 'jwk' }), kid: randomUUID(), alg: 'RS256', use: 'sig' }] });
    });
  });
  return signingKeys;
}

// --- Storage -------------------------------------------------------------------

interface Stored {
  payload: AdapterPayload;
  expiresAt: number;
}

/**
 * oidc-provider's storage, in memory and per provider (its own in-memory adapter is shared by the process and
 * warns on use). Keys are `<Model>:<id>`; `revokeGrant` drops a grant with everything issued under it.
 */
function memoryStorage() {
  const entries = new Map<string, Stored>();
  const live = (key: string): Stored | undefined => {
    const entry = entries.get(key);
    if (entry && entry.expiresAt <= Date.now()) {
      entries.delete(key);
      return undefined;
    }
    return entry;
  };
  const findWhere = (model: string, match: (payload: AdapterPayload) => boolean): AdapterPayload | undefined => {
    for (const key of entries.keys()) {
      const entry = key.startsWith(`${model}:`) ? live(key) : undefined;
      if (entry && match(entry.payload)) return entry.payload;
    }
    return undefined;
  };
  const dropWhere = (match: (key: string, payload: AdapterPayload) => boolean) => {
    for (const [key, entry] of entries) if (match(key, entry.payload)) entries.delete(key);
  };

  const adapter = (model: string): Adapter => ({
    async upsert(id, payload, expiresIn) {
      // A little past the token's own expiry: the models check `exp` themselves and name expiry in their errors.
      const expiresAt = typeof expiresIn === 'number' ? Date.now() + (expiresIn + 60) * 1000 : Infinity;
      entries.set(`${model}:${id}`, { payload, expiresAt });
    },
    async find(id) {
      return live(`${model}:${id}`)?.payload;
    },
    async findByUid(uid) {
      return findWhere(model, (payload) => payload.uid === uid);
    },
    async findByUserCode(userCode) {
      return findWhere(model, (payload) => payload.userCode === userCode);
    },
    async consume(id) {
      const entry = live(`${model}:${id}`);
      if (entry) entry.payload.consumed = Math.floor(Date.now() / 1000);
    },
    async destroy(id) {
      entries.delete(`${model}:${id}`);
    },
    async revokeByGrantId(grantId) {
      dropWhere((key, payload) => key.startsWith(`${model}:`) && payload.grantId === grantId);
    },
  });

  return {
    adapter,
    /** Ids of the grants of `accountId` (of everyone when undefined). */
    grantIds(accountId: string | undefined): string[] {
      const ids: string[] = [];
      for (const [key, entry] of entries) {
        if (key.startsWith('Grant:') && (accountId === undefined || entry.payload.accountId === accountId)) ids.push(key.slice('Grant:'.length));
      }
      return ids;
    },
    revokeGrant(grantId: string) {
      dropWhere((key, payload) => key === `Grant:${grantId}` || payload.grantId === grantId);
    },
  };
}

// --- Interaction pages ---------------------------------------------------------

function escapeHtml(value: string): string {
  return value.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

function page(title: string, body: string): string {
  return `<!DOCTYPE html>
<html lang="en">
<head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>${escapeHtml(title)}</title>
<style>body{font-family:system-ui,sans-serif;max-width:26rem;margin:2rem auto;padding:0 1rem}label{display:block;margin-top:.75rem}input{display:block;width:100%;padding:.4rem;box-sizing:border-box}button{margin-top:1rem;padding:.5rem 1rem}form.choice{display:inline-block;margin-right:.5rem}</style>
</head>
<body><main>
<h1>${escapeHtml(title)}</h1>
${body}
</main></body>
</html>`;
}

function loginPage(uid: string, clientName: string, loginHint: string | undefined): string {
  return page('Sign in', `<p>to continue to ${escapeHtml(clientName)}</p>
<form method="post" action="/interaction/${escapeHtml(uid)}/login">
<label for="login">Username</label>
<input id="login" name="login" autocomplete="username" required${loginHint ? ` value="${escapeHtml(loginHint)}"` : ' autofocus'}>
<label for="password">Password</label>
<input id="password" name="password" type="password" autocomplete="current-password">
<button type="submit">Sign in</button>
</form>`);
}

function consentPage(uid: string, clientName: string, accountId: string, scopes: string[]): string {
  const items = scopes.map((scope) => `<li>${escapeHtml(scope)}</li>`).join('');
  return page(`Authorize ${clientName}`, `<p>Signed in as ${escapeHtml(accountId)}. ${escapeHtml(clientName)} asks for:</p>
<ul>${items || '<li>access you have already granted</li>'}</ul>
<form class="choice" method="post" action="/interaction/${escapeHtml(uid)}/confirm"><button type="submit">Authorize</button></form>
<form class="choice" method="post" action="/interaction/${escapeHtml(uid)}/abort"><button type="submit">Deny</button></form>`);
}

async function readForm(req: IncomingMessage): Promise<URLSearchParams> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return new URLSearchParams(Buffer.concat(chunks).toString('utf8'));
}

/** The pages at /interaction/:uid (GET) and their forms' targets (POST …/login, …/confirm, …/abort). */
function interactionRoutes(provider: ProviderType) {
  return async (ctx: KoaContextWithOIDC, next: () => Promise<void>): Promise<void> => {
    const match = /^\/interaction\/([\w-]+)(?:\/(login|confirm|abort))?$/.exec(ctx.path);
    if (!match) return next();
    const [, uid, action] = match;
    ctx.set('cache-control', 'no-store');
    try {
      const details = await provider.interactionDetails(ctx.req, ctx.res);
      if (details.uid !== uid) throw new Error('this interaction is not the one in progress');
      const client = await provider.Client.find(String(details.params.client_id));
      const clientName = client?.clientName ?? String(details.params.client_id);

      if (ctx.method === 'GET' && !action) {
        ctx.type = 'html';
        if (details.prompt.name === 'login') {
          const hint = typeof details.params.login_hint === 'string' ? details.params.login_hint : undefined;
          ctx.body = loginPage(uid!, clientName, hint);
        } else {
          const missing = details.prompt.details as { missingOIDCScope?: string[]; missingResourceScopes?: Record<string, string[]> };
          const scopes = [...(missing.missingOIDCScope ?? []), ...Object.values(missing.missingResourceScopes ?? {}).flat()];
          ctx.body = consentPage(uid!, clientName, details.session?.accountId ?? '', scopes);
        }
        return;
      }
      if (ctx.method !== 'POST' || !action) {
        ctx.status = 405;
        return;
      }

      const form = await readForm(ctx.req);
      let result: InteractionResults;
      if (action === 'abort') {
        result = { error: 'access_denied', error_description: 'End-User denied the authorization' };
      } else if (action === 'login') {
        const accountId = form.get('login')?.trim();
        if (details.prompt.name !== 'login' || !accountId) throw new Error('nothing to sign in');
        result = { login: { accountId } };
      } else {
        if (details.prompt.name !== 'consent') throw new Error('nothing to consent to');
        result = { consent: { grantId: await grantConsent(provider, details) } };
      }
      const returnTo = await provider.interactionResult(ctx.req, ctx.res, result, { mergeWithLastSubmission: action === 'confirm' });
      ctx.status = 303;
      ctx.redirect(returnTo);
    } catch (error) {
      ctx.status = 400;
      ctx.type = 'html';
      ctx.body = page('Sign-in failed', `<p>${escapeHtml(error instanceof Error ? error.message : String(error))}</p>`);
    }
  };
}

/** Grants everything the consent prompt says is missing (as oidc-provider's own dev interactions do). */
async function grantConsent(provider: ProviderType, details: Awaited<ReturnType<ProviderType['interactionDetails']>>): Promise<string> {
  const { prompt, grantId, session, params } = details;
  const grant = grantId
    ? await provider.Grant.find(grantId)
    : new provider.Grant({ accountId: session?.accountId ?? '', clientId: String(params.client_id) });
  if (!grant) throw new Error('the grant being extended is gone');
  const missing = prompt.details as { missingOIDCScope?: string[]; missingOIDCClaims?: string[]; missingResourceScopes?: Record<string, string[]> };
  if (missing.missingOIDCScope) grant.addOIDCScope(missing.missingOIDCScope.join(' '));
  if (missing.missingOIDCClaims) grant.addOIDCClaims(missing.missingOIDCClaims);
  for (const [indicator, scopes] of Object.entries(missing.missingResourceScopes ?? {})) grant.addResourceScope(indicator, scopes.join(' '));
  return grant.save();
}

// --- Token endpoint records ----------------------------------------------------

function firstString(value: unknown): string | undefined {
  if (typeof value === 'string') return value;
  if (Array.isArray(value) && typeof value[0] === 'string') return value[0];
  return undefined;
}

/** Records token and revocation requests once oidc-provider has answered them (its errors are answered inside). */
function recordRequests(tokenRequests: TokenRequestRecord[], revocationRequests: RevocationRequestRecord[]) {
  return async (ctx: KoaContextWithOIDC, next: () => Promise<void>): Promise<void> => {
    const route = ctx.method !== 'POST' ? undefined : ctx.path === ROUTES.token ? 'token' : ctx.path === ROUTES.revocation ? 'revocation' : undefined;
    if (!route) return next();
    await next();
    const body = (ctx.oidc?.body ?? {}) as Record<string, unknown>;
    const answer = ctx.body as { error?: unknown } | undefined;
    if (route === 'token') {
      const grantType = firstString(body.grant_type) ?? '';
      const refreshToken = firstString(body.refresh_token);
      tokenRequests.push({
        grantType,
        status: ctx.status,
        ...(ctx.status >= 400 && typeof answer?.error === 'string' ? { error: answer.error } : {}),
        clientAuth: ctx.get('authorization') ? 'client_secret_basic' : body.client_secret !== undefined ? 'client_secret_post' : 'none',
        ...(grantType === 'refresh_token' && refreshToken ? { refreshTokenFingerprint: tokenFingerprint(refreshToken) } : {}),
      });
    } else {
      const token = firstString(body.token);
      const hint = firstString(body.token_type_hint);
      revocationRequests.push({
        status: ctx.status,
        ...(token ? { tokenFingerprint: tokenFingerprint(token) } : {}),
        ...(hint ? { tokenTypeHint: hint } : {}),
      });
    }
  };
}

// --- The browser's part, over HTTP ---------------------------------------------

interface FormOnPage {
  action: string;
  button: string;
  fields: Map<string, string>;
}

/** The forms of one of our interaction pages: action, submit button label, named inputs with their values. */
function formsOf(html: string): FormOnPage[] {
  return [...html.matchAll(/<form\b([^>]*)>([\s\S]*?)<\/form>/g)].map(([, attributes, inner]) => {
    const fields = new Map<string, string>();
    for (const [, input] of inner!.matchAll(/<input\b([^>]*)>/g)) {
      const name = /\bname="([^"]*)"/.exec(input!)?.[1];
      if (name) fields.set(name, /\bvalue="([^"]*)"/.exec(input!)?.[1] ?? '');
    }
    return {
      action: /\baction="([^"]*)"/.exec(attributes!)?.[1] ?? '',
      button: /<button\b[^>]*>([^<]*)<\/button>/.exec(inner!)?.[1]?.trim() ?? '',
      fields,
    };
  });
}

/** An error page's words, for an exception's message. */
function pageText(html: string): string {
  const body = /<body[^>]*>([\s\S]*)<\/body>/i.exec(html)?.[1] ?? html;
  return body
    .replace(/<[^>]+>/g, ' ')
    .replace(/&#(\d+);/g, (_, code: string) => String.fromCharCode(Number(code)))
    .replace(/&quot;/g, '"').replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&amp;/g, '&')
    .replace(/\s+/g, ' ')
    .trim()
    .slice(0, 500);
}

async function driveAuthorization(issuer: string, agent: Agent, authorizationUrl: string, options: AuthorizeOptions): Promise<string> {
  const accountId = options.accountId ?? 'alice';
  if (new URL(authorizationUrl).origin !== issuer) throw new Error(`authorize(): ${authorizationUrl} is not on this provider (${issuer})`);

  const cookies = new Map<string, string>();
  let url = authorizationUrl;
  let form: URLSearchParams | undefined;
  for (let step = 0; step < 20; step += 1) {
    const response = await request(url, {
      dispatcher: agent,
      method: form ? 'POST' : 'GET',
      headers: {
        accept: 'text/html',
        ...(cookies.size ? { cookie: [...cookies].map(([name, value]) => `${name}=${value}`).join('; ') } : {}),
        ...(form ? { 'content-type': 'application/x-www-form-urlencoded' } : {}),
      },
      body: form?.toString(),
    });
    const text = await response.body.text();
    const setCookie = response.headers['set-cookie'];
    for (const line of Array.isArray(setCookie) ? setCookie : setCookie ? [setCookie] : []) {
      const [pair = ''] = line.split(';');
      const name = pair.slice(0, pair.indexOf('=')).trim();
      const value = pair.slice(pair.indexOf('=') + 1).trim();
      // An emptied or expired cookie is the provider deleting it.
      if (!value || /expires=Thu, 01 Jan 1970/i.test(line)) cookies.delete(name);
      else cookies.set(name, value);
    }

    const location = response.headers.location;
    if (response.statusCode >= 300 && response.statusCode < 400 && typeof location === 'string') {
      const next = new URL(location, url);
      // Off the provider: this is the redirect to the client, which the browser would follow and we return.
      if (next.origin !== issuer) return next.href;
      url = next.href;
      form = undefined;
      continue;
    }
    if (response.statusCode !== 200) throw new Error(`authorize(): the provider answered ${response.statusCode} at ${new URL(url).pathname}: ${pageText(text)}`);

    const forms = formsOf(text);
    const signIn = forms.find((f) => f.button === 'Sign in');
    const choice = forms.find((f) => f.button === (options.deny ? 'Deny' : 'Authorize'));
    const chosen = signIn ?? choice;
    if (!chosen) throw new Error(`authorize(): no Sign in or Authorize form at ${new URL(url).pathname}: ${pageText(text)}`);
    form = new URLSearchParams([...chosen.fields]);
    if (chosen === signIn) {
      form.set('login', accountId);
      form.set('password', 'any password');
    }
    url = new URL(chosen.action, url).href;
  }
  throw new Error('authorize(): more than 20 steps without reaching the redirect URI');
}

// --- The provider ----------------------------------------------------------------

export async function startOAuthProvider(options: OAuthProviderOptions): Promise<OAuthProvider> {
  const [{ default: Provider }, jwks] = await Promise.all([loadOidcProvider(), signingJwks()]);
  const { key, cert, caFile, caPem } = testCertificates();
  const accessTokenTtl = options.accessTokenTtlSeconds ?? 3600;
  const resourceScopes = new Set(options.resourceScopes ?? ['calendar.read', 'calendar.write']);
  const storage = memoryStorage();
  const tokenRequests: TokenRequestRecord[] = [];
  const revocationRequests: RevocationRequestRecord[] = [];
  const introspector = { id: INTROSPECTOR_ID, secret: randomBytes(24).toString('base64url') };

  // The issuer needs the port, so the server listens first and gets its handler once the provider exists.
  let handler: (req: IncomingMessage, res: ServerResponse) => void = (_req, res) => {
    res.statusCode = 503;
    res.end();
  };
  const server = createServer({ key, cert }, (req, res) => handler(req, res));
  server.on('tlsClientError', () => {});
  const sockets = new Set<Socket>();
  server.on('connection', (socket: Socket) => {
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const issuer = `https://127.0.0.1:${(server.address() as AddressInfo).port}`;

  const clients: ClientMetadata[] = options.clients.map((client) => ({
    client_id: client.clientId,
    client_secret: client.clientSecret,
    redirect_uris: client.redirectUris,
    grant_types: ['authorization_code', 'refresh_token'],
    response_types: ['code'],
    token_endpoint_auth_method: client.tokenEndpointAuthMethod ?? 'client_secret_basic',
  }));
  // Our own credentials for introspection, as a protected API (resource server) would hold.
  clients.push({ client_id: introspector.id, client_secret: introspector.secret, grant_types: [], response_types: [], redirect_uris: [] });

  const asksForResource = (scope: unknown) => typeof scope === 'string' && scope.split(' ').some((s) => resourceScopes.has(s));

  const configuration: Configuration = {
    adapter: storage.adapter,
    clients,
    jwks: jwks as Configuration['jwks'],
    routes: ROUTES,
    findAccount: async (_ctx, id) => ({
      accountId: id,
      claims: async () => ({ sub: id, email: `${id}@example.test`, email_verified: true, name: id.charAt(0).toUpperCase() + id.slice(1) }),
    }),
    claims: { openid: ['sub'], email: ['email', 'email_verified'], profile: ['name'] },
    // The ID token carries the scopes' claims (email, name), as Google's and Microsoft's do: what a client labels an account by.
    conformIdTokenClaims: false,
    scopes: ['openid', 'offline_access', 'email', 'profile'],
    pkce: { required: () => true },
    features: {
      devInteractions: { enabled: false },
      introspection: { enabled: true, allowedPolicy: async () => true },
      revocation: { enabled: true, allowedPolicy: async (_ctx, client, token) => token.clientId === client.clientId },
      resourceIndicators: {
        enabled: true,
        // A client asking for a resource scope need not send `resource` (generic OAuth clients do not).
        defaultResource: async (ctx, _client, oneOf) => {
          if (oneOf) return oneOf.includes(RESOURCE) ? RESOURCE : oneOf;
          return asksForResource(ctx.oidc.params?.scope) ? RESOURCE : undefined;
        },
        useGrantedResource: async () => true,
        getResourceServerInfo: async () => ({
          scope: [...resourceScopes].join(' '),
          audience: RESOURCE,
          accessTokenFormat: 'opaque',
          accessTokenTTL: accessTokenTtl,
        }),
      },
    },
    issueRefreshToken: async (_ctx, client, code) =>
      client.grantTypeAllowed('refresh_token') && (!options.requireOfflineAccess || code.scopes.has('offline_access')),
    // Tokens outlive the provider's browser session: a connection keeps working after that cookie is gone.
    expiresWithSession: async () => false,
    rotateRefreshToken: options.rotateRefreshTokens ?? true,
    ttl: {
      AccessToken: accessTokenTtl,
      AuthorizationCode: 60,
      IdToken: 3600,
      RefreshToken: 14 * 24 * 3600,
      Interaction: 600,
      Session: 3600,
      Grant: 14 * 24 * 3600,
    },
    clientBasedCORS: () => false,
    renderError: async (ctx, out) => {
      ctx.type = 'html';
      ctx.body = page('Authorization error', Object.entries(out).map(([name, value]) => `<p><strong>${escapeHtml(name)}</strong>: ${escapeHtml(String(value))}</p>`).join('\n'));
    },
  };

  const provider = new Provider(issuer, configuration);
  provider.use(recordRequests(tokenRequests, revocationRequests) as Parameters<ProviderType['use']>[0]);
  provider.use(interactionRoutes(provider) as Parameters<ProviderType['use']>[0]);
  // A bug in the provider's configuration would otherwise only show as a 500 in tokenRequests.
  provider.on('server_error', (_ctx: unknown, error: Error) => console.error('oidc-provider server_error:', error));
  handler = provider.callback();

  const agent = new Agent({ connect: { ca: caPem } });

  const introspect = async (token: string): Promise<IntrospectionAnswer> => {
    const response = await request(`${issuer}${ROUTES.introspection}`, {
      dispatcher: agent,
      method: 'POST',
      headers: {
        authorization: `Basic ${Buffer.from(`${encodeURIComponent(introspector.id)}:${encodeURIComponent(introspector.secret)}`).toString('base64')}`,
        'content-type': 'application/x-www-form-urlencoded',
      },
      body: new URLSearchParams({ token }).toString(),
    });
    const answer = (await response.body.json()) as IntrospectionAnswer;
    if (response.statusCode !== 200) throw new Error(`introspection answered ${response.statusCode}: ${JSON.stringify(answer)}`);
    return answer;
  };

  return {
    issuer,
    authorizationUrl: `${issuer}${ROUTES.authorization}`,
    tokenUrl: `${issuer}${ROUTES.token}`,
    revocationUrl: `${issuer}${ROUTES.revocation}`,
    introspectionUrl: `${issuer}${ROUTES.introspection}`,
    userinfoUrl: `${issuer}${ROUTES.userinfo}`,
    jwksUrl: `${issuer}${ROUTES.jwks}`,
    resource: RESOURCE,
    caFile,
    tokenRequests,
    revocationRequests,
    authorize: (authorizationUrl, authorizeOptions = {}) => driveAuthorization(issuer, agent, authorizationUrl, authorizeOptions),
    async revokeGrants(accountId) {
      for (const grantId of storage.grantIds(accountId)) storage.revokeGrant(grantId);
    },
    async verifyAccessToken(token) {
      const answer = await introspect(token);
      // Introspection also answers for refresh tokens (no token_type); a protected API must refuse those.
      if (!answer.active || answer.token_type !== 'Bearer') return { active: false };
      return { active: true, ...(answer.sub ? { sub: answer.sub } : {}), ...(answer.scope ? { scope: answer.scope } : {}) };
    },
    introspect,
    async close() {
      await agent.close();
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
