import type { KeyRing } from '../lib/secrets.js';
import { openApiKey, sealApiKey } from './api-key.js';
import type { ModelsRepo } from './repo.js';

export interface ProviderKeyRotation {
  reencrypted: number;
  /** Keys that opened with neither key, named by provider (never by value). */
  failed: Array<{ providerId: string; reason: string }>;
}

/**
 * `switchboard secrets rotate`, for model provider keys: as invocation/rotation.ts does for tool
 * credentials, re-seals every key not under the ring's current key, opening it with the previous one;
 * an update applies only if the stored value is still the one read. Safe to run again.
 */
export async function rotateProviderKeys(repo: Pick<ModelsRepo, 'keysNotUnder' | 'replaceSealedKey'>, keys: KeyRing): Promise<ProviderKeyRotation> {
  const failed: ProviderKeyRotation['failed'] = [];
  const skip = new Set<string>();
  let reencrypted = 0;
  for (;;) {
    const rows = (await repo.keysNotUnder(keys.current.id, 500 + skip.size)).filter((row) => !skip.has(row.id));
    if (rows.length === 0) break;
    for (const row of rows) {
      const sealed = row.api_key_sealed as string;
      let plaintext: string;
      try {
        plaintext = openApiKey(keys, row.id, sealed);
      } catch (error) {
        skip.add(row.id);
        failed.push({ providerId: row.id, reason: error instanceof Error ? error.message : String(error) });
        continue;
      }
      const next = sealApiKey(keys, row.id, plaintext);
      await repo.replaceSealedKey(row.id, next.api_key_sealed as string, keys.current.id, sealed);
      reencrypted += 1;
    }
  }
  return { reencrypted, failed };
}
