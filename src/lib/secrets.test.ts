import { createDecipheriv, createHash, randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import {
  decryptSecret, encryptSecret, keyIdOf, keyRing, needsReencryption, sealedKeyId, secretKey, SecretDecryptionError,
} from './secrets.js';

const KEY = Buffer.from('000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f', 'hex');
const OTHER_KEY = Buffer.alloc(32, 7);
const INSTALLATION = 'inst_3kTMd92nqLx0aPz8Vb1c';
const PLAINTEXT = 'sk_live_a-very-secret-api-key-🙂';

function failure(fn: () => unknown): SecretDecryptionError {
  try {
    fn();
  } catch (error) {
    if (error instanceof SecretDecryptionError) return error;
    throw error;
  }
  throw new Error('decrypted');
}

/** Flips one bit of the decoded bytes of part `index` and re-encodes it. */
function tamper(sealed: string, index: number): string {
  const parts = sealed.split('.');
  const bytes = Buffer.from(parts[index]!, 'base64url');
  bytes[0] = bytes[0]! ^ 1;
  parts[index] = bytes.toString('base64url');
  return parts.join('.');
}

describe('keyIdOf', () => {
  it('is the first 8 hex characters of SHA-256 of the key', () => {
    expect(keyIdOf(KEY)).toBe(createHash('sha256').update(KEY).digest('hex').slice(0, 8));
    expect(keyIdOf(KEY)).toMatch(/^[0-9a-f]{8}$/);
    expect(keyIdOf(OTHER_KEY)).not.toBe(keyIdOf(KEY));
  });

  it('refuses keys that are not 32 bytes', () => {
    expect(() => keyIdOf(Buffer.alloc(16))).toThrow(/32 bytes/);
    expect(() => keyRing(Buffer.alloc(31))).toThrow(/32 bytes/);
  });
});

describe('encryptSecret / decryptSecret', () => {
  const ring = keyRing(KEY);

  it('round-trips, with the version, key id, a 12-byte nonce and a 16-byte tag in the sealed string', () => {
    const sealed = encryptSecret(ring.current, PLAINTEXT, INSTALLATION);
    const [version, keyId, nonce, ciphertext, tag, ...rest] = sealed.split('.');
    expect(version).toBe('v1');
    expect(keyId).toBe(keyIdOf(KEY));
    expect(Buffer.from(nonce!, 'base64url')).toHaveLength(12);
    expect(Buffer.from(ciphertext!, 'base64url')).toHaveLength(Buffer.byteLength(PLAINTEXT));
    expect(Buffer.from(tag!, 'base64url')).toHaveLength(16);
    expect(rest).toEqual([]);
    expect(sealed).toMatch(/^[A-Za-z0-9_.-]+$/);
    expect(decryptSecret(ring, sealed, INSTALLATION)).toBe(PLAINTEXT);
  });

  it('is standard AES-256-GCM: Node decrypts it directly with the key, nonce, AAD and tag', () => {
    const [, , nonce, ciphertext, tag] = encryptSecret(ring.current, PLAINTEXT, INSTALLATION).split('.');
    const decipher = createDecipheriv('aes-256-gcm', KEY, Buffer.from(nonce!, 'base64url'));
    decipher.setAAD(Buffer.from(INSTALLATION));
    decipher.setAuthTag(Buffer.from(tag!, 'base64url'));
    expect(Buffer.concat([decipher.update(Buffer.from(ciphertext!, 'base64url')), decipher.final()]).toString()).toBe(PLAINTEXT);
  });

  it('uses a fresh nonce for every value, so equal plaintexts give different ciphertexts', () => {
    const sealed = Array.from({ length: 50 }, () => encryptSecret(ring.current, PLAINTEXT, INSTALLATION));
    expect(new Set(sealed.map((s) => s.split('.')[2])).size).toBe(50);
    expect(new Set(sealed).size).toBe(50);
  });

  it('never contains the plaintext, in any encoding', () => {
    const secret = 'hunter2-hunter2-hunter2-hunter2';
    const sealed = encryptSecret(ring.current, secret, INSTALLATION);
    const decodedParts = sealed.split('.').map((part) => Buffer.from(part, 'base64url'));
    expect(sealed).not.toContain(secret);
    expect(sealed).not.toContain(Buffer.from(secret).toString('base64url'));
    expect(sealed).not.toContain(Buffer.from(secret).toString('base64'));
    expect(sealed).not.toContain(Buffer.from(secret).toString('hex'));
    for (const part of decodedParts) expect(part.includes(Buffer.from(secret))).toBe(false);
    // Not even a short piece of it.
    expect(decodedParts.some((part) => part.includes(Buffer.from('hunter')))).toBe(false);
  });

  it('round-trips the empty string and long values', () => {
    expect(decryptSecret(ring, encryptSecret(ring.current, '', INSTALLATION), INSTALLATION)).toBe('');
    const long = 'x'.repeat(10_000);
    expect(decryptSecret(ring, encryptSecret(ring.current, long, INSTALLATION), INSTALLATION)).toBe(long);
  });

  it('does not decrypt under another installation id (a ciphertext copied to another row)', () => {
    const sealed = encryptSecret(ring.current, PLAINTEXT, INSTALLATION);
    const error = failure(() => decryptSecret(ring, sealed, 'inst_ZZZZZZZZZZZZZZZZZZZZ'));
    expect(error.reason).toBe('authentication_failed');
    expect(error.message).not.toContain(PLAINTEXT);
    expect(failure(() => decryptSecret(ring, sealed, '')).reason).toBe('authentication_failed');
  });

  it.each([
    ['nonce', 2],
    ['ciphertext', 3],
    ['tag', 4],
  ])('fails when the %s is tampered with', (_name, index) => {
    const sealed = encryptSecret(ring.current, PLAINTEXT, INSTALLATION);
    expect(failure(() => decryptSecret(ring, tamper(sealed, index), INSTALLATION)).reason).toBe('authentication_failed');
  });

  it('fails when the ciphertext is truncated or extended', () => {
    const parts = encryptSecret(ring.current, PLAINTEXT, INSTALLATION).split('.');
    const ct = Buffer.from(parts[3]!, 'base64url');
    const shorter = [...parts.slice(0, 3), ct.subarray(0, ct.length - 1).toString('base64url'), parts[4]].join('.');
    const longer = [...parts.slice(0, 3), Buffer.concat([ct, Buffer.from([0])]).toString('base64url'), parts[4]].join('.');
    expect(failure(() => decryptSecret(ring, shorter, INSTALLATION)).reason).toBe('authentication_failed');
    expect(failure(() => decryptSecret(ring, longer, INSTALLATION)).reason).toBe('authentication_failed');
  });

  it('refuses a truncated tag instead of checking fewer bits', () => {
    const parts = encryptSecret(ring.current, PLAINTEXT, INSTALLATION).split('.');
    parts[4] = Buffer.from(parts[4]!, 'base64url').subarray(0, 4).toString('base64url');
    expect(failure(() => decryptSecret(ring, parts.join('.'), INSTALLATION)).reason).toBe('malformed');
  });

  it.each([
    '',
    'plaintext',
    'v2.00000000.a.b.c',
    'v1.XYZ.a.b.c',
    'v1.abcdef01.AAAA.AAAA',
    'v1.abcdef01.AAAAAAAAAAAAAAAA.AAAA.AAAAAAAAAAAAAAAAAAAAAA.extra',
    'v1.abcdef01.AAAA*AAAAAAAAAAA.AAAA.AAAAAAAAAAAAAAAAAAAAAA',
    'v1.abcdef01.AAAAAAAAAAAAAAAA.AAAA.AAAAAAAAAAAAAAAAAAAAAB', // non-canonical: the last character carries unused bits
  ])('refuses the malformed value %j', (sealed) => {
    expect(failure(() => decryptSecret(ring, sealed, INSTALLATION)).reason).toBe('malformed');
  });
});

describe('key rotation', () => {
  it('decrypts values sealed under the previous key and reports them as needing re-encryption', () => {
    const oldRing = keyRing(OTHER_KEY);
    const sealedOld = encryptSecret(oldRing.current, PLAINTEXT, INSTALLATION);
    const rotating = keyRing(KEY, OTHER_KEY);
    expect(sealedKeyId(sealedOld)).toBe(keyIdOf(OTHER_KEY));
    expect(needsReencryption(rotating, sealedOld)).toBe(true);
    expect(decryptSecret(rotating, sealedOld, INSTALLATION)).toBe(PLAINTEXT);

    const resealed = encryptSecret(rotating.current, decryptSecret(rotating, sealedOld, INSTALLATION), INSTALLATION);
    expect(needsReencryption(rotating, resealed)).toBe(false);
    expect(decryptSecret(keyRing(KEY), resealed, INSTALLATION)).toBe(PLAINTEXT);
  });

  it('names both key ids when a value was sealed under a key the ring does not hold', () => {
    const sealed = encryptSecret(secretKey(randomBytes(32)), PLAINTEXT, INSTALLATION);
    const error = failure(() => decryptSecret(keyRing(KEY, OTHER_KEY), sealed, INSTALLATION));
    expect(error.reason).toBe('unknown_key');
    expect(error.message).toContain(sealedKeyId(sealed));
    expect(error.message).toContain(keyIdOf(KEY));
    expect(error.message).toContain(keyIdOf(OTHER_KEY));
    expect(failure(() => decryptSecret(keyRing(KEY), sealed, INSTALLATION)).message).toMatch(/none is set/);
  });

  it('refuses a previous key equal to the current one', () => {
    expect(() => keyRing(KEY, Buffer.from(KEY))).toThrow(/same/);
  });
});
