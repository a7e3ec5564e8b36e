import { describe, expect, it } from 'vitest';
import { BUILT_IN_CONTROLS, customControlType } from '../../web/form/fields.js';
import { CUSTOM_VALUE_MAX } from '../crm/custom-values.js';
import { BUILT_IN_FIELDS, LIMITS } from './rules.js';

// The hosted page and the browser renderer draw fields from one table; a visitor must never be
// allowed to type more than the API accepts, or be stopped short of what it accepts.
describe('the form controls table', () => {
  it('caps each built-in field at the API limit', () => {
    for (const name of BUILT_IN_FIELDS) expect(BUILT_IN_CONTROLS[name][3], name).toBe(LIMITS[name]);
  });

  it('caps each length-limited custom type at the API limit', () => {
    for (const [type, max] of Object.entries(CUSTOM_VALUE_MAX)) {
      const expected = type === 'phone' ? 'tel' : type;
      expect(customControlType(type), type).toEqual([expected, max]);
    }
  });

  it('draws a type this version does not know as plain text with the text limit', () => {
    expect(customControlType('colour')).toEqual(['text', CUSTOM_VALUE_MAX.text]);
  });
});
