import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';

/**
 * Encryption at rest for credential values (installation API keys, tokens, passwords,
 * HMAC secrets): AES-256-GCM, a fresh 96-bit random nonce per value, and associated
 * data that binds each ciphertext to the row it belongs to (the installation id), so a
 * value copied into another row does not decrypt.
 *
 * A sealed value is one ASCII string, safe for a TEXT column:
 *
 *     v1.<keyId>.<nonce>.<ciphertext>.<tag>
 *
 * `keyId` is 8 hex characters naming the key (see keyIdOf); nonce, ciphertext and tag are
 * unpadded base64url. The key id lets rotation (`SECRETS_KEY_PREVIOUS`) pick the right
 * key and find the values still sealed under the old one.
 */
export interface SecretKey {
  /** keyIdOf(key): stored in every value sealed under this key. */
  id: string;
  /** 32 bytes. */
  key: Buffer;
}

/** The key values are sealed under, and the one being rotated away from, if any. */
export interface KeyRing {
  current: SecretKey;
  previous?: SecretKey;
}

const VERSION = 'v1';
const ALGORITHM = 'aes-256-gcm';
const KEY_BYTES = 32;
const NONCE_BYTES = 12;
const TAG_BYTES = 16;
const KEY_ID = /^[0-9a-f]{8}$/;
const BASE64URL = /^[A-Za-z0-9_-]*$/;

/** Why a sealed value could not be opened. Never carries the plaintext or the key. */
export type SecretErrorReason = 'malformed' | 'unknown_key' | 'authentication_failed';

export class SecretDecryptionError extends Error {
  readonly reason: SecretErrorReason;
  constructor(reason: SecretErrorReason, message: string) {
    super(message);
    this.name = 'SecretDecryptionError';
    this.reason = reason;
  }
}

function assertKey(key: Buffer): void {
  if (!Buffer.isBuffer(key) || key.length !== KEY_BYTES) throw new RangeError(`A secrets key must be ${KEY_BYTES} bytes.`);
}

/**
 * The first 8 hex characters of SHA-256 of the key: enough to tell two keys apart, and
 * 32 bits of a hash of a 256-bit random key reveal nothing usable about it.
 */
export function keyIdOf(key: Buffer): string {
  assertKey(key);
  return createHash('sha256').update(key).digest('hex').slice(0, 8);
}

export function secretKey(key: Buffer): SecretKey {
  return { id: keyIdOf(key), key };
}

/** The ring for SECRETS_KEY and, while a rotation runs, SECRETS_KEY_PREVIOUS. */
export function keyRing(current: Buffer, previous?: Buffer): KeyRing {
  const ring: KeyRing = { current: secretKey(current) };
  if (previous !== undefined) {
    const old = secretKey(previous);
    if (old.id === ring.current.id) throw new RangeError('The previous secrets key is the same as the current one.');
    ring.previous = old;
  }
  return ring;
}

export function encryptSecret(key: SecretKey, plaintext: string, associatedData: string): string {
  assertKey(key.key);
  if (!KEY_ID.test(key.id)) throw new RangeError('A secrets key id must be 8 lowercase hex characters.');
  const nonce = randomBytes(NONCE_BYTES);
  const cipher = createCipheriv(ALGORITHM, key.key, nonce, { authTagLength: TAG_BYTES });
  cipher.setAAD(Buffer.from(associatedData, 'utf8'));
  const ciphertext = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
  const tag = cipher.getAuthTag();
  return [VERSION, key.id, nonce.toString('base64url'), ciphertext.toString('base64url'), tag.toString('base64url')].join('.');
}

interface SealedParts {
  keyId: string;
  nonce: Buffer;
  ciphertext: Buffer;
  tag: Buffer;
}

/** Strict base64url: Node's decoder skips characters it does not know, and several encodings can decode to one value. */
function decodePart(text: string, expectedBytes?: number): Buffer | undefined {
  if (!BASE64URL.test(text)) return undefined;
  const bytes = Buffer.from(text, 'base64url');
  if (bytes.toString('base64url') !== text) return undefined;
  if (expectedBytes !== undefined && bytes.length !== expectedBytes) return undefined;
  return bytes;
}

function parseSealed(sealed: string): SealedParts {
  const parts = typeof sealed === 'string' ? sealed.split('.') : [];
  const malformed = new SecretDecryptionError('malformed', 'The stored secret is not a sealed value this version can read.');
  if (parts.length !== 5 || parts[0] !== VERSION || !KEY_ID.test(parts[1]!)) throw malformed;
  const nonce = decodePart(parts[2]!, NONCE_BYTES);
  const ciphertext = decodePart(parts[3]!);
  const tag = decodePart(parts[4]!, TAG_BYTES);
  if (!nonce || !ciphertext || !tag) throw malformed;
  return { keyId: parts[1]!, nonce, ciphertext, tag };
}

/** The id of the key a value was sealed under (rotation re-encrypts those not under the current key). */
export function sealedKeyId(sealed: string): string {
  return parseSealed(sealed).keyId;
}

/** Whether a sealed value is under a key other than the ring's current one. */
export function needsReencryption(ring: KeyRing, sealed: string): boolean {
  return sealedKeyId(sealed) !== ring.current.id;
}

/**
 * Associated data of a value sealed for one field of one row (an installation's credential, a
 * provider's API key, a webhook endpoint's signing secret): a value copied to another row or field
 * does not decrypt.
 */
export function credentialAad(ownerId: string, field: string): string {
  return `${ownerId}:${field}`;
}

/**
 * Opens a value sealed by encryptSecret with the same associated data. Throws
 * SecretDecryptionError when the value is malformed, was sealed under a key the ring does
 * not hold, or fails authentication (tampered, or copied from another row).
 */
export function decryptSecret(ring: KeyRing, sealed: string, associatedData: string): string {
  const parts = parseSealed(sealed);
  const key = [ring.current, ring.previous].find((candidate) => candidate?.id === parts.keyId);
  if (!key) {
    throw new SecretDecryptionError(
      'unknown_key',
      `The stored secret was sealed under key ${parts.keyId}, which is neither SECRETS_KEY (${ring.current.id})` +
        (ring.previous ? ` nor SECRETS_KEY_PREVIOUS (${ring.previous.id}).` : ' nor a SECRETS_KEY_PREVIOUS (none is set).'),
    );
  }
  const decipher = createDecipheriv(ALGORITHM, key.key, parts.nonce, { authTagLength: TAG_BYTES });
  decipher.setAAD(Buffer.from(associatedData, 'utf8'));
  decipher.setAuthTag(parts.tag);
  try {
    return Buffer.concat([decipher.update(parts.ciphertext), decipher.final()]).toString('utf8');
  } catch {
    throw new SecretDecryptionError(
      'authentication_failed',
      'The stored secret failed authentication: it was changed, or it belongs to another record.',
    );
  }
}
