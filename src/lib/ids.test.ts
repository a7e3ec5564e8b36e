import { describe, expect, it } from 'vitest';
import { newId, newSecret, newTimeOrderedId } from './ids.js';

describe('newId', () => {
  it('is the prefix and 20 base62 characters', () => {
    expect(newId('frm')).toMatch(/^frm_[0-9a-zA-Z]{20}$/);
    expect(newSecret('svc_org')).toMatch(/^svc_org_[0-9a-zA-Z]{40}$/);
  });
});

describe('newTimeOrderedId', () => {
  const createdAt = '2026-11-22T05:43:51.123Z';

  it('is the prefix, the creation time in base36 and 15 random base62 characters', () => {
    const id = newTimeOrderedId('sub', createdAt);
    expect(id).toMatch(/^sub_[0-9a-z]{9}[0-9a-zA-Z]{15}$/);
    expect(new Date(parseInt(id.slice(4, 13), 36)).toISOString()).toBe(createdAt);
  });

  it('sorts after every id made earlier, bytewise and by locale', () => {
    const times = ['1970-01-01T00:00:00.001Z', '2001-09-09T01:46:40.000Z', createdAt, '2026-11-22T05:43:51.124Z', '2100-01-01T00:00:00.000Z'];
    const ids = times.map((time) => newTimeOrderedId('ct', time));
    expect([...ids].sort()).toEqual(ids);
    expect([...ids].sort((a, b) => a.localeCompare(b, 'en'))).toEqual(ids);
  });

  it('stays unique within one millisecond', () => {
    const ids = new Set(Array.from({ length: 10_000 }, () => newTimeOrderedId('note', createdAt)));
    expect(ids.size).toBe(10_000);
  });

  it('refuses a time it cannot encode', () => {
    expect(() => newTimeOrderedId('opp', 'yesterday')).toThrow(RangeError);
    expect(() => newTimeOrderedId('opp', '1969-12-31T23:59:59.999Z')).toThrow(RangeError);
  });
});
