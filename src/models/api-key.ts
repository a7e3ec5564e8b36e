import type { ModelProvidersTable } from '../db/tables.js';
import { credentialAad, decryptSecret, encryptSecret, type KeyRing } from '../lib/secrets.js';

/**
 * A provider's API key at rest, sealed exactly as tool credentials are (invocation/credentials.ts):
 * AES-256-GCM under SECRETS_KEY (lib/secrets.ts), bound to the provider's id and the field
 * `apiKey`, so a value copied to another provider, or to an installation, does not open.
 */
const FIELD = 'apiKey';

export function sealApiKey(keys: KeyRing, providerId: string, apiKey: string): Pick<ModelProvidersTable, 'api_key_sealed' | 'api_key_key_id'> {
  return { api_key_sealed: encryptSecret(keys.current, apiKey, credentialAad(providerId, FIELD)), api_key_key_id: keys.current.id };
}

/** The key in the clear; throws when no key of the ring opens it (or it was moved to another provider). */
export function openApiKey(keys: KeyRing, providerId: string, sealed: string): string {
  return decryptSecret(keys, sealed, credentialAad(providerId, FIELD));
}
