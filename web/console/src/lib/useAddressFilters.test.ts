import { describe, expect, it } from 'vitest';
import { filtersFrom, paramsFrom } from './useAddressFilters';

describe('filters kept in the address', () => {
  const empty = { q: '', category: '' };

  it('reads every known filter, missing ones empty, unknown ones ignored', () => {
    expect(filtersFrom(new URLSearchParams('q=crm&other=1'), empty)).toEqual({ q: 'crm', category: '' });
    expect(filtersFrom(new URLSearchParams(''), empty)).toEqual({ q: '', category: '' });
    expect(filtersFrom(new URLSearchParams('category=ecommerce&q=a%20b'), empty)).toEqual({ q: 'a b', category: 'ecommerce' });
  });

  it('does not change the empty filters it was given', () => {
    filtersFrom(new URLSearchParams('q=x'), empty);
    expect(empty).toEqual({ q: '', category: '' });
  });

  it('builds the address from a draft without empty or blank values, trimmed', () => {
    expect(paramsFrom({ q: '  ada ', category: '' }).toString()).toBe('q=ada');
    expect(paramsFrom({ q: '   ', category: 'crm' }).toString()).toBe('category=crm');
    expect(paramsFrom({ q: '', category: '' }).toString()).toBe('');
    expect(paramsFrom({ email: 'a+b@example.com', phone: '+1 555' }).toString()).toBe('email=a%2Bb%40example.com&phone=%2B1+555');
  });

  it('reads back what it builds', () => {
    const draft = { q: 'ada lovelace', category: 'crm' };
    expect(filtersFrom(paramsFrom(draft), empty)).toEqual(draft);
  });
});
