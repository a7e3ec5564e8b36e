/**
 * The public Forms API as the browser sees it (docs/forms-api.md). Declared here rather than
 * imported from src/forms/schema.ts so the browser bundle pulls in no server code;
 * `types.test.ts` checks that the two stay assignable.
 */

export const BUILT_IN_FIELDS = ['name', 'email', 'phone', 'company', 'message'] as const;
export type BuiltInField = (typeof BUILT_IN_FIELDS)[number];

/** The spec's UTM keys (src/forms/rules.ts UTM_KEYS): the only `metadata` the API stores. */
export const UTM_KEYS = ['utm_source', 'utm_medium', 'utm_campaign', 'utm_term', 'utm_content'] as const;

export interface FieldSetting {
  enabled: boolean;
  required: boolean;
}

export interface Branding {
  name: string;
  primaryColor: string;
  backgroundColor: string;
  textColor: string;
  fontFamily: string | null;
  /** Empty when the brand has no logo. */
  logoUrl: string;
}

export interface PublicCustomField {
  key: string;
  entity: string;
  required: boolean;
  label: string;
  /** text, textarea, number, email, phone, url, date, checkbox, select; anything else renders as text. */
  type: string;
  options: string[];
}

export interface PublicFormConfig {
  slug: string;
  title: string;
  fields: Record<BuiltInField, FieldSetting>;
  customFields: PublicCustomField[];
  consentText: string;
  consentVersion: string;
  successMessage: string;
  redirectUrl: string | null;
  branding: Branding | null;
}

export type CustomValue = string | number | boolean;

export interface SubmitBody {
  consentVersion: string;
  name?: string;
  email?: string;
  phone?: string;
  company?: string;
  message?: string;
  custom?: Record<string, CustomValue>;
  metadata?: Record<string, string>;
  _hp: string;
}

export interface SubmitResult {
  ok: true;
  successMessage: string;
  redirectUrl: string | null;
}
