import { createHmac, randomBytes } from 'node:crypto';
import type { SlidingTake, SlidingWindowStore } from './rate-limit.js';

export interface SlidingMemoryOptions {
  /**
   * Keys with an exact log, at most. Default 50,000: 17 MB of heap with one try per key, 19 MB with 10,
   * 29 MB with 30 (measured with keys like the accounts' `signin-account:<sha-256 hex>`); far more keys
   * than sign-ins, resets and sign-ups a deployment sees in an hour. Past it, new keys are counted in the overflow sketch.
   */
  maxKeys?: number;
  /** Counters per row of the overflow sketch, a power of two (default 2^16: 512 KB per window length, made on first overflow). */
  overflowWidth?: number;
}

/** Answers synchronously, so a limit checked in memory costs no promise. */
export interface MemorySlidingStore extends SlidingWindowStore {
  take(key: string, limit: number, windowMs: number, now: number): SlidingTake;
  /** Keys with a log now. */
  keys(): number;
}

/**
 * Sliding-window limits in memory, exact: a log per key of the times of its accepted requests
 * (at most `limit` of them), and a request is accepted when fewer than `limit` of those lie in the
 * last `windowMs`. So no span of `windowMs`, wherever it starts, holds more than `limit` accepted
 * requests — the burst a fixed window allows across its edge (up to twice the limit) cannot happen.
 * Refused requests are not logged: a client that keeps trying gets a slot back as soon as its
 * oldest accepted request leaves the window, which is what Retry-After says.
 *
 * Bounded memory: logs are kept in one Map per window length, in the order of their latest accepted
 * request, which for one window length is the order in which they expire; so expired logs are at the
 * front and are dropped a few at a time as requests come. At most `maxKeys` logs are kept. Past that,
 * a new key (a flood of distinct emails or addresses, say) is counted in the overflow sketch, a
 * count-min sketch of the current and the previous fixed window of the rule's length, and is let
 * through only while both windows together hold fewer than `limit` of its requests. That can only
 * be stricter than the exact log, never looser: any span of `windowMs` ending now lies inside those
 * two windows, and the sketch never under-counts. So a flood cannot buy back anyone's budget —
 * keys with a log keep it, and an overflowing key at worst waits up to two windows — and the
 * memory stays fixed whatever comes. A key counted in the sketch stays there while the sketch
 * remembers any of its requests, so moving between the two never forgets a request.
 */
export function createMemorySlidingStore(options: SlidingMemoryOptions = {}): MemorySlidingStore {
  const maxKeys = options.maxKeys ?? 50_000;
  const overflow = createOverflowSketch(options.overflowWidth ?? 1 << 16);
  // Window length → key → accepted request times, oldest first (never empty).
  const logs = new Map<number, Map<string, number[]>>();
  let size = 0;

  /** Drops, from the front, up to `max` logs whose requests have all left the window. */
  function dropExpired(windowMs: number, keyed: Map<string, number[]>, now: number, max: number): void {
    for (const [key, times] of keyed) {
      if (max-- <= 0 || times[times.length - 1]! > now - windowMs) return;
      keyed.delete(key);
      size--;
    }
  }

  return {
    keys: () => size,
    take(key: string, limit: number, windowMs: number, now: number): SlidingTake {
      let keyed = logs.get(windowMs);
      if (!keyed) logs.set(windowMs, (keyed = new Map()));
      // Two per request keeps up with one new key per request, so expired logs never pile up.
      dropExpired(windowMs, keyed, now, 2);
      let times = keyed.get(key);
      if (!times) {
        if (size >= maxKeys) for (const [length, other] of logs) dropExpired(length, other, now, Infinity);
        if (size >= maxKeys || overflow.remembers(key, windowMs, now)) return overflow.take(key, limit, windowMs, now);
        times = [];
        size++;
      }
      let left = 0;
      while (left < times.length && times[left]! <= now - windowMs) left++;
      if (left > 0) times.splice(0, left);
      if (times.length >= limit) return { allowed: false, count: times.length, freesAt: times[0]! + windowMs };
      times.push(now);
      // Re-inserted last: the Map stays in the order of latest accepted request.
      keyed.delete(key);
      keyed.set(key, times);
      return { allowed: true, count: times.length, freesAt: times[0]! + windowMs };
    },
  };
}

/**
 * The overflow of the sliding store: per window length, two count-min sketches (the current fixed
 * window and the one before), of 16-bit counters, two rows. A key's count is its estimate in the
 * previous window plus its estimate in the current one; each estimate is at least the truth.
 * Slots come from an HMAC under a random key, so nobody can pick keys that collide with another's.
 */
function createOverflowSketch(width: number) {
  if (!Number.isInteger(Math.log2(width))) throw new Error('overflowWidth must be a power of two');
  const mask = width - 1;
  const secret = randomBytes(32);
  // Window length → window end → counters (row 1, then row 2). Only the current and the previous window are kept.
  const sketches = new Map<number, Map<number, Uint16Array>>();

  function slotsOf(key: string): [number, number] {
    const digest = createHmac('sha256', secret).update(key).digest();
    return [digest.readUInt32LE(0) & mask, width + (digest.readUInt32LE(4) & mask)];
  }

  /** The previous and current windows' counters (undefined when nothing was counted in them), dropping older ones. */
  function windowsAt(windowMs: number, now: number, create: boolean): [Uint16Array | undefined, Uint16Array | undefined, number] {
    const currentEnd = (Math.floor(now / windowMs) + 1) * windowMs;
    let windows = sketches.get(windowMs);
    if (!windows) {
      if (!create) return [undefined, undefined, currentEnd];
      sketches.set(windowMs, (windows = new Map()));
    }
    let reusable: Uint16Array | undefined;
    for (const [end, counters] of windows) {
      if (end >= currentEnd - windowMs) continue;
      windows.delete(end);
      reusable ??= counters;
    }
    let current = windows.get(currentEnd);
    if (!current && create) windows.set(currentEnd, (current = reusable?.fill(0) ?? new Uint16Array(width * 2)));
    return [windows.get(currentEnd - windowMs), current, currentEnd];
  }

  const estimate = (counters: Uint16Array | undefined, [a, b]: [number, number]) => (counters ? Math.min(counters[a]!, counters[b]!) : 0);

  return {
    /** Whether the sketch holds any request of `key` in the span it covers (costs no hashing while it is empty). */
    remembers(key: string, windowMs: number, now: number): boolean {
      const [previous, current] = windowsAt(windowMs, now, false);
      if (!previous && !current) return false;
      const slots = slotsOf(key);
      return estimate(previous, slots) + estimate(current, slots) > 0;
    },
    take(key: string, limit: number, windowMs: number, now: number): SlidingTake {
      const [previous, current, currentEnd] = windowsAt(windowMs, now, true);
      const slots = slotsOf(key);
      const before = estimate(previous, slots);
      const inCurrent = estimate(current, slots);
      const count = before + inCurrent;
      // The previous window's requests leave the count at the current window's end; the current ones a window later.
      if (count >= limit) return { allowed: false, count, freesAt: inCurrent < limit ? currentEnd : currentEnd + windowMs };
      // Conservative update: only slots below the key's new count grow.
      const next = Math.min(inCurrent + 1, 0xffff);
      for (const slot of slots) if (current![slot]! < next) current![slot] = next;
      return { allowed: true, count: count + 1, freesAt: before > 0 ? currentEnd : currentEnd + windowMs };
    },
  };
}
