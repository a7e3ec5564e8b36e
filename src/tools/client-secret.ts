import { resealAll, type ResealResult } from '../lib/reseal.js';
import type { ToolsRepo } from './repo.js';
import { credentialAad, decryptSecret, encryptSecret, type KeyRing } from '../lib/secrets.js';

/**
 * An oauth2 tool's client secret at rest: sealed like installations' credentials (AES-256-GCM under SECRETS_KEY),
 * bound to its tool, so a value copied to another tool does not open. Write-only on the wire (`hasClientSecret`).
 */
const FIELD = 'oauth_client_secret';

export function sealClientSecret(keys: KeyRing, toolId: string, secret: string): { oauth_client_secret: string; oauth_secret_key_id: string } {
  return { oauth_client_secret: encryptSecret(keys.current, secret, credentialAad(toolId, FIELD)), oauth_secret_key_id: keys.current.id };
}

/** Throws SecretDecryptionError when no key of the ring opens it. */
export function openClientSecret(keys: KeyRing, toolId: string, sealed: string): string {
  return decryptSecret(keys, sealed, credentialAad(toolId, FIELD));
}

/** `switchboard secrets rotate`: every client secret under the ring's current key. */
export function rotateClientSecrets(repo: Pick<ToolsRepo, 'clientSecretsNotUnder' | 'replaceClientSecret'>, keys: KeyRing): Promise<ResealResult> {
  return resealAll({
    read: (limit) => repo.clientSecretsNotUnder(keys.current.id, limit),
    idOf: (row) => row.id,
    reseal: async (row) => {
      await repo.replaceClientSecret(row.id, row.oauth_client_secret!, sealClientSecret(keys, row.id, openClientSecret(keys, row.id, row.oauth_client_secret!)));
    },
  });
}
