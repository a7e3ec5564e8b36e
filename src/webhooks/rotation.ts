import type { KeyRing } from '../lib/secrets.js';
import type { WebhooksRepo } from './repo.js';
import { openSigningSecret, sealSigningSecret } from './secret.js';

export interface WebhookSecretRotation {
  reencrypted: number;
  /** Secrets that opened with neither key, named by webhook (never by value). */
  failed: Array<{ webhookId: string; reason: string }>;
}

/**
 * `switchboard secrets rotate`, for webhook signing secrets: as models/rotation.ts does for provider keys,
 * re-seals every secret not under the ring's current key (the secret itself does not change, so receivers
 * need do nothing); an update applies only if the stored value is still the one read. Safe to run again.
 */
export async function rotateWebhookSecrets(repo: Pick<WebhooksRepo, 'secretsNotUnder' | 'replaceSealedSecret'>, keys: KeyRing): Promise<WebhookSecretRotation> {
  const failed: WebhookSecretRotation['failed'] = [];
  const skip = new Set<string>();
  let reencrypted = 0;
  for (;;) {
    const rows = (await repo.secretsNotUnder(keys.current.id, 500 + skip.size)).filter((row) => !skip.has(row.id));
    if (rows.length === 0) break;
    for (const row of rows) {
      let plaintext: string;
      try {
        plaintext = openSigningSecret(keys, row.id, row.secret_sealed);
      } catch (error) {
        skip.add(row.id);
        failed.push({ webhookId: row.id, reason: error instanceof Error ? error.message : String(error) });
        continue;
      }
      await repo.replaceSealedSecret(row.id, sealSigningSecret(keys, row.id, plaintext).secret_sealed, keys.current.id, row.secret_sealed);
      reencrypted += 1;
    }
  }
  return { reencrypted, failed };
}
