import { createHmac } from 'node:crypto';

/**
 * The keyed hashes of an erased person's email and phone (contact_erasures): HMAC-SHA256 under a key derived from
 * SECRETS_KEY, so a tombstone holds nothing readable and nothing that can be guessed back without the server's key
 * (a plain hash of an email can be, from a list of emails). The values are hashed as the CRM stores them:
 * the email trimmed and lowercased, the phone in E.164 (lib/normalize.ts). A new SECRETS_KEY derives a new key:
 * tombstones made before a rotation no longer match (docs/privacy.md).
 */
export interface TombstoneHasher {
  email(normalized: string): string;
  phone(e164: string): string;
}

export function tombstoneHasher(secretsKey: Buffer): TombstoneHasher {
  const key = createHmac('sha256', secretsKey).update('switchboard/contact-tombstone').digest();
  const hash = (kind: string, value: string) => createHmac('sha256', key).update(`${kind}:${value}`).digest('base64url');
  return { email: (value) => hash('email', value), phone: (value) => hash('phone', value) };
}
