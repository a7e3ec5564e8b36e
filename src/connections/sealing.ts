import type { OAuthConnectionsTable } from '../db/tables.js';
import { resealAll, type ResealResult } from '../lib/reseal.js';
import type { ConnectionsRepo } from './repo.js';
import { credentialAad, decryptSecret, encryptSecret, type KeyRing } from '../lib/secrets.js';

/**
 * A connection's tokens at rest: each sealed on its own (AES-256-GCM under SECRETS_KEY), bound to its connection
 * and field, so a token copied to another connection does not open.
 */
export type TokenField = 'access_token' | 'refresh_token';

export function sealToken(keys: KeyRing, connectionId: string, field: TokenField, token: string): string {
  return encryptSecret(keys.current, token, credentialAad(connectionId, field));
}

/** Throws SecretDecryptionError when no key of the ring opens it. */
export function openToken(keys: KeyRing, row: Pick<OAuthConnectionsTable, 'id'>, field: TokenField, sealed: string): string {
  return decryptSecret(keys, sealed, credentialAad(row.id, field));
}

/** A PKCE verifier while its authorization is in progress, bound to its state. */
export function sealVerifier(keys: KeyRing, stateHash: string, verifier: string): string {
  return encryptSecret(keys.current, verifier, credentialAad(`oauth_state:${stateHash}`, 'code_verifier'));
}

export function openVerifier(keys: KeyRing, stateHash: string, sealed: string): string {
  return decryptSecret(keys, sealed, credentialAad(`oauth_state:${stateHash}`, 'code_verifier'));
}

/** `switchboard secrets rotate`: every connection's tokens under the ring's current key (states live ten minutes: left to expire). */
export function rotateConnectionTokens(repo: Pick<ConnectionsRepo, 'sealedNotUnder' | 'replaceSealed'>, keys: KeyRing): Promise<ResealResult> {
  return resealAll({
    read: (limit) => repo.sealedNotUnder(keys.current.id, limit),
    idOf: (row) => row.id,
    reseal: async (row) => {
      const access = openToken(keys, row, 'access_token', row.access_token);
      const refresh = row.refresh_token !== null ? openToken(keys, row, 'refresh_token', row.refresh_token) : null;
      await repo.replaceSealed(row.id, row.access_token, {
        access_token: sealToken(keys, row.id, 'access_token', access),
        refresh_token: refresh !== null ? sealToken(keys, row.id, 'refresh_token', refresh) : null,
        key_id: keys.current.id,
      });
    },
  });
}
