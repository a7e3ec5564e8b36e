/**
 * One Idempotency-Key per attempt of a filled-in form. The key is made when the visitor submits
 * and kept while the same values are sent again (a network failure, a 5xx, a 429), so the server
 * replays the first success instead of writing a second lead; changed values or a success start
 * a new attempt.
 */
export interface AttemptKeys {
  /** The key for sending `body` (the exact request body). */
  keyFor(body: string): string;
  /** The attempt succeeded: the next submission, even of the same values, is a new lead. */
  succeeded(): void;
}

export function attemptKeys(newKey: () => string): AttemptKeys {
  let current: { body: string; key: string } | null = null;
  return {
    keyFor(body) {
      if (!current || current.body !== body) current = { body, key: newKey() };
      return current.key;
    },
    succeeded() {
      current = null;
    },
  };
}

/**
 * A random key: a UUID where `crypto.randomUUID` exists (secure contexts), else 32 hex digits from
 * `crypto.getRandomValues`, which a host page served over plain http still has.
 */
export function randomKey(): string {
  if (typeof crypto.randomUUID === 'function') return crypto.randomUUID();
  return Array.from(crypto.getRandomValues(new Uint8Array(16)), (byte) => byte.toString(16).padStart(2, '0')).join('');
}
