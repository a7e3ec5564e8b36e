import { describe, expect, it } from 'vitest';
import { ApiError } from '../../api/client';
import type { CustomField } from '../../api/types';
import { contactName, customRows, fieldError, formatValue, formLevelError } from './format';

describe('contactName', () => {
  it('prefers the name, then the email, then the phone', () => {
    expect(contactName({ name: ' Grace ', email: 'g@example.com', phone: null })).toBe('Grace');
    expect(contactName({ name: null, email: 'g@example.com', phone: '+1415' })).toBe('g@example.com');
    expect(contactName({ name: '', email: null, phone: '+1415' })).toBe('+1415');
    expect(contactName({ name: null, email: null, phone: null })).toBe('Unnamed contact');
  });
});

describe('formatValue and customRows', () => {
  it('words values', () => {
    expect(formatValue(true)).toBe('Yes');
    expect(formatValue(false)).toBe('No');
    expect(formatValue(4200)).toBe('4200');
    expect(formatValue('')).toBe('—');
    expect(formatValue(['a', 1])).toBe('a, 1');
    expect(formatValue({ a: 1 })).toBe('{"a":1}');
  });

  it('labels values by their definitions, sorted', () => {
    const fields = [{ key: 'insurer', label: 'Insurance provider', archived: true } as CustomField];
    expect(customRows({ zeta: 1, insurer: 'Cigna' }, fields)).toEqual([
      { key: 'insurer', label: 'Insurance provider', value: 'Cigna', archived: true },
      { key: 'zeta', label: 'zeta', value: '1', archived: false },
    ]);
  });
});

describe('fieldError', () => {
  const refusal = new ApiError({ status: 400, code: 'VALIDATION_ERROR', message: 'Options must be unique.', field: 'options.1' });

  it('gives the message to the field and its sub-paths', () => {
    expect(fieldError(refusal, 'options')).toBe('Options must be unique.');
    expect(fieldError(refusal, 'option')).toBeUndefined();
    expect(fieldError(new Error('x'), 'options')).toBeUndefined();
  });

  it('leaves to the form what no field claims', () => {
    expect(formLevelError(refusal, ['options'])).toBeNull();
    expect(formLevelError(refusal, ['key'])).toBe(refusal);
    expect(formLevelError(null, ['key'])).toBeNull();
  });
});
