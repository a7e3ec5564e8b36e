/**
 * Checks custom field values against their definitions and returns what to store:
 * emails lowercased, phones in E.164, text trimmed. Used by the contact and opportunity
 * endpoints; a value problem names its field (`custom.<key>`).
 */
import { AppError } from '../http/errors.js';
import { normalizeEmail, normalizePhone, type Normalized } from './normalize.js';
import type { CustomFieldDefinition } from './service.js';

export type CheckedValue = { ok: true; value: string | number | boolean } | { ok: false; message: string };

// The same limits as on form submissions (forms/rules.ts), so a value one path accepts the other does too.
const TEXT_MAX = { text: 1000, textarea: 5000 } as const;

function isCalendarDate(value: string): boolean {
  const match = /^(\d{4})-(\d{2})-(\d{2})$/.exec(value);
  if (!match) return false;
  const date = new Date(Date.UTC(Number(match[1]), Number(match[2]) - 1, Number(match[3])));
  return date.toISOString().slice(0, 10) === value;
}

function fromNormalized(result: Normalized): CheckedValue {
  return result.ok ? { ok: true, value: result.value } : result;
}

export function checkCustomValue(definition: Pick<CustomFieldDefinition, 'type' | 'options' | 'label'>, raw: unknown, defaultCountry: string): CheckedValue {
  const { type } = definition;
  if (type === 'number') {
    return typeof raw === 'number' && Number.isFinite(raw) ? { ok: true, value: raw } : { ok: false, message: `${definition.label} must be a number.` };
  }
  if (type === 'checkbox') {
    return typeof raw === 'boolean' ? { ok: true, value: raw } : { ok: false, message: `${definition.label} must be true or false.` };
  }
  if (typeof raw !== 'string') return { ok: false, message: `${definition.label} must be text.` };
  const text = raw.trim();
  switch (type) {
    case 'email':
      return fromNormalized(normalizeEmail(text));
    case 'phone':
      return fromNormalized(normalizePhone(text, defaultCountry));
    case 'url': {
      let url: URL | undefined;
      try {
        url = new URL(text);
      } catch {
        url = undefined;
      }
      if (!url || (url.protocol !== 'http:' && url.protocol !== 'https:') || text.length > 2048) {
        return { ok: false, message: `${definition.label} must be a full http:// or https:// URL.` };
      }
      return { ok: true, value: text };
    }
    case 'date':
      return isCalendarDate(text) ? { ok: true, value: text } : { ok: false, message: `${definition.label} must be a date like 2026-01-31.` };
    case 'select':
      return definition.options.includes(text) ? { ok: true, value: text } : { ok: false, message: `${definition.label} must be one of: ${definition.options.join(', ')}.` };
    case 'text':
    case 'textarea': {
      const max = TEXT_MAX[type];
      return text.length <= max ? { ok: true, value: text } : { ok: false, message: `${definition.label} has at most ${max} characters.` };
    }
    default:
      return { ok: false, message: `${definition.label} has an unknown type.` };
  }
}

/**
 * Values for `entity`'s active definitions, checked and normalized. Unknown or archived keys are
 * refused (an API caller wants to know), null means "remove" and is passed through as null.
 */
export function checkCustomValues(
  definitions: Pick<CustomFieldDefinition, 'key' | 'type' | 'options' | 'label'>[],
  values: Record<string, unknown>,
  defaultCountry: string,
): Record<string, string | number | boolean | null> {
  const byKey = new Map(definitions.map((d) => [d.key, d]));
  const out: Record<string, string | number | boolean | null> = {};
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
