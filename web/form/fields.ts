import type { BuiltInField } from './types.js';

/**
 * How each field type is drawn: the table behind the control model (controls.ts), which the
 * server-rendered hosted page (src/forms/hosted-html.ts) and the browser renderer (renderer.ts) both
 * draw from, so the page before and after JavaScript runs agrees.
 * Length limits mirror the API's (src/forms/rules.ts, src/crm/custom-values.ts); a test checks them.
 */
export const BUILT_IN_CONTROLS: Record<BuiltInField, [label: string, type: string, autocomplete: string, maxLength: number]> = {
  name: ['Name', 'text', 'name', 200],
  email: ['Email', 'email', 'email', 254],
  phone: ['Phone', 'tel', 'tel', 40],
  company: ['Company', 'text', 'organization', 200],
  message: ['Message', 'textarea', '', 5000],
};

const CUSTOM_CONTROLS: Record<string, [type: string, maxLength?: number]> = {
  textarea: ['textarea', 5000],
  number: ['number'],
  email: ['email', 254],
  phone: ['tel', 40],
  url: ['url', 2048],
  date: ['date'],
  checkbox: ['checkbox'],
  select: ['select'],
};

/** A custom field type → the control's type and maximum length; a type this version does not know is plain text. */
export function customControlType(fieldType: string): [type: string, maxLength?: number] {
  return CUSTOM_CONTROLS[fieldType] ?? ['text', 1000];
}

/** A font-family list, nothing else: names, quotes, commas, spaces and hyphens. */
export const FONT_FAMILY = /^[\w\s,'"-]{1,200}$/;
