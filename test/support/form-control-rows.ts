import type { PublicCustomField, PublicFormConfig } from '../../web/form/types.js';

/**
 * One table of form controls, run through every place a form is drawn or read
 * (src/forms/form-controls.test.ts: the server's HTML and both body builders in Node;
 * src/forms/form-controls.browser.test.ts: the server's HTML and the browser renderer in Chromium,
 * and the bodies of a real no-JS post and a real script submission). Each row puts one field into
 * an otherwise minimal form (an optional email, the consent box) and says what every renderer must
 * show and what the submission body must carry when the visitor enters `input`.
 */

/** The attributes the renderers must agree on (ids differ by design: `sf-0` on the server, `sf1-0` in the browser). */
export const COMPARED_ATTRIBUTES = ['class', 'type', 'name', 'required', 'aria-required', 'maxlength', 'autocomplete', 'inputmode', 'step'] as const;

export interface ControlRow {
  name: string;
  /** The built-in field under test (enabled), or the custom field under test. */
  field: { builtIn: 'name' | 'email' | 'phone' | 'company' | 'message'; required: boolean } | { custom: PublicCustomField } | { consent: true };
  /** The control key (and posted name). */
  key: string;
  /** The element every renderer must draw: its tag, its compared attributes, its label, a select's choices. */
  element: { tag: 'input' | 'textarea' | 'select'; attrs: Record<string, string>; label: string; options?: string[] };
  /** What the visitor enters: text, or true to tick a box, false to leave it. */
  input: string | boolean;
  /** What the submission body carries beyond the base (`_hp`, `consentVersion`, the base email). */
  body: Record<string, unknown>;
}

export const CONSENT_VERSION = '7';
export const CONSENT_TEXT = 'I agree to be contacted <b>&"\'';
/** The base form's email, filled in every row that is not about email, so the API would accept it. */
export const BASE_EMAIL = 'row@example.com';

const XSS = '<img src=x onerror=alert(1)>&"\'';
const custom = (key: string, type: string, required: boolean, label: string, options: string[] = []): ControlRow['field'] => ({
  custom: { key, entity: 'contact', required, label, type, options },
});
const req = { required: '', 'aria-required': 'true' };

export const CONTROL_ROWS: ControlRow[] = [
  {
    name: 'name, required',
    field: { builtIn: 'name', required: true },
    key: 'name',
    element: { tag: 'input', attrs: { class: 'sf-in', type: 'text', name: 'name', ...req, maxlength: '200', autocomplete: 'name' }, label: 'Name' },
    input: 'Ada Lovelace',
    body: { name: 'Ada Lovelace' },
  },
  {
    name: 'name, optional and left blank (blank is not sent)',
    field: { builtIn: 'name', required: false },
    key: 'name',
    element: { tag: 'input', attrs: { class: 'sf-in', type: 'text', name: 'name', maxlength: '200', autocomplete: 'name' }, label: 'Name' },
    input: '   ',
    body: {},
  },
  {
    name: 'email, required',
    field: { builtIn: 'email', required: true },
    key: 'email',
    element: { tag: 'input', attrs: { class: 'sf-in', type: 'email', name: 'email', ...req, maxlength: '254', autocomplete: 'email' }, label: 'Email' },
    input: 'ada@example.com',
    body: { email: 'ada@example.com' },
  },
  {
    name: 'phone, optional',
    field: { builtIn: 'phone', required: false },
    key: 'phone',
    element: { tag: 'input', attrs: { class: 'sf-in', type: 'tel', name: 'phone', maxlength: '40', autocomplete: 'tel' }, label: 'Phone' },
    input: '+44 20 7946 0000',
    body: { phone: '+44 20 7946 0000' },
  },
  {
    name: 'company, required',
    field: { builtIn: 'company', required: true },
    key: 'company',
    element: { tag: 'input', attrs: { class: 'sf-in', type: 'text', name: 'company', ...req, maxlength: '200', autocomplete: 'organization' }, label: 'Company' },
    input: 'Analytical Engines Ltd',
    body: { company: 'Analytical Engines Ltd' },
  },
  {
    name: 'message, required: a textarea',
    field: { builtIn: 'message', required: true },
    key: 'message',
    element: { tag: 'textarea', attrs: { class: 'sf-in', name: 'message', ...req, maxlength: '5000' }, label: 'Message' },
    input: 'Call me <please>',
    body: { message: 'Call me <please>' },
  },
  {
    name: 'custom text, optional, label with markup',
    field: custom('size', 'text', false, `Size ${XSS}`),
    key: 'custom.size',
    element: { tag: 'input', attrs: { class: 'sf-in', type: 'text', name: 'custom.size', maxlength: '1000' }, label: `Size ${XSS}` },
    input: 'Large',
    body: { custom: { size: 'Large' } },
  },
  {
    name: 'custom textarea, required',
    field: custom('notes', 'textarea', true, 'Notes'),
    key: 'custom.notes',
    element: { tag: 'textarea', attrs: { class: 'sf-in', name: 'custom.notes', ...req, maxlength: '5000' }, label: 'Notes' },
    input: 'Ground floor',
    body: { custom: { notes: 'Ground floor' } },
  },
  {
    name: 'custom number: sent as a number',
    field: custom('seats', 'number', false, 'Seats'),
    key: 'custom.seats',
    element: { tag: 'input', attrs: { class: 'sf-in', type: 'number', name: 'custom.seats', inputmode: 'decimal', step: 'any' }, label: 'Seats' },
    input: '12.5',
    body: { custom: { seats: 12.5 } },
  },
  {
    name: 'custom email, required',
    field: custom('billing', 'email', true, 'Billing email'),
    key: 'custom.billing',
    element: { tag: 'input', attrs: { class: 'sf-in', type: 'email', name: 'custom.billing', ...req, maxlength: '254' }, label: 'Billing email' },
    input: 'billing@example.com',
    body: { custom: { billing: 'billing@example.com' } },
  },
  {
    name: 'custom phone',
    field: custom('mobile', 'phone', false, 'Mobile'),
    key: 'custom.mobile',
    element: { tag: 'input', attrs: { class: 'sf-in', type: 'tel', name: 'custom.mobile', maxlength: '40' }, label: 'Mobile' },
    input: '+1 202 555 0100',
    body: { custom: { mobile: '+1 202 555 0100' } },
  },
  {
    name: 'custom url',
    field: custom('site', 'url', false, 'Website'),
    key: 'custom.site',
    element: { tag: 'input', attrs: { class: 'sf-in', type: 'url', name: 'custom.site', maxlength: '2048' }, label: 'Website' },
    input: 'https://example.com/a?b=c',
    body: { custom: { site: 'https://example.com/a?b=c' } },
  },
  {
    name: 'custom date, required',
    field: custom('visit', 'date', true, 'Visit date'),
    key: 'custom.visit',
    element: { tag: 'input', attrs: { class: 'sf-in', type: 'date', name: 'custom.visit', ...req }, label: 'Visit date' },
    input: '2026-11-26',
    body: { custom: { visit: '2026-11-26' } },
  },
  {
    name: 'custom checkbox, ticked: true',
    field: custom('newsletter', 'checkbox', false, 'Newsletter'),
    key: 'custom.newsletter',
    element: { tag: 'input', attrs: { type: 'checkbox', name: 'custom.newsletter' }, label: 'Newsletter' },
    input: true,
    body: { custom: { newsletter: true } },
  },
  {
    name: 'custom checkbox, left unticked: nothing sent',
    field: custom('newsletter', 'checkbox', false, 'Newsletter'),
    key: 'custom.newsletter',
    element: { tag: 'input', attrs: { type: 'checkbox', name: 'custom.newsletter' }, label: 'Newsletter' },
    input: false,
    body: {},
  },
  {
    name: 'custom checkbox, required',
    field: custom('terms', 'checkbox', true, 'Terms'),
    key: 'custom.terms',
    element: { tag: 'input', attrs: { type: 'checkbox', name: 'custom.terms', ...req }, label: 'Terms' },
    input: true,
    body: { custom: { terms: true } },
  },
  {
    name: 'custom select, required, choices with markup',
    field: custom('plan', 'select', true, 'Plan', ['Basic', `Pro ${XSS}`]),
    key: 'custom.plan',
    element: { tag: 'select', attrs: { class: 'sf-in', name: 'custom.plan', ...req }, label: 'Plan', options: ['', 'Basic', `Pro ${XSS}`] },
    input: `Pro ${XSS}`,
    body: { custom: { plan: `Pro ${XSS}` } },
  },
  {
    name: 'a custom type this version does not know: plain text',
    field: custom('shade', 'colour', false, 'Shade'),
    key: 'custom.shade',
    element: { tag: 'input', attrs: { class: 'sf-in', type: 'text', name: 'custom.shade', maxlength: '1000' }, label: 'Shade' },
    input: 'teal',
    body: { custom: { shade: 'teal' } },
  },
  {
    name: 'the consent box: required, labelled with the consent text, sends the version shown',
    field: { consent: true },
    key: 'consent',
    element: { tag: 'input', attrs: { type: 'checkbox', name: 'consent', ...req }, label: CONSENT_TEXT },
    input: true,
    body: {},
  },
];

/** The form of one row: an optional email, the row's field, the consent box. */
export function rowConfig(row: ControlRow): PublicFormConfig {
  const off = { enabled: false, required: false };
  const fields: PublicFormConfig['fields'] = { name: off, email: { enabled: true, required: false }, phone: off, company: off, message: off };
  if ('builtIn' in row.field) fields[row.field.builtIn] = { enabled: true, required: row.field.required };
  return {
    slug: 'control-row',
    title: `Row: ${row.name}`,
    fields,
    customFields: 'custom' in row.field ? [row.field.custom] : [],
    consentText: CONSENT_TEXT,
    consentVersion: CONSENT_VERSION,
    successMessage: 'Thanks.',
    redirectUrl: null,
    branding: null,
  };
}

/** The body every row's submission must equal: the base, plus the row's part. */
export function expectedBody(row: ControlRow): Record<string, unknown> {
  return { _hp: '', consentVersion: CONSENT_VERSION, ...(row.key === 'email' ? {} : { email: BASE_EMAIL }), ...row.body };
}

/** What the visitor posts for a row, as name/value pairs (a ticked box posts `on`, an unticked one nothing). */
export function rowPairs(row: ControlRow): [string, string][] {
  const pairs: [string, string][] = [];
  if (row.key !== 'email') pairs.push(['email', BASE_EMAIL]);
  if (row.key !== 'consent' && row.input !== false) pairs.push([row.key, row.input === true ? 'on' : row.input]);
  pairs.push(['consent', 'on'], ['_hp', ''], ['consentVersion', CONSENT_VERSION]);
  return pairs;
}
