import { BUILT_IN_CONTROLS, customControlType } from './fields.js';
import { BUILT_IN_FIELDS, UTM_KEYS, type BuiltInField, type CustomValue, type PublicFormConfig, type SubmitBody } from './types.js';

/**
 * The one description of a form's controls: what each control is (type, label, required, options,
 * length limit, input attributes), in the order the form shows them. The server's HTML
 * (src/forms/hosted-html.ts) and the browser renderer (renderer.ts) both draw from it, and both
 * submission bodies (the no-JS form post, the script's request) are read from it, so a field's rules
 * change here (and in the per-type table of fields.ts) and only here. Pure TypeScript, no DOM and no
 * Node: the server imports it and the browser bundles it (it lives in web/ because web/ imports
 * nothing from src/). One table, test/support/form-control-rows.ts, runs through all four:
 * src/forms/form-controls.test.ts (Node) and src/forms/form-controls.browser.test.ts (Chromium).
 */

/**
 * What the visitor entered, by control key: a built-in field's name, `custom.<key>` for a custom
 * field, `consent` for the consent box. Text as typed; checkboxes as booleans.
 */
export type Values = Record<string, string | boolean | undefined>;

/** The control key (and form name) of the consent box; refusals about consent mark it. */
export const CONSENT = 'consent';

export interface FormControl {
  /**
   * The control key: also the name it is posted under and the `field` of a refusal. It says where the
   * value goes in the submission body: a built-in field by its name, `custom.<key>` into `custom`,
   * and `consent` nowhere (the body carries the consent version instead).
   */
  key: string;
  /** An input's `type`, or `textarea` or `select`; `checkbox` for the custom checkboxes and the consent box. */
  type: string;
  /** Plain text: the consent box's label is the form's consent text. */
  label: string;
  required: boolean;
  /** The API's limit, in characters, where it has one. */
  maxLength?: number | undefined;
  /** Further attributes of the element: autocomplete, or step and inputmode of a number. */
  attrs: Record<string, string>;
  /** The choices of a select, after the empty "Choose…". */
  options: string[];
}

const CUSTOM = 'custom.';

/** The texts the form shows around its controls (the same before and after the script runs). */
export const TEXT = {
  note: 'Fields marked * are required.',
  choose: 'Choose\u2026',
  submit: 'Submit',
  correct: 'Please correct the marked fields.',
} as const;

/** The honeypot: a text input people never see (`.sf-hp`), left empty by people and filled by many bots. */
export const HONEYPOT = { name: '_hp', label: 'Leave this field empty' } as const;

/** "Email or phone": the message when the form shows either and both are blank. */
export function identityMessage(shown: string[]): string {
  return `Please enter ${shown.length > 1 ? 'an email address or a phone number' : shown[0] === 'email' ? 'an email address' : 'a phone number'}.`;
}

/** The controls of `config`, in order: the enabled built-in fields, the custom fields, the consent box. */
export function formControls(config: PublicFormConfig): FormControl[] {
  const controls: FormControl[] = [];
  for (const key of BUILT_IN_FIELDS) {
    const setting = config.fields[key];
    if (!setting?.enabled) continue;
    const [label, type, autocomplete, maxLength] = BUILT_IN_CONTROLS[key];
    controls.push({ key, type, label, required: setting.required, maxLength, attrs: autocomplete ? { autocomplete } : {}, options: [] });
  }
  for (const field of config.customFields) {
    const [type, maxLength] = customControlType(field.type);
    const attrs: Record<string, string> = type === 'number' ? { step: 'any', inputmode: 'decimal' } : {};
    controls.push({ key: CUSTOM + field.key, type, label: field.label, required: field.required, maxLength, attrs, options: type === 'select' ? field.options : [] });
  }
  controls.push({ key: CONSENT, type: 'checkbox', label: config.consentText, required: true, attrs: {}, options: [] });
  return controls;
}

/** Posted pairs by name: a Map of a form-encoded post, or the browser's FormData of the form. */
export interface Posted {
  has(name: string): boolean;
  get(name: string): unknown;
}

const text = (value: unknown): string => (typeof value === 'string' ? value : '');

/** What the visitor entered, read from a post of the form: a checkbox is ticked when its name was sent. */
export function postedValues(controls: FormControl[], posted: Posted): Values {
  const values: Values = {};
  for (const { key, type } of controls) values[key] = type === 'checkbox' ? posted.has(key) : text(posted.get(key));
  return values;
}

/** The `utm_*` of a post: the hidden inputs of the hosted page. */
export function postedMetadata(posted: Posted): Record<string, string> {
  const metadata: Record<string, string> = {};
  for (const key of UTM_KEYS) {
    const value = text(posted.get(key));
    if (value) metadata[key] = value;
  }
  return metadata;
}

/** A body whose consent version may be missing: a no-JS post without the consent box ticked sends none. */
export type BodyOf<T extends string | undefined> = Omit<SubmitBody, 'consentVersion'> & (T extends string ? { consentVersion: string } : { consentVersion?: string });

const filled = (value: unknown): value is string => typeof value === 'string' && value.trim() !== '';

/**
 * The submission body for `values`, the one builder of both the script and the no-JS post. Empty
 * fields are left out (the API treats blank as missing), an unticked custom checkbox too (as a plain
 * HTML form post does), and a number is sent as a number when it reads as one (otherwise as typed,
 * so the API names the field).
 */
export function submissionBody<T extends string | undefined>(
  controls: FormControl[],
  values: Values,
  extra: { consentVersion: T; metadata: Record<string, string>; honeypot: string },
): BodyOf<T> {
  // _hp first: the no-JS post's Idempotency-Key digests this JSON, keep it stable across versions.
  const body = { _hp: extra.honeypot } as BodyOf<string | undefined>;
  if (extra.consentVersion !== undefined) body.consentVersion = extra.consentVersion;
  const custom: Record<string, CustomValue> = {};
  for (const { key, type } of controls) {
    const value = values[key];
    if (!key.startsWith(CUSTOM)) {
      if (key !== CONSENT && filled(value)) body[key as BuiltInField] = value;
    } else if (type === 'checkbox') {
      if (value === true) custom[key.slice(CUSTOM.length)] = true;
    } else if (filled(value)) {
      custom[key.slice(CUSTOM.length)] = type === 'number' && Number.isFinite(Number(value)) ? Number(value) : value;
    }
  }
  if (Object.keys(custom).length) body.custom = custom;
  if (Object.keys(extra.metadata).length) body.metadata = extra.metadata;
  return body as BodyOf<T>;
}
