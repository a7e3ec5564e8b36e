import { describe, expect, it } from 'vitest';
import { normalizeEmail, normalizePhone } from './normalize.js';

describe('normalizeEmail', () => {
  it('trims and lowercases', () => {
    expect(normalizeEmail('  Ada.Lovelace@Example.COM ')).toEqual({ ok: true, value: 'ada.lovelace@example.com' });
    expect(normalizeEmail('a+tag@sub.example.co.uk')).toEqual({ ok: true, value: 'a+tag@sub.example.co.uk' });
  });

  it.each(['', '   ', 'plain', 'a@b', '@example.com', 'a@@example.com', 'a b@example.com', 'a@exa mple.com', 'a@-example.com', `${'a'.repeat(250)}@example.com`, 'a@example.com\n'.repeat(2)])(
    'refuses %j',
    (raw) => {
      expect(normalizeEmail(raw).ok).toBe(false);
    },
  );
});

describe('normalizePhone', () => {
  it.each([
    ['+1 415 555 2671', 'US', '+14155552671'],
    ['(415) 555-2671', 'US', '+14155552671'],
    ['415.555.2671', 'US', '+14155552671'],
    ['020 7946 0958', 'GB', '+442079460958'],
    ['+44 20 7946 0958', 'US', '+442079460958'],
    ['06 12 34 56 78', 'FR', '+33612345678'],
    ['06 12 34 56 78', 'fr', '+33612345678'],
    ['+33 6 12 34 56 78', 'US', '+33612345678'],
    ['+1 415 555 2671 ext. 12', 'US', '+14155552671'],
    ['0049 30 901820', 'DE', '+4930901820'],
  ])('%s in %s → %s', (raw, country, expected) => {
    expect(normalizePhone(raw, country)).toEqual({ ok: true, value: expected });
  });

  it.each([
    ['', 'US'],
    ['12', 'US'],
    ['abc', 'US'],
    ['+1 (555) 010-0100', 'US'],
    ['06 12 34 56 78', 'US'],
    ['1'.repeat(41), 'US'],
    ['415-555-2671; drop table', 'US'],
    ['+999 1234 5678', 'US'],
  ])('refuses %j in %s', (raw, country) => {
    const result = normalizePhone(raw, country);
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.message.length).toBeGreaterThan(0);
  });
});
