import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import {
  SIGNATURE_HEADER, SIGNATURE_TOLERANCE_SECONDS, TIMESTAMP_HEADER, signBody, signatureHeaders, verifySignature,
} from './signing.js';

import { TEST_VECTOR } from '../../test/support/signing-vector.js';

function independentSignature(secret: string, timestamp: number, body: Buffer): string {
  const message = Buffer.concat([Buffer.from(String(timestamp), 'ascii'), Buffer.from('.', 'ascii'), body]);
  return `sha256=${createHmac('sha256', Buffer.from(secret, 'utf8')).update(message).digest('hex')}`;
}

describe('signBody', () => {
  it('matches the fixed test vector', () => {
    const body = Buffer.from(TEST_VECTOR.body, 'utf8');
    expect(body).toHaveLength(234);
    expect(independentSignature(TEST_VECTOR.secret, TEST_VECTOR.timestamp, body)).toBe(TEST_VECTOR.signature);
    expect(signBody(TEST_VECTOR.secret, TEST_VECTOR.timestamp, body)).toBe(TEST_VECTOR.signature);
  });

  it('signs the exact bytes: non-ASCII text, a different serialization or one changed byte give another signature', () => {
    const body = Buffer.from('{"city":"Zürich","note":"日本"}', 'utf8');
    const signature = signBody('k', 1700000000, body);
    expect(signature).toBe(independentSignature('k', 1700000000, body));
    expect(signature).toMatch(/^sha256=[0-9a-f]{64}$/);

    const reserialized = Buffer.from(JSON.stringify(JSON.parse(body.toString()), null, 1));
    expect(signBody('k', 1700000000, reserialized)).not.toBe(signature);
    const changed = Buffer.from(body);
    changed[changed.length - 2] = changed[changed.length - 2]! ^ 1;
    expect(signBody('k', 1700000000, changed)).not.toBe(signature);
    expect(signBody('k', 1700000001, body)).not.toBe(signature);
    expect(signBody('K', 1700000000, body)).not.toBe(signature);
  });

  it('accepts the secret as bytes', () => {
    const body = Buffer.from('{}');
    expect(signBody(Buffer.from('secret'), 1, body)).toBe(signBody('secret', 1, body));
  });

  it.each([-1, 1.5, Number.NaN, 2 ** 60])('refuses the timestamp %s', (timestamp) => {
    expect(() => signBody('k', timestamp, Buffer.from('{}'))).toThrow(RangeError);
  });

  it('gives both headers under their documented names', () => {
    const headers = signatureHeaders(TEST_VECTOR.secret, TEST_VECTOR.timestamp, Buffer.from(TEST_VECTOR.body));
    expect(TIMESTAMP_HEADER).toBe('X-Svc-Timestamp');
    expect(SIGNATURE_HEADER).toBe('X-Svc-Signature');
    expect(headers).toEqual({ 'X-Svc-Timestamp': '1768471200', 'X-Svc-Signature': TEST_VECTOR.signature });
  });
});

describe('verifySignature', () => {
  const body = Buffer.from(TEST_VECTOR.body);
  const headers = { timestamp: String(TEST_VECTOR.timestamp), signature: TEST_VECTOR.signature };

  it('accepts the vector within the window and refuses it outside', () => {
    expect(verifySignature(TEST_VECTOR.secret, headers, body, TEST_VECTOR.timestamp + SIGNATURE_TOLERANCE_SECONDS)).toEqual({ ok: true });
    expect(verifySignature(TEST_VECTOR.secret, headers, body, TEST_VECTOR.timestamp - SIGNATURE_TOLERANCE_SECONDS)).toEqual({ ok: true });
    expect(verifySignature(TEST_VECTOR.secret, headers, body, TEST_VECTOR.timestamp + 301)).toEqual({ ok: false, reason: 'stale_timestamp' });
  });

  it('refuses a wrong key, a changed body and malformed headers', () => {
    const now = TEST_VECTOR.timestamp;
    expect(verifySignature('wrong', headers, body, now)).toEqual({ ok: false, reason: 'mismatch' });
    expect(verifySignature(TEST_VECTOR.secret, headers, Buffer.from(TEST_VECTOR.body.replace('2.5', '2.6')), now)).toEqual({ ok: false, reason: 'mismatch' });
    expect(verifySignature(TEST_VECTOR.secret, { ...headers, timestamp: undefined }, body, now)).toEqual({ ok: false, reason: 'malformed_timestamp' });
    expect(verifySignature(TEST_VECTOR.secret, { ...headers, timestamp: '1e9' }, body, now)).toEqual({ ok: false, reason: 'malformed_timestamp' });
    expect(verifySignature(TEST_VECTOR.secret, { ...headers, signature: TEST_VECTOR.signature.toUpperCase() }, body, now)).toEqual({ ok: false, reason: 'malformed_signature' });
    expect(verifySignature(TEST_VECTOR.secret, { ...headers, signature: undefined }, body, now)).toEqual({ ok: false, reason: 'malformed_signature' });
  });
});
