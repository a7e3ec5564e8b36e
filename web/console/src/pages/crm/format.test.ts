import { describe, expect, it } from 'vitest';
import type { CustomField } from '../../api/types';
import { displayValue } from '../../lib/format';
import { contactName, customRows } from './format';

describe('contactName', () => {
  it('prefers the name, then the email, then the phone', () => {
    expect(contactName({ name: ' Grace ', email: 'g@example.com', phone: null })).toBe('Grace');
    expect(contactName({ name: null, email: 'g@example.com', phone: '+1415' })).toBe('g@example.com');
    expect(contactName({ name: '', email: null, phone: '+1415' })).toBe('+1415');
    expect(contactName({ name: null, email: null, phone: null })).toBe('Unnamed contact');
  });
});

describe('displayValue and customRows', () => {
  it('words values', () => {
    expect(displayValue(true)).toBe('Yes');
    expect(displayValue(false)).toBe('No');
    expect(displayValue(4200)).toBe('4200');
    expect(displayValue('')).toBe('—');
    expect(displayValue(['a', 1])).toBe('a, 1');
    expect(displayValue({ a: 1 })).toBe('{"a":1}');
  });

  it('labels values by their definitions, sorted', () => {
    const fields = [{ key: 'insurer', label: 'Insurance provider', archived: true } as CustomField];
    expect(customRows({ zeta: 1, insurer: 'Cigna' }, fields)).toEqual([
      { key: 'insurer', label: 'Insurance provider', value: 'Cigna', archived: true },
      { key: 'zeta', label: 'zeta', value: '1', archived: false },
    ]);
  });
});
