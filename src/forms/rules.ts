/** The fixed facts of forms: the spec's five built-in fields, the UTM keys, and our size limits. */

export const BUILT_IN_FIELDS = ['name', 'email', 'phone', 'company', 'message'] as const;
export type BuiltInField = (typeof BUILT_IN_FIELDS)[number];

export type FieldSettings = Record<BuiltInField, { enabled: boolean; required: boolean }>;

/** Slugs are global, lowercase and short (DESIGN); anything else cannot name a form. */
export const SLUG_PATTERN = /^[a-z0-9-]{3,64}$/;

export const UTM_KEYS = ['utm_source', 'utm_medium', 'utm_campaign', 'utm_term', 'utm_content'] as const;

/**
 * Maximum lengths, in characters (Unicode code points). The spec leaves them open;
 * these fit every real lead while keeping rows and notes bounded.
 */
export const LIMITS = {
  // Submitted values
  name: 200,
  email: 254, // RFC 5321
  phone: 40,
  company: 200,
  message: 5000,
  customText: 1000,
  utm: 500,
  consentVersion: 64,
  /** Request body of a submission, in bytes. */
  submitBodyBytes: 64 * 1024,
  idempotencyKey: 255,
  userAgent: 512,
  // Form configuration
  title: 200,
  consentText: 5000,
  successMessage: 1000,
  redirectUrl: 2048,
  customFieldsPerForm: 50,
} as const;

export const DEFAULT_FIELDS: FieldSettings = {
  name: { enabled: true, required: false },
  email: { enabled: true, required: false },
  phone: { enabled: true, required: false },
  company: { enabled: false, required: false },
  message: { enabled: true, required: false },
};

export const DEFAULT_SUCCESS_MESSAGE = 'Thank you! We will be in touch soon.';

/** What a honeypot hit sees: the spec's generic 200, identical for every form so it reveals nothing. */
export const HONEYPOT_RESPONSE = { ok: true as const, successMessage: 'Thank you.', redirectUrl: null };

/** Public rate limits (spec, Limits): per client IP + slug. */
export const CONFIG_READS_PER_MINUTE = 60;
export const SUBMISSIONS_PER_MINUTE = 10;

/** An Idempotency-Key is remembered this long. */
export const IDEMPOTENCY_TTL_MS = 24 * 60 * 60 * 1000;

/**
 * Text is refused when it holds lone UTF-16 surrogates (they cannot be stored as UTF-8)
 * or control characters other than tab and line breaks (PostgreSQL refuses NUL outright;
 * the rest only ever come from bugs or attacks).
 */
// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\u007F]/;
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

export function textProblem(value: string): string | undefined {
  if (LONE_SURROGATE.test(value)) return 'contains an invalid character (a lone UTF-16 surrogate)';
  if (CONTROL.test(value)) return 'contains a control character';
  return undefined;
}

/** Length in Unicode code points, so an emoji counts as one character. */
export function charLength(value: string): number {
  let count = 0;
  for (let i = 0; i < value.length; i++) {
    const code = value.charCodeAt(i);
    if (code >= 0xd800 && code <= 0xdbff && i + 1 < value.length) i++;
    count++;
  }
  return count;
}

/** An http(s) URL or undefined; anything else (javascript:, data:, relative) is refused. */
export function httpUrl(raw: string): URL | undefined {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return undefined;
  }
  return url.protocol === 'http:' || url.protocol === 'https:' ? url : undefined;
}
