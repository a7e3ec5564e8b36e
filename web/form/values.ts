import type { Failure } from './api.js';
import { BUILT_IN_FIELDS, type CustomValue, type PublicFormConfig, type SubmitBody } from './types.js';

/**
 * What the visitor entered, by control key: a built-in field's name, `custom.<key>` for a custom
 * field, `consent` for the consent box. Text as typed; checkboxes as booleans.
 */
export type Values = Record<string, string | boolean | undefined>;

/** The control that shows consent errors. */
export const CONSENT = 'consent';

const filled = (value: unknown): value is string => typeof value === 'string' && value.trim() !== '';

/**
 * The submission body for `values`. Empty fields are left out (the API treats blank as missing),
 * an unticked custom checkbox too (as a plain HTML form post does), and a number is sent as a
 * number when it reads as one (otherwise as typed, so the API names the field).
 */
export function buildBody(config: PublicFormConfig, values: Values, metadata: Record<string, string>, honeypot: string): SubmitBody {
  const body: SubmitBody = { consentVersion: config.consentVersion, _hp: honeypot };
  for (const name of BUILT_IN_FIELDS) {
    const value = values[name];
    if (config.fields[name].enabled && filled(value)) body[name] = value;
  }
  const custom: Record<string, CustomValue> = {};
  for (const field of config.customFields) {
    const value = values[`custom.${field.key}`];
    if (field.type === 'checkbox') {
      if (value === true) custom[field.key] = true;
    } else if (filled(value)) {
      custom[field.key] = field.type === 'number' && Number.isFinite(Number(value)) ? Number(value) : value;
    }
  }
  if (Object.keys(custom).length) body.custom = custom;
  if (Object.keys(metadata).length) body.metadata = metadata;
  return body;
}

/**
 * The controls a refusal marks, by control key. FIELD_REQUIRED and INVALID_FIELD name one field
 * (`phone`, `custom.<key>`; `consentVersion` is the consent box); IDENTITY_REQUIRED marks email
 * and phone, whichever the form shows. A field the form does not show marks nothing.
 */
export function controlsToMark(failure: Pick<Failure, 'code' | 'field'>, shown: (key: string) => boolean): string[] {
  let keys: string[] = [];
  if (failure.code === 'IDENTITY_REQUIRED') keys = ['email', 'phone'];
  else if (failure.code === 'CONSENT_REQUIRED') keys = [CONSENT];
  else if ((failure.code === 'FIELD_REQUIRED' || failure.code === 'INVALID_FIELD') && failure.field) {
    keys = [failure.field === 'consentVersion' ? CONSENT : failure.field];
  }
  return keys.filter(shown);
}
