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
