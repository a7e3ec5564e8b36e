import { describe, expect, it } from 'vitest';
import { linkablePage, shortPage, sourceLabel, startedIn, utmText } from './source';

describe('where a conversation started', () => {
  it('names each source, and says the widget’s campaign in the parameters’ order', () => {
    expect(['widget', 'console', 'api'].map(sourceLabel)).toEqual(['Widget', 'Console', 'API']);
    expect(startedIn('widget')).toBe('in the chat widget');
    expect(utmText({ campaign: 'spring', source: 'google', medium: 'cpc' })).toBe('source google · medium cpc · campaign spring');
    expect(utmText({})).toBe('');
    expect(utmText(null)).toBe('');
  });

  it('shortens the page to host and path for the list, and links only http(s) pages', () => {
    expect(shortPage('https://www.example.com/pricing?utm_source=google#top')).toBe('www.example.com/pricing');
    expect(shortPage('https://www.example.com/')).toBe('www.example.com');
    expect(shortPage(`https://example.com/${'a'.repeat(80)}`)).toHaveLength(60);
    expect(linkablePage('https://example.com/a')).toBe(true);
    expect(linkablePage('javascript:alert(1)')).toBe(false);
    expect(linkablePage('not a url')).toBe(false);
  });
});
