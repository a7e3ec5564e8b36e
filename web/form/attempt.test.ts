import { describe, expect, it } from 'vitest';
import { attemptKeys, randomKey } from './attempt.js';

function counter() {
  let n = 0;
  return () => `key-${++n}`;
}

describe('Idempotency-Key per attempt', () => {
  it('keeps the key while the same values are sent again (network failure, 5xx, 429)', () => {
    const keys = attemptKeys(counter());
    const body = JSON.stringify({ consentVersion: '1', email: 'ada@example.com', _hp: '' });
    expect(keys.keyFor(body)).toBe('key-1');
    expect(keys.keyFor(body)).toBe('key-1');
    expect(keys.keyFor(body)).toBe('key-1');
  });

  it('makes a new key once a value changes, and keeps that one for its retries', () => {
    const keys = attemptKeys(counter());
    expect(keys.keyFor('{"email":"ada@example"}')).toBe('key-1');
    expect(keys.keyFor('{"email":"ada@example.com"}')).toBe('key-2');
    expect(keys.keyFor('{"email":"ada@example.com"}')).toBe('key-2');
    // Changing back is a new attempt too: the server may have refused the first one.
    expect(keys.keyFor('{"email":"ada@example"}')).toBe('key-3');
  });

  it('makes a new key after a success, even for the same values', () => {
    const keys = attemptKeys(counter());
    const body = '{"consentVersion":"1","phone":"+14155552671"}';
    expect(keys.keyFor(body)).toBe('key-1');
    keys.succeeded();
    expect(keys.keyFor(body)).toBe('key-2');
  });

  it('makes keys the API accepts (at most 255 visible ASCII characters), all different', () => {
    const seen = new Set<string>();
    for (let i = 0; i < 1000; i++) {
      const key = randomKey();
      expect(key).toMatch(/^[\x21-\x7e]{1,255}$/);
      seen.add(key);
    }
    expect(seen.size).toBe(1000);
  });

  it('falls back to getRandomValues where randomUUID is missing (a page on plain http)', () => {
    const original = crypto.randomUUID;
    Object.defineProperty(crypto, 'randomUUID', { value: undefined, configurable: true, writable: true });
    try {
      expect(randomKey()).toMatch(/^[0-9a-f]{32}$/);
    } finally {
      Object.defineProperty(crypto, 'randomUUID', { value: original, configurable: true, writable: true });
    }
  });
});
