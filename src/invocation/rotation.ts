import { credentialAad, type KeyRing } from '../lib/secrets.js';
import type { InvocationRepo } from './repo.js';
import { openCredential, sealCredential } from './credentials.js';

export interface RotationResult {
  /** Values re-sealed under the current key in this run. */
  reencrypted: number;
  /** Values that could not be opened with either key (named by installation and field, never by value). */
  failed: Array<{ installationId: string; field: string; reason: string }>;
  keyId: string;
}

/**
 * `switchboard secrets rotate`: re-seals every stored credential that is not under the
 * ring's current key (SECRETS_KEY), opening it with the previous one (SECRETS_KEY_PREVIOUS).
 * Each value keeps its associated data; each update only applies if the stored value is
 * still the one read, so a credential an operator replaced meanwhile is left as they set it.
 * Safe to run again: values already under the current key are not touched.
 */
export async function rotateCredentials(repo: Pick<InvocationRepo, 'credentialsNotUnder' | 'replaceSealed'>, keys: KeyRing): Promise<RotationResult> {
  const failed: RotationResult['failed'] = [];
  const skip = new Set<string>();
  let reencrypted = 0;
  for (;;) {
    const rows = (await repo.credentialsNotUnder(keys.current.id, 500 + skip.size)).filter((row) => !skip.has(credentialAad(row.installation_id, row.field)));
    if (rows.length === 0) break;
    for (const row of rows) {
      const aad = credentialAad(row.installation_id, row.field);
      let plaintext: string;
      try {
        plaintext = openCredential(keys, row);
      } catch (error) {
        skip.add(aad);
        failed.push({ installationId: row.installation_id, field: row.field, reason: error instanceof Error ? error.message : String(error) });
        continue;
      }
      await repo.replaceSealed({ ...row, sealed: sealCredential(keys, plaintext, row.installation_id, row.field), key_id: keys.current.id }, row.sealed);
      reencrypted += 1;
    }
  }
  return { reencrypted, failed, keyId: keys.current.id };
}
