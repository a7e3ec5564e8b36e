import type { InstallationCredentialsTable } from '../db/tables.js';
import { credentialAad, decryptSecret, encryptSecret, type KeyRing } from '../lib/secrets.js';
import type { Credentials } from './schema.js';

/**
 * An installation's credentials at rest: each value sealed on its own (AES-256-GCM under
 * SECRETS_KEY, lib/secrets.ts), bound to its installation and field. The installations
 * service seals what an operator gives and opens what a call sends; rotation.ts re-seals.
 */

/** The rows that store `given` for an installation, sealed under the ring's current key. */
export function sealCredentials(keys: KeyRing, installationId: string, given: ReadonlyArray<[keyof Credentials, string]>): InstallationCredentialsTable[] {
  return given.map(([field, value]) => ({
    installation_id: installationId,
    field,
    sealed: sealCredential(keys, value, installationId, field),
    key_id: keys.current.id,
  }));
}

/** One value sealed under the ring's current key for its installation and field. */
export function sealCredential(keys: KeyRing, value: string, installationId: string, field: string): string {
  return encryptSecret(keys.current, value, credentialAad(installationId, field));
}

/** A stored value in the clear; throws when no key of the ring opens it (or it was moved to another installation or field). */
export function openCredential(keys: KeyRing, row: Pick<InstallationCredentialsTable, 'installation_id' | 'field' | 'sealed'>): string {
  return decryptSecret(keys, row.sealed, credentialAad(row.installation_id, row.field));
}
