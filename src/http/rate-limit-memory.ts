import { randomInt } from 'node:crypto';
import type { RateLimitStore } from './rate-limit.js';

export interface MemoryStoreOptions {
  /** Counters per row, a power of two (default 2^20: 4 MB per window in use). */
  width?: number;
  /** The two hash seeds (default: random for each store, see below); tests fix them so collisions are repeatable. */
  seeds?: readonly [number, number];
}

const MAX_COUNT = 0xffff;

/** murmur3's finalizer: spreads every input bit over the whole hash. */
function fmix32(h: number): number {
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  return (h ^ (h >>> 16)) >>> 0;
}

/**
 * Rate-limit counters in memory, as a count-min sketch per window: two rows of
 * 16-bit counters, each key counted in one slot per row (by two independent seeded
 * hashes), its count read as the smaller of its two slots.
 *
 * Why not a Map of key → count: the public form routes count per client IP, and a
 * flood from many addresses (the case a limiter exists for) would put a new key in
 * the Map on every request. The Map then has to be bounded by forgetting keys, and
 * a forgotten key starts again from zero, so a flood could buy back its own budget.
 * A sketch has a fixed size whatever the traffic, costs no allocation per request,
 * and can only over-count: two keys sharing both slots (improbable while the number
 * of keys in a window stays well below the row width) make each other look busier,
 * never quieter. No one gets more than their limit.
 *
 * The hash seeds are random for each store, so nobody can pick keys that collide with
 * someone else's on purpose.
 */
export function createMemoryRateLimitStore(options: MemoryStoreOptions = {}): RateLimitStore & { bytes(): number } {
  const width = options.width ?? 1 << 20;
  if (!Number.isInteger(Math.log2(width))) throw new Error('width must be a power of two');
  const mask = width - 1;
  const [seed1, seed2] = options.seeds ?? [randomInt(2 ** 31), randomInt(2 ** 31)];
  // Window end → its counters (row 1 then row 2). A closed window's array is zeroed and reused.
  const windows = new Map<number, Uint16Array>();

  function countersFor(windowEnd: number, now: number): Uint16Array {
    let reusable: Uint16Array | undefined;
    for (const [end, counters] of windows) {
      if (end > now) continue;
      windows.delete(end);
      reusable ??= counters;
    }
    const counters = reusable?.fill(0) ?? new Uint16Array(width * 2);
    windows.set(windowEnd, counters);
    return counters;
  }

  return {
    bytes: () => windows.size * width * 2 * Uint16Array.BYTES_PER_ELEMENT,
    increment: (key, windowEnd, now) => {
      const counters = windows.get(windowEnd) ?? countersFor(windowEnd, now);
      // Two hashes in one pass over the key: FNV-1a and a multiply-xor-shift hash, differently seeded.
      let h1 = 0x811c9dc5 ^ seed1;
      let h2 = seed2;
      for (let i = 0; i < key.length; i++) {
        const c = key.charCodeAt(i);
        h1 = Math.imul(h1 ^ c, 0x01000193);
        h2 = Math.imul(h2 ^ c, 0x5bd1e995);
        h2 ^= h2 >>> 15;
      }
      const slot1 = fmix32(h1) & mask;
      const slot2 = width + (fmix32(h2) & mask);
      const a = counters[slot1]!;
      const b = counters[slot2]!;
      // Conservative update: only the slots at the key's current minimum grow, which keeps over-counting low.
      const count = Math.min(Math.min(a, b) + 1, MAX_COUNT);
      if (a < count) counters[slot1] = count;
      if (b < count) counters[slot2] = count;
      return count;
    },
  };
}
