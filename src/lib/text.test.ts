import { describe, expect, it } from 'vitest';
import { charLength, cleanText, httpUrl, textProblem } from './text.js';

describe('text checks', () => {
  it('counts code points, so an emoji is one character', () => {
    expect(charLength('héllo')).toBe(5);
    expect(charLength('👋🏽')).toBe(2);
    expect(charLength('a😀b')).toBe(3);
  });

  it('refuses lone surrogates and control characters, but not tabs and line breaks in multi-line text', () => {
    for (const kind of ['line', 'multiline'] as const) {
      expect(textProblem('\uD800x', kind)).toMatch(/surrogate/);
      expect(textProblem('x\uDC00', kind)).toMatch(/surrogate/);
      expect(textProblem('a\u0000b', kind)).toMatch(/control/);
      expect(textProblem('a\u007Fb', kind)).toMatch(/control/);
      expect(textProblem('مرحبا שלום e\u0301 👋🏽', kind)).toBeUndefined();
    }
    expect(textProblem('line one\nline two\tend\r\n', 'multiline')).toBeUndefined();
    for (const breaking of ['a\nb', 'a\tb', 'a\rb']) expect(textProblem(breaking, 'line')).toMatch(/control/);
  });

  it('trims, normalizes to NFC and applies the limit in characters', () => {
    expect(cleanText('  e\u0301  ', 10)).toEqual({ ok: true, value: '\u00e9' });
    expect(cleanText('😀'.repeat(3), 3)).toEqual({ ok: true, value: '😀😀😀' });
    expect(cleanText('abcd', 3)).toEqual({ ok: false, message: 'can be at most 3 characters long' });
    expect(cleanText(42, 3)).toEqual({ ok: false, message: 'must be text' });
  });

  it('accepts only http and https URLs', () => {
    expect(httpUrl('https://example.com/x')?.hostname).toBe('example.com');
    for (const bad of ['javascript:alert(1)', 'data:text/html,hi', '/relative', 'ftp://example.com']) expect(httpUrl(bad)).toBeUndefined();
  });
});
