import { createHmac, timingSafeEqual } from 'node:crypto';

/**
 * Signatures for tools whose authType is `hmac`, in the spec's scheme: the service sends
 *
 *     X-Svc-Timestamp: <unix seconds>
 *     X-Svc-Signature: sha256=<lowercase hex HMAC-SHA256(secret, "<timestamp>.<body>")>
 *
 * where <body> is the request body's bytes exactly as sent. A receiver verifies over the
 * raw bytes before parsing (never a re-serialization), compares in constant time, and
 * rejects timestamps more than SIGNATURE_TOLERANCE_SECONDS away from its clock.
 */
export const TIMESTAMP_HEADER = 'X-Svc-Timestamp';
export const SIGNATURE_HEADER = 'X-Svc-Signature';
export const SIGNATURE_PREFIX = 'sha256=';
/** How far a receiver should let X-Svc-Timestamp be from its own clock. */
export const SIGNATURE_TOLERANCE_SECONDS = 300;

function assertTimestamp(timestampSeconds: number): void {
  if (!Number.isSafeInteger(timestampSeconds) || timestampSeconds < 0) {
    throw new RangeError(`The signature timestamp must be whole seconds since 1970 (got ${timestampSeconds}).`);
  }
}

/** `sha256=<hex>`: HMAC-SHA256 keyed with the secret over "<timestamp>." followed by the body bytes. */
export function signBody(secret: string | Buffer, timestampSeconds: number, body: Buffer): string {
  assertTimestamp(timestampSeconds);
  const mac = createHmac('sha256', secret).update(`${timestampSeconds}.`, 'utf8').update(body).digest('hex');
  return `${SIGNATURE_PREFIX}${mac}`;
}

/** Both headers of a signed request. */
export function signatureHeaders(secret: string | Buffer, timestampSeconds: number, body: Buffer): Record<string, string> {
  return { [TIMESTAMP_HEADER]: String(timestampSeconds), [SIGNATURE_HEADER]: signBody(secret, timestampSeconds, body) };
}

export type SignatureCheck = { ok: true } | { ok: false; reason: 'malformed_timestamp' | 'stale_timestamp' | 'malformed_signature' | 'mismatch' };

/**
 * What a receiver does, as a reference for the docs and for tests of the developer
 * console: the header values as received, the raw body, the receiver's clock.
 */
export function verifySignature(
  secret: string | Buffer,
  headers: { timestamp: string | undefined; signature: string | undefined },
  body: Buffer,
  nowSeconds: number,
  toleranceSeconds = SIGNATURE_TOLERANCE_SECONDS,
): SignatureCheck {
  if (headers.timestamp === undefined || !/^\d{1,15}$/.test(headers.timestamp)) return { ok: false, reason: 'malformed_timestamp' };
  const timestamp = Number(headers.timestamp);
  if (Math.abs(nowSeconds - timestamp) > toleranceSeconds) return { ok: false, reason: 'stale_timestamp' };
  if (headers.signature === undefined || !/^sha256=[0-9a-f]{64}$/.test(headers.signature)) return { ok: false, reason: 'malformed_signature' };
  const expected = Buffer.from(signBody(secret, timestamp, body));
  const actual = Buffer.from(headers.signature);
  return timingSafeEqual(expected, actual) ? { ok: true } : { ok: false, reason: 'mismatch' };
}
