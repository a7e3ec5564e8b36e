import { randomBytes } from 'node:crypto';

/** Every id and secret prefix in the system, so leaks and mix-ups are easy to spot. */
export type IdPrefix =
  | 'dev' | 'app' | 'tool' | 'rev' | 'org' | 'usr' | 'key' | 'agt' | 'frm' | 'cf'
  | 'pipe' | 'stg' | 'ct' | 'note' | 'opp' | 'sub' | 'call' | 'inst' | 'req' | 'cv' | 'akey' | 'ses' | 'inv' | 'mp' | 'conv' | 'msg' | 'wh' | 'evt' | 'whd' | 'obx' | 'chat' | 'cses' | 'oac' | 'mgr' | 'mcpc' | 'ntc' | 'aud';

/** `chs`: a chat widget visitor's session (issue 22's wire name); `svc_ses`: console session (cookie); `svc_csrf`: its CSRF token; `svc_inv`: invitation link; `svc_rst`: password-reset link. */
export type SecretPrefix = 'chs' | 'svc_cs' | 'svc_at' | 'svc_org' | 'svc_agt' | 'svc_ses' | 'svc_csrf' | 'svc_inv' | 'svc_rst' | 'svc_mat' | 'svc_mrt' | 'svc_mac';

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

/** Prefixes of the records written at volume: every form submission writes one of each. */
export type RecordIdPrefix = 'ct' | 'note' | 'opp' | 'sub' | 'call' | 'evt' | 'whd' | 'obx' | 'ntc' | 'aud';

// 9 base36 characters hold every millisecond until the year 5188; digits and lowercase
// letters sort the same way bytewise (SQLite) and under PostgreSQL's locale collations.
const TIME_DIGITS = 9;

/**
 * A new id for a record written at volume, like `sub_0mwrevtqrLcXDYz3Occ6Q2DRn`: the
 * record's creation time (milliseconds, base36, 9 characters), then 15 base62 CSPRNG
 * characters (~89 bits). Still prefixed and unguessable; the time prefix only makes newer
 * ids sort after older ones, like a UUIDv7 or a ULID. That matters to the database: with
 * fully random ids every insert, into the id index and into each index on an id that
 * refers to the record, landed on a page of its own, so a submission dirtied about six
 * random pages that every commit and checkpoint had to write; now they append to the
 * index's last page. The prefix reveals nothing the record does not show: it is the
 * record's own `createdAt`, and only the organization's operators ever see these ids.
 */
export function newTimeOrderedId(prefix: RecordIdPrefix, createdAt: string): string {
  const ms = Date.parse(createdAt);
  if (!Number.isSafeInteger(ms) || ms < 0) throw new RangeError(`Not an ISO 8601 time after 1970: ${createdAt}`);
  return timeOrderedIdAt(prefix, ms);
}

/** `newTimeOrderedId` for a time already in milliseconds since 1970 (no ISO text to parse). */
export function timeOrderedIdAt(prefix: RecordIdPrefix, ms: number): string {
  if (!Number.isSafeInteger(ms) || ms < 0) throw new RangeError(`Not a time after 1970: ${ms}`);
  return `${prefix}_${ms.toString(36).padStart(TIME_DIGITS, '0')}${randomBase62(15)}`;
}

/** A new secret like `svc_at_…`: 40 base62 characters, ~238 bits. */
export function newSecret(prefix: SecretPrefix): string {
  return `${prefix}_${randomBase62(40)}`;
}

/**
 * What an id with this prefix can look like: 20 random base62 characters (`newId`), or 24
 * for a time-ordered record id (`newTimeOrderedId`). Anything else cannot exist.
 */
export function idPattern(prefix: IdPrefix): string {
  return `^${prefix}_[0-9A-Za-z]{20,24}$`;
}

/** Whether `value` could be an id with this prefix (see idPattern). */
export function isWellFormedId(prefix: IdPrefix, value: string): boolean {
  const rest = value.length - prefix.length - 1;
  return rest >= 20 && rest <= 24 && value.startsWith(`${prefix}_`) && BASE62.test(value.slice(prefix.length + 1));
}

const BASE62 = /^[0-9A-Za-z]+$/;
