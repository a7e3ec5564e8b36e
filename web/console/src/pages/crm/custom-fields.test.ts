import { describe, expect, it } from 'vitest';
import { optionsFromText, suggestKey } from './custom-fields';

describe('suggestKey', () => {
  it('makes a key the API accepts from a label', () => {
    expect(suggestKey('Insurance provider')).toBe('insurance_provider');
    expect(suggestKey('  Crédit  Score! ')).toBe('credit_score');
    expect(suggestKey('2nd phone')).toBe('nd_phone');
    expect(suggestKey('!!!')).toBe('');
    expect(suggestKey('a'.repeat(80))).toHaveLength(64);
    for (const label of ['Insurance provider', 'x y', 'Z9']) expect(suggestKey(label)).toMatch(/^[a-z][a-z0-9_]{0,63}$/);
  });
});

describe('optionsFromText', () => {
  it('reads one choice per line', () => {
    expect(optionsFromText(' Delta Dental \r\n\nCigna\n  \nNone')).toEqual(['Delta Dental', 'Cigna', 'None']);
  });
});
