import type { RawHttpOutcome } from '../net/http-client.js';

/**
 * What happens after an attempt. Pure functions, so the rules are tested without a network.
 *
 * - 2xx: succeeded.
 * - Timeouts, connection errors, 408, 429 and 5xx: tried again, with exponential backoff and jitter
 *   (30 s, 1, 2, 4 … minutes, at most 1 h between attempts; each wait a random 50–100% of that), or
 *   after the answer's Retry-After when it gives one; for 24 h from the delivery's creation, then failed.
 * - Any other status (other 4xx, and 3xx: redirects are never followed) and a refused address: failed
 *   at once. Retrying cannot fix a URL the receiver says is wrong or the policy refuses.
 */
export const RETRY_WINDOW_MS = 24 * 60 * 60 * 1000;
const FIRST_WAIT_MS = 30_000;
const LONGEST_WAIT_MS = 60 * 60 * 1000;
/** A Retry-After of 0 still leaves a second. */
const SHORTEST_WAIT_MS = 1000;

export type Verdict = { kind: 'succeeded' } | { kind: 'retry'; retryAfterMs?: number } | { kind: 'failed' };

export function judge(outcome: RawHttpOutcome, now: Date): Verdict {
  if (!outcome.ok) {
    if (outcome.code === 'TOOL_TIMEOUT' || outcome.code === 'TOOL_UNREACHABLE') return { kind: 'retry' };
    return { kind: 'failed' };
  }
  const { status } = outcome;
  if (status >= 200 && status < 300) return { kind: 'succeeded' };
  if (status === 408 || status === 429 || status >= 500) {
    const retryAfterMs = parseRetryAfter(outcome.retryAfter, now);
    return retryAfterMs === undefined ? { kind: 'retry' } : { kind: 'retry', retryAfterMs };
  }
  return { kind: 'failed' };
}

/** Retry-After as seconds or an HTTP date (RFC 9110 §10.2.3), in ms from `now`; undefined when absent or unreadable. */
export function parseRetryAfter(value: string | undefined, now: Date): number | undefined {
  if (value === undefined) return undefined;
  const text = value.trim();
  if (/^\d+$/.test(text)) return Math.max(SHORTEST_WAIT_MS, Number(text) * 1000);
  const at = Date.parse(text);
  if (Number.isNaN(at) || !/[a-z]/i.test(text)) return undefined;
  return Math.max(SHORTEST_WAIT_MS, at - now.getTime());
}

/** The wait after the `attempts`-th failed attempt (1 = the first), with jitter from `random` in [0, 1). */
export function backoffMs(attempts: number, random: () => number): number {
  const ceiling = Math.min(LONGEST_WAIT_MS, FIRST_WAIT_MS * 2 ** Math.min(attempts - 1, 20));
  return Math.round(ceiling * (0.5 + random() / 2));
}

/**
 * When to try next. A wait that would end past the 24 h window is cut to its end, so the last attempt is
 * made 24 h after the delivery was queued; after that one, undefined (the delivery fails).
 */
export function nextAttemptAt(verdict: Extract<Verdict, { kind: 'retry' }>, attempts: number, createdAt: string, now: Date, random: () => number): Date | undefined {
  const wait = verdict.retryAfterMs ?? backoffMs(attempts, random);
  const deadline = Date.parse(createdAt) + RETRY_WINDOW_MS;
  if (now.getTime() >= deadline) return undefined;
  return new Date(Math.min(now.getTime() + wait, deadline));
}
