import type { ExpiryPurge } from '../db/expiry-purger.js';
import { invalidClient } from '../http/auth-errors.js';
import { AppError } from '../http/errors.js';
import { isoNow, type Clock } from '../lib/clock.js';
import { hashSecret, safeEqual } from '../lib/hashing.js';
import { isWellFormedId, newSecret } from '../lib/ids.js';
import type { OAuthRepo } from './repo.js';
import type { TokenResponse } from './schema.js';
import { formatScopes, isScope, parseScopeList, type Scope } from './scopes.js';

/** Spec: access tokens are valid one hour. */
export const ACCESS_TOKEN_TTL_SECONDS = 3600;

export interface ClientCredentials {
  clientId: string;
  clientSecret: string;
  /** How the client authenticated; decides the WWW-Authenticate challenge on failure. */
  method: 'client_secret_basic' | 'client_secret_post';
}

/** Who is calling the Developer API, from a valid access token. */
export interface DeveloperPrincipal {
  developerId: string;
  appId: string;
  scopes: Scope[];
}

export type TokenCheck =
  | { ok: true; principal: DeveloperPrincipal }
  | { ok: false; reason: 'unknown' | 'expired' | 'revoked' };

/** Tokens past their hour, for the expiry purger (db/expiry-purger.ts): one row is written per token request. */
export function expiredAccessTokens(repo: OAuthRepo): ExpiryPurge {
  return { name: 'access_tokens', purgeBatch: (now, limit) => repo.deleteExpiredTokens(now.toISOString(), limit) };
}

export function createOAuthService(deps: { repo: OAuthRepo; clock: Clock }) {
  const { repo, clock } = deps;

  /** RFC 6749 §2.3.1 client authentication; every failure is the same invalid_client, so ids are not probed. */
  async function authenticateClient(credentials: ClientCredentials) {
    // A client_id that cannot exist (any text can arrive here, in the body or in Basic) is not looked up.
    const app = isWellFormedId('app', credentials.clientId) ? await repo.findApp(credentials.clientId) : undefined;
    const valid = app !== undefined && app.disabled_at === null && safeEqual(app.client_secret_hash, hashSecret(credentials.clientSecret));
    if (!app || !valid) {
      throw invalidClient('Client authentication failed: unknown client_id or wrong client_secret.', credentials.method === 'client_secret_basic' ? { charset: true } : undefined);
    }
    return app;
  }

  /** RFC 6749 §4.4: client credentials grant. */
  async function issueToken(credentials: ClientCredentials, requestedScope: string | undefined): Promise<TokenResponse> {
    const app = await authenticateClient(credentials);
    const allowed = parseScopeList(app.scopes);
    let granted = allowed;
    if (requestedScope !== undefined && requestedScope.trim() !== '') {
      const requested = parseScopeList(requestedScope);
      const refused = requested.filter((scope) => !allowed.includes(scope));
      if (refused.length > 0) {
        // Only scope names we define are repeated back; anything else is client text.
        const named = refused.filter(isScope);
        const unknown = refused.length - named.length;
        const parts = [...named, ...(unknown > 0 ? [`${unknown} unknown scope${unknown > 1 ? 's' : ''}`] : [])];
        throw new AppError('INVALID_SCOPE', `This app may not be granted: ${parts.join(', ')}. It may be granted: ${app.scopes}.`);
      }
      granted = requested;
    }
    const token = newSecret('svc_at');
    const now = clock.now();
    await repo.insertToken({
      token_hash: hashSecret(token),
      app_id: app.id,
      developer_id: app.developer_id,
      scopes: formatScopes(granted),
      created_at: now.toISOString(),
      expires_at: new Date(now.getTime() + ACCESS_TOKEN_TTL_SECONDS * 1000).toISOString(),
      revoked_at: null,
    });
    return { access_token: token, token_type: 'Bearer', expires_in: ACCESS_TOKEN_TTL_SECONDS, scope: formatScopes(granted) };
  }

  /** RFC 7009 §2.2: the answer is 200 whether or not the token existed. */
  async function revokeToken(credentials: ClientCredentials, token: string): Promise<void> {
    const app = await authenticateClient(credentials);
    await repo.revokeToken(hashSecret(token), app.id, isoNow(clock));
  }

  async function checkAccessToken(token: string): Promise<TokenCheck> {
    const row = await repo.findToken(hashSecret(token));
    if (!row) return { ok: false, reason: 'unknown' };
    if (row.revoked_at !== null) return { ok: false, reason: 'revoked' };
    if (row.expires_at <= isoNow(clock)) return { ok: false, reason: 'expired' };
    return { ok: true, principal: { developerId: row.developer_id, appId: row.app_id, scopes: parseScopeList(row.scopes) as Scope[] } };
  }

  return { issueToken, revokeToken, checkAccessToken };
}

export type OAuthService = ReturnType<typeof createOAuthService>;
