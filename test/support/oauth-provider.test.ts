import * as oauth from 'oauth4webapi';
import { Agent, fetch as undiciFetch } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testCertificates } from './https-endpoint.js';
import { startOAuthProvider, tokenFingerprint, type OAuthProvider, type OAuthProviderClient } from './oauth-provider.js';
import {
  accessTokenOnly,
  invalidGrant,
  refreshWithoutNewRefreshToken,
  startScriptedTokenServer,
  unavailable,
  type ScriptedTokenServer,
} from './oauth-scripted-token-server.js';

/**
 * The OAuth harness, proven with a real OAuth client library (oauth4webapi) against it: authorization code with
 * PKCE, expiry, refresh with rotation, revocation, denial; and the scripted token endpoint.
 */

const REDIRECT_URI = 'https://127.0.0.1:9/oauth/callback';
const basicClient: OAuthProviderClient = { clientId: 'switchboard', clientSecret: 'basic-secret', redirectUris: [REDIRECT_URI] };
const postClient: OAuthProviderClient = { clientId: 'switchboard-post', clientSecret: 'post-secret', redirectUris: [REDIRECT_URI], tokenEndpointAuthMethod: 'client_secret_post' };

// What a server trusting TOOL_CA_FILE does: undici's fetch with the test CA.
const agent = new Agent({ connect: { ca: testCertificates().caPem } });
const fetchWithCa: (url: string, init: RequestInit) => Promise<Response> = (url, init) =>
  undiciFetch(url, { ...(init as object), dispatcher: agent }) as unknown as Promise<Response>;
const options = { [oauth.customFetch]: fetchWithCa };

let provider: OAuthProvider;
let as: oauth.AuthorizationServer;

beforeAll(async () => {
  provider = await startOAuthProvider({ clients: [basicClient, postClient], accessTokenTtlSeconds: 2 });
  const issuer = new URL(provider.issuer);
  as = await oauth.processDiscoveryResponse(issuer, await oauth.discoveryRequest(issuer, options));
});

afterAll(async () => {
  await provider?.close();
  await agent.close();
});

/** The client's side of an authorization: URL with PKCE S256 and state, the provider's redirect, the code exchange. */
async function connect(client: OAuthProviderClient, scope: string, accountId = 'alice') {
  const verifier = oauth.generateRandomCodeVerifier();
  const state = oauth.generateRandomState();
  const url = new URL(as.authorization_endpoint!);
  url.search = new URLSearchParams({
    response_type: 'code',
    client_id: client.clientId,
    redirect_uri: REDIRECT_URI,
    scope,
    state,
    code_challenge: await oauth.calculatePKCECodeChallenge(verifier),
    code_challenge_method: 'S256',
  }).toString();
  const redirect = await provider.authorize(url.href, { accountId });
  const params = oauth.validateAuthResponse(as, { client_id: client.clientId }, new URL(redirect), state);
  const response = await oauth.authorizationCodeGrantRequest(as, { client_id: client.clientId }, auth(client), params, REDIRECT_URI, verifier, options);
  return oauth.processAuthorizationCodeResponse(as, { client_id: client.clientId }, response);
}

function auth(client: OAuthProviderClient) {
  return client.tokenEndpointAuthMethod === 'client_secret_post' ? oauth.ClientSecretPost(client.clientSecret) : oauth.ClientSecretBasic(client.clientSecret);
}

async function refresh(client: OAuthProviderClient, refreshToken: string) {
  const response = await oauth.refreshTokenGrantRequest(as, { client_id: client.clientId }, auth(client), refreshToken, options);
  return oauth.processRefreshTokenResponse(as, { client_id: client.clientId }, response);
}

async function refreshError(client: OAuthProviderClient, refreshToken: string): Promise<string | undefined> {
  const error = await refresh(client, refreshToken).then(() => undefined, (e: unknown) => e);
  return error instanceof oauth.ResponseBodyError ? error.error : `not an OAuth error: ${String(error)}`;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('startOAuthProvider', () => {
  it('is an issuer at the bare origin, with the harness URLs in its discovery', () => {
    expect(provider.issuer).toMatch(/^https:\/\/127\.0\.0\.1:\d+$/);
    expect(as.issuer).toBe(provider.issuer);
    expect(as.authorization_endpoint).toBe(provider.authorizationUrl);
    expect(as.token_endpoint).toBe(provider.tokenUrl);
    expect(as.revocation_endpoint).toBe(provider.revocationUrl);
    expect(as.introspection_endpoint).toBe(provider.introspectionUrl);
    expect(as.userinfo_endpoint).toBe(provider.userinfoUrl);
    expect(as.code_challenge_methods_supported).toEqual(['S256']);
  });

  it('runs the code flow with PKCE, expires the access token, rotates refresh tokens and revokes grants', async () => {
    const first = provider.tokenRequests.length;
    const tokens = await connect(basicClient, 'openid email offline_access calendar.read');
    expect(tokens.token_type).toBe('bearer');
    expect(tokens.refresh_token).toEqual(expect.any(String));
    expect(tokens.expires_in).toBe(2);
    // Resource scopes bind the access token to the resource: its scope is the API's only.
    expect(tokens.scope).toBe('calendar.read');
    expect(oauth.getValidatedIdTokenClaims(tokens)).toMatchObject({ iss: provider.issuer, sub: 'alice', aud: 'switchboard' });
    expect(await provider.verifyAccessToken(tokens.access_token)).toEqual({ active: true, sub: 'alice', scope: 'calendar.read' });
    expect(await provider.introspect(tokens.access_token)).toMatchObject({ aud: provider.resource, client_id: 'switchboard' });
    // A refresh token is no bearer token for an API.
    expect(await provider.verifyAccessToken(tokens.refresh_token!)).toEqual({ active: false });

    await sleep(2100);
    expect(await provider.verifyAccessToken(tokens.access_token)).toEqual({ active: false });

    const refreshed = await refresh(basicClient, tokens.refresh_token!);
    expect(refreshed.access_token).not.toBe(tokens.access_token);
    expect(refreshed.refresh_token).toEqual(expect.any(String));
    expect(refreshed.refresh_token).not.toBe(tokens.refresh_token);
    expect(await provider.verifyAccessToken(refreshed.access_token)).toMatchObject({ active: true, sub: 'alice' });

    // The old refresh token is spent: invalid_grant.
    expect(await refreshError(basicClient, tokens.refresh_token!)).toBe('invalid_grant');
    // …and presenting it again revoked the whole grant (oidc-provider's reuse detection): the new one is dead too.
    expect(await refreshError(basicClient, refreshed.refresh_token!)).toBe('invalid_grant');
    expect(await provider.verifyAccessToken(refreshed.access_token)).toEqual({ active: false });

    expect(provider.tokenRequests.slice(first)).toEqual([
      { grantType: 'authorization_code', status: 200, clientAuth: 'client_secret_basic' },
      { grantType: 'refresh_token', status: 200, clientAuth: 'client_secret_basic', refreshTokenFingerprint: tokenFingerprint(tokens.refresh_token!) },
      { grantType: 'refresh_token', status: 400, error: 'invalid_grant', clientAuth: 'client_secret_basic', refreshTokenFingerprint: tokenFingerprint(tokens.refresh_token!) },
      { grantType: 'refresh_token', status: 400, error: 'invalid_grant', clientAuth: 'client_secret_basic', refreshTokenFingerprint: tokenFingerprint(refreshed.refresh_token!) },
    ]);
  });

  it('revokeGrants makes an account\'s refresh tokens answer invalid_grant, and leaves other accounts alone', async () => {
    const bob = await connect(postClient, 'openid profile', 'bob');
    const carol = await connect(postClient, 'openid profile', 'carol');
    // Without a resource scope, the access token is the userinfo endpoint's.
    expect(bob.scope).toBe('openid profile');
    const userinfo = await oauth.userInfoRequest(as, { client_id: postClient.clientId }, bob.access_token, options);
    expect(await userinfo.json()).toEqual({ sub: 'bob', name: 'Bob' });
    expect(bob.refresh_token).toEqual(expect.any(String)); // issued without offline_access

    await provider.revokeGrants('bob');
    expect(await refreshError(postClient, bob.refresh_token!)).toBe('invalid_grant');
    expect(await provider.verifyAccessToken(bob.access_token)).toEqual({ active: false });
    expect((await refresh(postClient, carol.refresh_token!)).access_token).toEqual(expect.any(String));
    expect(provider.tokenRequests.at(-1)).toMatchObject({ grantType: 'refresh_token', status: 200, clientAuth: 'client_secret_post' });
  });

  it('revokes a refresh token at the revocation endpoint (RFC 7009)', async () => {
    const tokens = await connect(basicClient, 'openid offline_access');
    const response = await oauth.revocationRequest(as, { client_id: basicClient.clientId }, auth(basicClient), tokens.refresh_token!, options);
    await oauth.processRevocationResponse(response);
    expect(provider.revocationRequests.at(-1)).toEqual({ status: 200, tokenFingerprint: tokenFingerprint(tokens.refresh_token!) });
    expect(await refreshError(basicClient, tokens.refresh_token!)).toBe('invalid_grant');
  });

  it('answers access_denied to the redirect URI when the user denies', async () => {
    const state = oauth.generateRandomState();
    const url = new URL(provider.authorizationUrl);
    url.search = new URLSearchParams({
      response_type: 'code', client_id: basicClient.clientId, redirect_uri: REDIRECT_URI, scope: 'openid calendar.read', state,
      code_challenge: await oauth.calculatePKCECodeChallenge(oauth.generateRandomCodeVerifier()), code_challenge_method: 'S256',
    }).toString();
    const redirect = new URL(await provider.authorize(url.href, { deny: true }));
    expect(redirect.origin + redirect.pathname).toBe(REDIRECT_URI);
    expect(redirect.searchParams.get('error')).toBe('access_denied');
    expect(redirect.searchParams.get('state')).toBe(state);
    expect(() => oauth.validateAuthResponse(as, { client_id: basicClient.clientId }, redirect, state)).toThrow(oauth.AuthorizationResponseError);
  });

  it('requires PKCE: without a code_challenge the provider answers invalid_request', async () => {
    const url = new URL(provider.authorizationUrl);
    url.search = new URLSearchParams({ response_type: 'code', client_id: basicClient.clientId, redirect_uri: REDIRECT_URI, scope: 'openid', state: 's' }).toString();
    const redirect = new URL(await provider.authorize(url.href));
    expect(redirect.searchParams.get('error')).toBe('invalid_request');
    expect(redirect.searchParams.get('error_description')).toMatch(/PKCE/);
  });
});

describe('startScriptedTokenServer', () => {
  let server: ScriptedTokenServer;
  beforeAll(async () => {
    server = await startScriptedTokenServer();
  });
  afterAll(() => server?.close());

  it('answers from its script and records what the client sent', async () => {
    server.script(accessTokenOnly('at-1'), refreshWithoutNewRefreshToken('at-2', 60), invalidGrant(), unavailable(5));
    const scripted: oauth.AuthorizationServer = { issuer: server.origin, token_endpoint: server.tokenUrl };
    const client = { client_id: 'c1' };

    const code = await oauth.authorizationCodeGrantRequest(scripted, client, oauth.ClientSecretBasic('s e/cret'),
      oauth.validateAuthResponse(scripted, client, new URLSearchParams({ code: 'the-code' }), oauth.skipStateCheck), REDIRECT_URI, 'the-verifier', options);
    const first = await oauth.processAuthorizationCodeResponse(scripted, client, code);
    expect(first).toMatchObject({ access_token: 'at-1', token_type: 'bearer' });
    expect(first.expires_in).toBeUndefined();

    const second = await oauth.processRefreshTokenResponse(scripted, client,
      await oauth.refreshTokenGrantRequest(scripted, client, oauth.ClientSecretPost('post-secret'), 'rt-1', options));
    expect(second.refresh_token).toBeUndefined();

    const third = await oauth.refreshTokenGrantRequest(scripted, client, oauth.ClientSecretPost('post-secret'), 'rt-1', options);
    expect(third.status).toBe(400);
    expect(await third.json()).toEqual({ error: 'invalid_grant' });
    const fourth = await fetchWithCa(server.tokenUrl, { method: 'POST' });
    expect([fourth.status, fourth.headers.get('retry-after')]).toEqual([503, '5']);
    expect(server.pending).toBe(0);

    expect(server.requests.map(({ grantType, code: c, codeVerifier, refreshToken, clientId, clientSecret, clientAuth }) =>
      ({ grantType, code: c, codeVerifier, refreshToken, clientId, clientSecret, clientAuth }))).toEqual([
      { grantType: 'authorization_code', code: 'the-code', codeVerifier: 'the-verifier', refreshToken: undefined, clientId: 'c1', clientSecret: 's e/cret', clientAuth: 'client_secret_basic' },
      { grantType: 'refresh_token', code: undefined, codeVerifier: undefined, refreshToken: 'rt-1', clientId: 'c1', clientSecret: 'post-secret', clientAuth: 'client_secret_post' },
      { grantType: 'refresh_token', code: undefined, codeVerifier: undefined, refreshToken: 'rt-1', clientId: 'c1', clientSecret: 'post-secret', clientAuth: 'client_secret_post' },
      { grantType: undefined, code: undefined, codeVerifier: undefined, refreshToken: undefined, clientId: undefined, clientSecret: undefined, clientAuth: 'none' },
    ]);
    expect(server.requests[0]!.authorization).toMatch(/^Basic /);
  });
});
