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

/** How often at most an app's `last_token_at` is written: the token endpoint stays one write per request but once a minute per app. */
export const LAST_TOKEN_WRITE_INTERVAL_MS = 60_000;

/** Where the token endpoint notes that an app got a token: the owner of `apps` writes it (developers/apps-repo.ts). */
export interface TokenIssueNotes {
  /** Writes `at` unless a time at or after `staleBefore` is there already. */
  noteTokenIssued(appId: string, at: string, staleBefore: string): Promise<void>;
}

export function createOAuthService(deps: { repo: OAuthRepo; clock: Clock; apps: TokenIssueNotes }) {
  const { repo, clock, apps } = deps;

  /** RFC 6749 §2.3.1 client authentication; every failure is the same invalid_client, so ids are not probed. */
  async function authenticateClient(credentials: ClientCredentials) {
    // A client_id that cannot exist (any text can arrive here, in the body or in Basic) is not looked up.
    const app = isWellFormedId('app', credentials.clientId) ? await repo.findApp(credentials.clientId) : undefined;
    const presented = hashSecret(credentials.clientSecret);
    // After a rotation with grace the previous secret works strictly before its time, on the injected clock.
    const previousValid = (row: NonNullable<typeof app>) =>
      row.previous_secret_hash !== null && row.previous_secret_expires_at !== null && isoNow(clock) < row.previous_secret_expires_at && safeEqual(row.previous_secret_hash, presented);
    const valid = app !== undefined && app.disabled_at === null && (safeEqual(app.client_secret_hash, presented) || previousValid(app));
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
    // The app's "last got a token" (issue 20): a second write only when the one stored is a minute old or more,
    // which the row just read already tells; a client taking a token per request still costs one write each.
    const staleBefore = new Date(now.getTime() - LAST_TOKEN_WRITE_INTERVAL_MS).toISOString();
    if (app.last_token_at === null || app.last_token_at < staleBefore) await apps.noteTokenIssued(app.id, now.toISOString(), staleBefore);
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
