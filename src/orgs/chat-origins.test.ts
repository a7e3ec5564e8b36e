import { describe, expect, it } from 'vitest';
import { isAppError } from '../http/errors.js';
import { normalizeOrigin, normalizeOrigins, originAllowed } from './chat-origins.js';

/** The chat widget's allowed origins: what an operator may type, how it is stored, and what a browser's Origin matches. */

function refusal(input: string): { field: string | undefined; message: string } {
  try {
    normalizeOrigin(input, 'chat.allowedOrigins[0]');
  } catch (error) {
    if (isAppError(error) && error.code === 'VALIDATION_ERROR') return { field: error.field, message: error.message };
    throw error;
  }
  throw new Error(`${input} was accepted`);
}

describe('chat origins', () => {
  it('stores an origin as browsers send it: lowercase, punycode, no default port, no trailing slash', () => {
    expect(normalizeOrigin('  HTTPS://Shop.Example.COM/ ', 'f')).toBe('https://shop.example.com');
    expect(normalizeOrigin('https://shop.example.com:443', 'f')).toBe('https://shop.example.com');
    expect(normalizeOrigin('http://localhost:8080', 'f')).toBe('http://localhost:8080');
    expect(normalizeOrigin('http://127.0.0.1:5173', 'f')).toBe('http://127.0.0.1:5173');
    expect(normalizeOrigin('https://bücher.example', 'f')).toBe('https://xn--bcher-kva.example');
    expect(normalizeOrigin('https://*.Example.com:443', 'f')).toBe('https://*.example.com');
    expect(normalizeOrigin('https://*.example.com:8443', 'f')).toBe('https://*.example.com:8443');
  });

  it('refuses what is not an origin, saying why and naming the entry', () => {
    const cases: Array<[string, RegExp]> = [
      ['shop.example.com', /must start with https:\/\//],
      ['ftp://shop.example.com', /must start with https:\/\//],
      ['https://shop.example.com/page', /no path, query or fragment/],
      ['https://shop.example.com?x=1', /no path, query or fragment/],
      ['https://shop.example.com#top', /no path, query or fragment/],
      ['https://user:pw@shop.example.com', /user name or password/],
      ['https://shop.*.example.com', /only as one leading label/],
      ['https://*.*.example.com', /only as one leading label/],
      ['https://*', /only as one leading label|at least two labels/],
      ['https://*.com', /at least two labels/],
      ['https://*.127.0.0.1', /at least two labels|host or port is not valid/],
      ['https://', /host or port is not valid|no host/],
      ['https://shop.example.com:99999', /host or port is not valid/],
      ['null', /must start with https:\/\//],
    ];
    for (const [input, why] of cases) {
      const { field, message } = refusal(input);
      expect(field, input).toBe('chat.allowedOrigins[0]');
      expect(message, input).toMatch(why);
      expect(message, input).toContain('is not an origin the chat can allow');
    }
  });

  it('keeps a list once each, at most 20, naming the bad entry by its place', () => {
    expect(normalizeOrigins(['https://a.example', 'HTTPS://A.example/', 'https://b.example'])).toEqual(['https://a.example', 'https://b.example']);
    expect(() => normalizeOrigins(Array.from({ length: 21 }, (_, i) => `https://s${i}.example`))).toThrow(/at most 20 origins \(21 given\)/);
    try {
      normalizeOrigins(['https://a.example', 'https://a.example/x']);
      expect.unreachable();
    } catch (error) {
      expect(isAppError(error) && error.field).toBe('chat.allowedOrigins[1]');
    }
  });

  it('matches a browser\'s Origin exactly, a wildcard standing for exactly one label', () => {
    const allowed = ['https://shop.example.com', 'https://*.example.org', 'http://localhost:8080'];
    for (const origin of ['https://shop.example.com', 'HTTPS://SHOP.EXAMPLE.COM', 'https://blog.example.org', 'https://x-1.example.org', 'http://localhost:8080']) {
      expect(originAllowed(origin, allowed), origin).toBe(true);
    }
    for (const origin of [
      undefined, '', 'null', 'https://shop.example.com.evil.example', 'http://shop.example.com', 'https://shop.example.com:444',
      'https://example.org', 'https://a.b.example.org', 'https://.example.org', 'https://evil.example/https://blog.example.org',
      'http://blog.example.org', 'https://blog.example.org:8443', 'http://localhost:8081', 'https://-x.example.org',
    ]) {
      expect(originAllowed(origin, allowed), String(origin)).toBe(false);
    }
  });
});
