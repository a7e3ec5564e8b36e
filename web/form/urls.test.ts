import { describe, expect, it } from 'vitest';
import { UTM_KEYS as SERVER_UTM_KEYS } from '../../src/forms/rules.js';
import { UTM_KEYS } from './types.js';
import { httpUrl, utmFromUrl } from './urls.js';

describe('metadata from the page URL', () => {
  it('uses the same five keys as the API', () => {
    expect(UTM_KEYS).toEqual(SERVER_UTM_KEYS);
  });

  it('takes exactly the utm_* parameters the API stores', () => {
    const url =
      'https://shop.example/landing?utm_source=newsletter&utm_medium=email&utm_campaign=spring%20sale&utm_term=shoes&utm_content=hero&utm_id=42&gclid=abc&ref=x#utm_source=hash';
    expect(utmFromUrl(url)).toEqual({ utm_source: 'newsletter', utm_medium: 'email', utm_campaign: 'spring sale', utm_term: 'shoes', utm_content: 'hero' });
  });

  it('leaves out empty and missing values, trims, and reads + as a space', () => {
    expect(utmFromUrl('https://a.example/?utm_source=&utm_medium=%20%20&utm_campaign=+spring+sale+')).toEqual({ utm_campaign: 'spring sale' });
    expect(utmFromUrl('https://a.example/')).toEqual({});
  });

  it('takes the first of repeated parameters, is case-sensitive, and cuts values to 500 characters', () => {
    expect(utmFromUrl('https://a.example/?utm_source=a&utm_source=b&UTM_MEDIUM=c')).toEqual({ utm_source: 'a' });
    const long = '😀'.repeat(600);
    const value = utmFromUrl(`https://a.example/?utm_term=${encodeURIComponent(long)}`).utm_term!;
    expect(Array.from(value)).toHaveLength(500); // code points, as the API counts them
  });

  it('survives what is not a URL', () => {
    expect(utmFromUrl('')).toEqual({});
    expect(utmFromUrl('not a url?utm_source=x')).toEqual({});
    expect(utmFromUrl(undefined)).toEqual({});
  });
});

describe('redirect URL safety', () => {
  it('allows http and https URLs', () => {
    expect(httpUrl('https://example.com/thanks?x=1')).toBe('https://example.com/thanks?x=1');
    expect(httpUrl('http://example.com')).toBe('http://example.com/');
    expect(httpUrl('HTTPS://Example.com/A')).toBe('https://example.com/A');
  });

  it('refuses javascript:, data: and every other scheme, however it is written', () => {
    for (const url of [
      'javascript:alert(1)',
      'JavaScript:alert(1)',
      ' javascript:alert(1)',
      'java\tscript:alert(1)',
      '\u0000javascript:alert(1)',
      'data:text/html,<script>alert(1)</script>',
      'vbscript:msgbox(1)',
      'file:///etc/passwd',
      'blob:https://example.com/x',
      'ftp://example.com',
      'mailto:a@example.com',
    ]) {
      expect(httpUrl(url), url).toBeNull();
    }
  });

  it('refuses relative and protocol-relative URLs, and nothing at all', () => {
    for (const url of ['/thanks', '//evil.example/', 'thanks.html', '', null, undefined]) expect(httpUrl(url)).toBeNull();
  });
});
