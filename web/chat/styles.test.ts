import { describe, expect, it } from 'vitest';
import { AA_TEXT, contrast, parseHex } from '../form/contrast.js';
import { applyChatBranding, mix } from './brand.js';
import { chatStyles } from './styles.js';

/**
 * The rules that keep the host page's CSS out of the widget, read from the stylesheet's text (the
 * browser suite, src/chat/widget.browser.test.ts, checks the drawn result under hostile host CSS).
 */
describe('chatStyles', () => {
  it('uses no unit that follows the host page: rem and the other root-relative units, viewport units', () => {
    expect(chatStyles.match(/\d(?:r(?:em|lh|ex|ch|ic|cap)|[sld]?v(?:w|h|i|b|min|max))\b/g)).toBeNull();
  });

  it('resets the host element with important declarations, and the root to initial values at the visitor\'s default size', () => {
    expect(chatStyles).toMatch(/^:host\{all:initial!important;display:block!important\}/);
    const root = /\n\.sc\{([^}]*)\}/.exec(chatStyles)?.[1] ?? '';
    expect(root).toMatch(/^all:initial;/);
    expect(root).toMatch(/font:medium\//);
    expect(root).toMatch(/direction:ltr/);
  });

  it('fills the window below 480 px', () => {
    expect(chatStyles).toMatch(/@media \(max-width:479\.98px\)\{\.sc-panel\{top:0;left:0;right:0;bottom:0;width:auto;height:auto;/);
  });
});

describe('applyChatBranding', () => {
  function brandVars(branding: Parameters<typeof applyChatBranding>[1]) {
    const vars: Record<string, string> = {};
    applyChatBranding({ style: { setProperty: (name: string, value: string) => (vars[name] = value) } } as unknown as HTMLElement, branding);
    return vars;
  }
  const ratio = (a: string, b: string) => contrast(parseHex(a)!, parseHex(b)!);

  it('sets every custom property, so none inherits from the host page', () => {
    expect(Object.keys(brandVars(null)).sort()).toEqual(['--sc-bg', '--sc-err', '--sc-fg', '--sc-font', '--sc-line', '--sc-on-pri', '--sc-pri', '--sc-ring'].sort());
    expect(brandVars(null)['--sc-font']).toBe('initial');
    expect(brandVars({ name: 'A', primaryColor: '#123456', backgroundColor: '#ffffff', textColor: '#000000', fontFamily: 'Inter, sans-serif', logoUrl: '' })['--sc-font']).toBe('Inter, sans-serif');
    expect(brandVars({ name: 'A', primaryColor: '#123456', backgroundColor: '#ffffff', textColor: '#000000', fontFamily: 'x;}body{color:red', logoUrl: '' })['--sc-font']).toBe('initial');
  });

  it('keeps text at 4.5:1 or more whatever the brand picked: the transcript, the visitor\'s bubbles, the errors', () => {
    for (const [primaryColor, backgroundColor, textColor] of [['#ffff00', '#ffffff', '#eeeeee'], ['#1a56db', '#0b0b0b', '#222222'], ['#777777', '#777777', '#787878']]) {
      const v = brandVars({ name: 'A', primaryColor: primaryColor!, backgroundColor: backgroundColor!, textColor: textColor!, fontFamily: null, logoUrl: '' });
      expect(ratio(v['--sc-fg']!, v['--sc-bg']!)).toBeGreaterThanOrEqual(AA_TEXT);
      expect(ratio(v['--sc-on-pri']!, v['--sc-pri']!)).toBeGreaterThanOrEqual(AA_TEXT);
      expect(ratio(v['--sc-err']!, v['--sc-bg']!)).toBeGreaterThanOrEqual(AA_TEXT);
    }
  });

  it('mixes hairline colors between background and text', () => {
    expect(mix('#ffffff', '#000000', 0.25)).toBe('#bfbfbf');
    expect(mix('#fff', '#000', 0)).toBe('#ffffff');
  });
});
