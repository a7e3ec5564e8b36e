/**
 * Checks custom field values against their definitions and returns what to store:
 * emails lowercased, phones in E.164, text trimmed. Used by the contact and opportunity
 * endpoints; a value problem names its field (`custom.<key>`).
 */
import type { CustomFieldsTable } from '../db/tables.js';
import { AppError } from '../http/errors.js';
import { cleanText, httpUrl } from '../lib/text.js';
import { normalizeEmail, normalizePhone, type Normalized } from '../lib/normalize.js';
import type { CustomFieldEntity } from './schema.js';
import type { CustomFieldDefinition } from './service.js';

export type CheckedValue = { ok: true; value: string | number | boolean } | { ok: false; message: string };

/** Limits in characters (code points), the same for the API and form submissions. */
export const CUSTOM_VALUE_MAX = { text: 1000, textarea: 5000, email: 254, phone: 40, url: 2048 } as const;

function isCalendarDate(value: string): boolean {
  const match = /^(\d{4})-(\d{2})-(\d{2})$/.exec(value);
  if (!match) return false;
  const date = new Date(Date.UTC(Number(match[1]), Number(match[2]) - 1, Number(match[3])));
  return date.toISOString().slice(0, 10) === value;
}

function fromNormalized(result: Normalized): CheckedValue {
  return result.ok ? { ok: true, value: result.value } : result;
}

export interface CustomValueOptions {
  /** Read "12" as 12 for number fields (HTML forms send every value as text). */
  numbersAsText?: boolean;
}

/**
 * The one check of a custom value against its definition, used by the CRM API and by form
 * submissions: text is trimmed and NFC-normalized, emails lowercased, phones put in E.164.
 */
export function checkCustomValue(
  definition: Pick<CustomFieldDefinition, 'type' | 'options' | 'label'>,
  raw: unknown,
  defaultCountry: string,
  options: CustomValueOptions = {},
): CheckedValue {
  const { type, label } = definition;
  if (type === 'number') {
    const value = options.numbersAsText && typeof raw === 'string' && raw.trim() !== '' ? Number(raw.trim()) : raw;
    return typeof value === 'number' && Number.isFinite(value) ? { ok: true, value } : { ok: false, message: `${label} must be a number.` };
  }
  if (type === 'checkbox') {
    return typeof raw === 'boolean' ? { ok: true, value: raw } : { ok: false, message: `${label} must be true or false.` };
  }
  const max = type in CUSTOM_VALUE_MAX ? CUSTOM_VALUE_MAX[type as keyof typeof CUSTOM_VALUE_MAX] : CUSTOM_VALUE_MAX.text;
  const cleaned = cleanText(raw, max);
  if (!cleaned.ok) return { ok: false, message: `${label} ${cleaned.message}.` };
  const text = cleaned.value;
  switch (type) {
    case 'email':
      return fromNormalized(normalizeEmail(text));
    case 'phone':
      return fromNormalized(normalizePhone(text, defaultCountry));
    case 'url':
      return httpUrl(text) ? { ok: true, value: text } : { ok: false, message: `${label} must be a full http:// or https:// URL.` };
    case 'date':
      return isCalendarDate(text) ? { ok: true, value: text } : { ok: false, message: `${label} must be a date like 2026-01-31.` };
    case 'select':
      return definition.options.includes(text) ? { ok: true, value: text } : { ok: false, message: `${label} must be one of: ${definition.options.join(', ')}.` };
    default:
      // text, textarea, and any type added later: plain text is always safe to store.
      return { ok: true, value: text };
  }
}

export type CheckedCustomValues = Record<string, string | number | boolean | null>;

/**
 * Values for `entity`'s active definitions, checked and normalized. Unknown or archived keys are
 * refused (an API caller wants to know), null means "remove" and is passed through as null.
 */
export function checkCustomValues(
  definitions: Pick<CustomFieldDefinition, 'key' | 'type' | 'options' | 'label'>[],
  values: Record<string, unknown>,
  defaultCountry: string,
): CheckedCustomValues {
  const byKey = new Map(definitions.map((d) => [d.key, d]));
  const out: CheckedCustomValues = {};
  for (const [key, raw] of Object.entries(values)) {
    const definition = byKey.get(key);
    if (!definition) throw new AppError('VALIDATION_ERROR', `There is no active custom field with the key "${key}" here.`, { field: `custom.${key}` });
    if (raw === null) {
      out[key] = null;
      continue;
    }
    if (typeof raw === 'string' && raw.trim() === '') continue;
    const checked = checkCustomValue(definition, raw, defaultCountry);
    if (!checked.ok) throw new AppError('VALIDATION_ERROR', checked.message, { field: `custom.${key}` });
    out[key] = checked.value;
  }
  return out;
}

/**
 * The custom values of an API body (`custom`) for `entity`, checked against the org's active
 * definitions as `checkCustomValues` does. Definitions and the default country are looked up only
 * when there are values.
 */
export async function checkCustomInput(
  fields: { activeFor(orgId: string, entity: string): Promise<CustomFieldsTable[]> },
  orgId: string,
  entity: CustomFieldEntity,
  values: Record<string, unknown> | undefined,
  defaultCountry: () => Promise<string>,
): Promise<CheckedCustomValues> {
  if (values === undefined || Object.keys(values).length === 0) return {};
  const definitions = (await fields.activeFor(orgId, entity)).map((row) => ({ ...row, options: JSON.parse(row.options) as string[] }));
  return checkCustomValues(definitions, values, await defaultCountry());
}

/** `stored` with checked changes applied: a null value deletes its key, any other value replaces it. */
export function mergeCustomValues(stored: Record<string, unknown>, changes: CheckedCustomValues): Record<string, unknown> {
  const merged = { ...stored };
  for (const [key, value] of Object.entries(changes)) {
    if (value === null) delete merged[key];
    else merged[key] = value;
  }
  return merged;
}
