import { checkCustomValue } from '../crm/custom-values.js';
import { normalizeEmail, normalizePhone } from '../lib/normalize.js';
import { AppError } from '../http/errors.js';
import type { LiveCustomField, LiveForm } from './public-form.js';
import { isPlainObject } from '../lib/json.js';
import { cleanText } from '../lib/text.js';
import { BUILT_IN_FIELDS, LIMITS, UTM_KEYS, type BuiltInField } from './rules.js';

/**
 * The submit rules of the spec and DESIGN, in their order: consent, identity,
 * required fields, then each value. Pure: nothing here touches the database, so
 * every refusal happens before the transaction and writes nothing.
 */
export type CustomValue = string | number | boolean;

export interface CheckedSubmission {
  /** Enabled built-in fields that carry a value: trimmed, email lowercased, phone in E.164. */
  values: Partial<Record<BuiltInField, string>>;
  /** Every configured custom field that carries a value, by key. */
  custom: Record<string, CustomValue>;
  contactCustom: Record<string, CustomValue>;
  opportunityCustom: Record<string, CustomValue>;
  /** The utm_* keys that carry a value. */
  metadata: Record<string, string>;
}

type Body = Record<string, unknown>;

const LABELS: Record<BuiltInField, string> = { name: 'name', email: 'email address', phone: 'phone number', company: 'company', message: 'message' };

function own(object: Record<string, unknown>, key: string): unknown {
  return Object.prototype.hasOwnProperty.call(object, key) ? object[key] : undefined;
}

/** A value "carries something": not omitted, null, blank text, an empty list or an unticked box. */
function hasValue(value: unknown): boolean {
  if (value === undefined || value === null || value === false) return false;
  if (typeof value === 'string') return value.trim() !== '';
  if (Array.isArray(value)) return value.length > 0;
  return true;
}

/** Nothing was entered (a wrong type, like `false` for a text field, is not "nothing"). */
function isEmpty(value: unknown): boolean {
  return value === undefined || value === null || (typeof value === 'string' && value.trim() === '') || (Array.isArray(value) && value.length === 0);
}

function invalid(field: string, message: string): AppError {
  return new AppError('INVALID_FIELD', message, { field });
}

/** Trimmed, NFC-normalized text within `max` characters. */
function text(value: unknown, field: string, label: string, max: number): string {
  const cleaned = cleanText(value, max);
  if (!cleaned.ok) throw invalid(field, `The ${label} ${cleaned.message}.`);
  return cleaned.value;
}

function checkConsent(form: LiveForm, body: Body): void {
  const version = own(body, 'consentVersion');
  if (version === undefined || version === null || version === '') {
    throw new AppError('CONSENT_REQUIRED', 'Please agree to the consent text: send the consentVersion shown with the form.', { field: 'consentVersion' });
  }
  if (version !== form.consentVersion) {
    throw new AppError('CONSENT_REQUIRED', 'The consent text of this form has changed. Please read the current text and agree to it again.', {
      field: 'consentVersion',
    });
  }
}

function checkIdentity(form: LiveForm, body: Body): void {
  const email = form.fields.email.enabled && hasValue(own(body, 'email'));
  const phone = form.fields.phone.enabled && hasValue(own(body, 'phone'));
  if (email || phone) return;
  const ask = form.fields.email.enabled && form.fields.phone.enabled ? 'an email address or a phone number' : form.fields.email.enabled ? 'an email address' : 'a phone number';
  throw new AppError('IDENTITY_REQUIRED', `Please enter ${ask}, so we can get back to you.`);
}

function checkRequired(form: LiveForm, body: Body, custom: Record<string, unknown>): void {
  for (const name of BUILT_IN_FIELDS) {
    const setting = form.fields[name];
    if (setting.enabled && setting.required && !hasValue(own(body, name))) {
      throw new AppError('FIELD_REQUIRED', `Please enter your ${LABELS[name]}.`, { field: name });
    }
  }
  for (const field of form.customFields) {
    if (field.required && !hasValue(own(custom, field.key))) {
      throw new AppError('FIELD_REQUIRED', `Please fill in "${field.label}".`, { field: `custom.${field.key}` });
    }
  }
}

function builtInValue(name: BuiltInField, raw: unknown, form: LiveForm): string {
  const value = text(raw, name, LABELS[name], LIMITS[name]);
  if (name === 'email') {
    const email = normalizeEmail(value);
    if (!email.ok) throw invalid(name, email.message);
    return email.value;
  }
  if (name === 'phone') {
    const phone = normalizePhone(value, form.defaultCountry);
    if (!phone.ok) throw invalid(name, phone.message);
    return phone.value;
  }
  return value;
}

/**
 * One custom value, checked by the CRM's own rules for its type, so a value the form
 * accepts is one the CRM API accepts too. HTML forms send numbers as text, so those are read.
 */
function customValue(form: LiveForm, field: LiveCustomField, raw: unknown): CustomValue {
  const checked = checkCustomValue(field, raw, form.defaultCountry, { numbersAsText: true });
  if (!checked.ok) throw invalid(`custom.${field.key}`, checked.message);
  return checked.value;
}

function checkMetadata(raw: unknown): Record<string, string> {
  if (raw === undefined || raw === null) return {};
  if (!isPlainObject(raw)) throw invalid('metadata', 'metadata must be an object of utm_* values.');
  const metadata: Record<string, string> = {};
  for (const key of UTM_KEYS) {
    const value = own(raw, key);
    if (value === undefined || value === null || value === '') continue;
    metadata[key] = text(value, `metadata.${key}`, key, LIMITS.utm);
  }
  return metadata;
}

export function checkSubmission(form: LiveForm, body: Body): CheckedSubmission {
  checkConsent(form, body);
  checkIdentity(form, body);
  const rawCustom = own(body, 'custom');
  const custom = isPlainObject(rawCustom) ? rawCustom : {};
  checkRequired(form, body, custom);

  const values: CheckedSubmission['values'] = {};
  for (const name of BUILT_IN_FIELDS) {
    const raw = own(body, name);
    // Disabled fields are ignored whatever they hold: nothing of theirs is stored.
    if (!form.fields[name].enabled || isEmpty(raw)) continue;
    values[name] = builtInValue(name, raw, form);
  }

  if (rawCustom !== undefined && rawCustom !== null && !isPlainObject(rawCustom)) {
    throw invalid('custom', 'custom must be an object of values by field key.');
  }
  const checked: CheckedSubmission = { values, custom: {}, contactCustom: {}, opportunityCustom: {}, metadata: {} };
  for (const field of form.customFields) {
    const raw = own(custom, field.key);
    if (isEmpty(raw)) continue;
    const value = customValue(form, field, raw);
    checked.custom[field.key] = value;
    (field.entity === 'opportunity' ? checked.opportunityCustom : checked.contactCustom)[field.key] = value;
  }
  checked.metadata = checkMetadata(own(body, 'metadata'));
  return checked;
}
