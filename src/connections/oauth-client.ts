import * as oauth from 'oauth4webapi';
import type { OAuthSettings } from '../tools/oauth-settings.js';

/**
 * The OAuth 2.0 client side of a connection, through oauth4webapi (panva, OpenID Certified): the authorization
 * request with PKCE, the code exchange, refreshes (RFC 6749 §6) and revocation (RFC 7009). Its `fetch` is the tool
 * HTTP client's (net/http-client.ts): the address policy on every address dialled, the call deadline, the response
 * cap, no redirect followed. Nothing here logs or stores a token; failures come back as values.
 */

export interface TokenGrant {
  accessToken: string;
  /** Undefined when the answer carried none (a refresh may keep the old one). */
  refreshToken: string | undefined;
  /** Seconds; undefined when the provider did not say (then the token is refreshed only when an endpoint refuses it). */
  expiresIn: number | undefined;
  /** Granted scopes when the provider said (RFC 6749 §5.1: it must when they differ from those asked). */
  scope: string | undefined;
  /** The account's email, user name or name from a validated ID token, when the provider sent one. */
  accountLabel: string | undefined;
}

/**
 * Why a token request failed: the grant is gone (`invalid_grant`: a person must reconnect), the provider refused
 * something else (`refused`: a misconfigured client, a redirect), or it could not be asked (`unavailable`: timeout,
 * network, 5xx). `message` is ours, with the provider's error code, never a token.
 */
export type TokenFailure = { kind: 'invalid_grant' | 'refused' | 'unavailable'; message: string };
export type TokenResult = { ok: true; grant: TokenGrant } | { ok: false; failure: TokenFailure };

/** The issuer an ID token or an `iss` parameter (RFC 9207) must name: the authorization URL's origin. */
function authorizationServer(settings: OAuthSettings): oauth.AuthorizationServer {
  return {
    issuer: new URL(settings.authorizationUrl).origin,
    authorization_endpoint: settings.authorizationUrl,
    token_endpoint: settings.tokenUrl,
    ...(settings.revocationUrl !== null ? { revocation_endpoint: settings.revocationUrl } : {}),
  };
}

function clientAuth(settings: OAuthSettings, clientSecret: string): oauth.ClientAuth {
  return settings.tokenAuthMethod === 'client_secret_post' ? oauth.ClientSecretPost(clientSecret) : oauth.ClientSecretBasic(clientSecret);
}

const MAX_LABEL_CHARS = 200;

function grantOf(response: oauth.TokenEndpointResponse): TokenGrant {
  const claims = oauth.getValidatedIdTokenClaims(response);
  const label = [claims?.['email'], claims?.['preferred_username'], claims?.['name']].find((value): value is string => typeof value === 'string' && value.trim() !== '');
  return {
    accessToken: response.access_token,
    refreshToken: response.refresh_token,
    expiresIn: typeof response.expires_in === 'number' && Number.isFinite(response.expires_in) && response.expires_in > 0 ? response.expires_in : undefined,
    scope: response.scope,
    accountLabel: label?.slice(0, MAX_LABEL_CHARS),
  };
}

/** A provider's error code as it may be shown: short, printable. */
function errorCode(value: unknown): string {
  return typeof value === 'string' ? value.replace(/[^\x21-\x7E]/g, '').slice(0, 64) : 'unknown';
}

/** What a failed token request was, in our words. */
export function classifyTokenError(error: unknown): TokenFailure {
  if (error instanceof oauth.ResponseBodyError) {
    const code = errorCode(error.error);
    if (code === 'invalid_grant') return { kind: 'invalid_grant', message: 'The provider refused the grant (invalid_grant): it expired or was revoked.' };
    if (error.status >= 500) return { kind: 'unavailable', message: `The provider's token endpoint answered ${error.status} (${code}).` };
    return { kind: 'refused', message: `The provider's token endpoint refused the request (${code}, HTTP ${error.status}).` };
  }
  if (error instanceof oauth.AuthorizationResponseError) {
    return { kind: 'refused', message: `The provider did not authorize (${errorCode(error.error)}).` };
  }
  if (error instanceof oauth.WWWAuthenticateChallengeError) {
    return { kind: 'refused', message: `The provider's token endpoint refused the client (HTTP ${error.status}): check the tool's client id and secret.` };
  }
  if (error instanceof oauth.OperationProcessingError) {
    const cause = error.cause;
    if (cause instanceof Response) {
      if (cause.status >= 500) return { kind: 'unavailable', message: `The provider's token endpoint answered ${cause.status}.` };
      if (cause.status >= 300 && cause.status < 400) return { kind: 'refused', message: `The provider's token endpoint answered a redirect (${cause.status}), which is not followed.` };
      return { kind: 'refused', message: `The provider's token endpoint answered ${cause.status} without an OAuth error.` };
    }
    return { kind: 'refused', message: 'The provider\'s token endpoint answered something that is not a token response.' };
  }
  if (error instanceof Error && error.name === 'TimeoutError') return { kind: 'unavailable', message: 'The provider\'s token endpoint did not answer in time.' };
  if (error instanceof TypeError) return { kind: 'unavailable', message: 'The provider\'s token endpoint could not be reached.' };
  if (error instanceof oauth.UnsupportedOperationError) return { kind: 'refused', message: 'The provider issued a token type other than Bearer.' };
  return { kind: 'unavailable', message: 'The provider\'s token endpoint could not be asked.' };
}

export interface AuthorizationRequest {
  redirectUri: string;
  state: string;
  codeChallenge: string;
}

export function createOAuthClient(deps: { fetch: typeof globalThis.fetch }) {
  const options = { [oauth.customFetch]: deps.fetch } as const;

  /** The provider's authorization URL: the developer's extras first, then ours (extras may not name ours). */
  function authorizationUrl(settings: OAuthSettings, request: AuthorizationRequest): string {
    const url = new URL(settings.authorizationUrl);
    for (const [name, value] of Object.entries(settings.extraAuthorizeParams)) url.searchParams.set(name, value);
    url.searchParams.set('response_type', 'code');
    url.searchParams.set('client_id', settings.clientId);
    url.searchParams.set('redirect_uri', request.redirectUri);
    if (settings.scopes.length > 0) url.searchParams.set('scope', settings.scopes.join(' '));
    url.searchParams.set('state', request.state);
    url.searchParams.set('code_challenge', request.codeChallenge);
    url.searchParams.set('code_challenge_method', 'S256');
    return url.href;
  }

  /** The callback's code for tokens (RFC 6749 §4.1.3), with the PKCE verifier. `params` is the callback's query. */
  async function exchangeCode(settings: OAuthSettings, clientSecret: string, params: URLSearchParams, expectedState: string, redirectUri: string, codeVerifier: string): Promise<TokenResult> {
    const as = authorizationServer(settings);
    const client: oauth.Client = { client_id: settings.clientId };
    try {
      const checked = oauth.validateAuthResponse(as, client, params, expectedState);
      const response = await oauth.authorizationCodeGrantRequest(as, client, clientAuth(settings, clientSecret), checked, redirectUri, codeVerifier, options);
      return { ok: true, grant: grantOf(await oauth.processAuthorizationCodeResponse(as, client, response)) };
    } catch (error) {
      return { ok: false, failure: classifyTokenError(error) };
    }
  }

  /** A refresh (RFC 6749 §6). */
  async function refresh(settings: OAuthSettings, clientSecret: string, refreshToken: string): Promise<TokenResult> {
    const as = authorizationServer(settings);
    const client: oauth.Client = { client_id: settings.clientId };
    try {
      const response = await oauth.refreshTokenGrantRequest(as, client, clientAuth(settings, clientSecret), refreshToken, options);
      return { ok: true, grant: grantOf(await oauth.processRefreshTokenResponse(as, client, response)) };
    } catch (error) {
      return { ok: false, failure: classifyTokenError(error) };
    }
  }

  /** Revokes a token at the provider (RFC 7009); false when it could not be (the tokens are wiped here either way). */
  async function revoke(settings: OAuthSettings, clientSecret: string, token: string, hint: 'refresh_token' | 'access_token'): Promise<boolean> {
    if (settings.revocationUrl === null) return false;
    const as = authorizationServer(settings);
    const client: oauth.Client = { client_id: settings.clientId };
    try {
      const response = await oauth.revocationRequest(as, client, clientAuth(settings, clientSecret), token, { ...options, additionalParameters: { token_type_hint: hint } });
      await oauth.processRevocationResponse(response);
      return true;
    } catch {
      return false;
    }
  }

  return { authorizationUrl, exchangeCode, refresh, revoke };
}

export type OAuthClient = ReturnType<typeof createOAuthClient>;
