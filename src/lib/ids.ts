import { randomBytes } from 'node:crypto';

/** Every id and secret prefix in the system, so leaks and mix-ups are easy to spot. */
export type IdPrefix =
  | 'dev' | 'app' | 'tool' | 'rev' | 'org' | 'usr' | 'key' | 'agt' | 'frm' | 'cf'
  | 'pipe' | 'stg' | 'ct' | 'note' | 'opp' | 'sub' | 'call' | 'inst' | 'req' | 'cv';

export type SecretPrefix = 'svc_cs' | 'svc_at' | 'svc_org' | 'svc_agt' | 'svc_sess';

const ALPHABET = '0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ';

/**
 * CSPRNG bytes drawn from a pool refilled 8 KB at a time: one randomBytes call per id
 * was a measurable share of a request's CPU. Each byte is handed out once.
 */
const POOL_SIZE = 8192;
let pool = randomBytes(POOL_SIZE);
let offset = 0;

function nextRandomByte(): number {
  if (offset === POOL_SIZE) {
    pool = randomBytes(POOL_SIZE);
    offset = 0;
  }
  return pool[offset++] as number;
}

/** Base62 string of `length` characters from a CSPRNG, without modulo bias. */
export function randomBase62(length: number): string {
  let out = '';
  while (out.length < length) {
    const byte = nextRandomByte();
    // 248 = 62 * 4: reject bytes above it so every character is equally likely.
    if (byte < 248) out += ALPHABET[byte % 62];
  }
  return out;
}

/** A new id like `tool_3kTMd92nqLx0aPz8Vb1c`: 20 base62 characters, ~119 bits. */
export function newId(prefix: IdPrefix): string {
  return `${prefix}_${randomBase62(20)}`;
}

/** A new secret like `svc_at_…`: 40 base62 characters, ~238 bits. */
export function newSecret(prefix: SecretPrefix): string {
  return `${prefix}_${randomBase62(40)}`;
}
