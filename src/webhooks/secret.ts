import type { WebhookEndpointsTable } from '../db/tables.js';
import { randomBase62 } from '../lib/ids.js';
import { credentialAad, decryptSecret, encryptSecret, type KeyRing } from '../lib/secrets.js';

/**
 * An endpoint's signing secret: `whsec_` and 40 base62 characters (~238 bits), shown once, at rest
 * sealed exactly as tool credentials are (AES-256-GCM under SECRETS_KEY, bound to the endpoint id and
 * the field `signingSecret`, so a value copied to another row does not open).
 */
const FIELD = 'signingSecret';

export function newSigningSecret(): string {
  return `whsec_${randomBase62(40)}`;
}

export function sealSigningSecret(keys: KeyRing, endpointId: string, secret: string): Pick<WebhookEndpointsTable, 'secret_sealed' | 'secret_key_id'> {
  return { secret_sealed: encryptSecret(keys.current, secret, credentialAad(endpointId, FIELD)), secret_key_id: keys.current.id };
}

export function openSigningSecret(keys: KeyRing, endpointId: string, sealed: string): string {
  return decryptSecret(keys, sealed, credentialAad(endpointId, FIELD));
}
