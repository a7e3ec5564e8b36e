import { describe, expect, it } from 'vitest';
import { AA_TEXT, contrast, parseHex } from '../form/contrast.js';
import { applyChatBranding, mix } from './brand.js';
import { launcherStyles, panelStyles } from './styles.js';

/** The whole stylesheet, as the open widget has it: the launcher's, then the panel's. */
const chatStyles = launcherStyles + panelStyles;

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
    expect(Object.keys(brandVars(null)).sort()).toEqual(['--sc-bg', '--sc-err', '--sc-fg', '--sc-font', '--sc-line', '--sc-on-op', '--sc-on-pri', '--sc-op', '--sc-pri', '--sc-ring'].sort());
    // Every property the stylesheet reads is one of them.
    const read = new Set(Array.from(chatStyles.matchAll(/var\((--sc-[\w-]+)/g), (m) => m[1]));
    expect([...read].filter((name) => !(name! in brandVars(null)))).toEqual([]);
    expect(brandVars(null)['--sc-font']).toBe('initial');
    expect(brandVars({ name: 'A', primaryColor: '#123456', backgroundColor: '#ffffff', textColor: '#000000', fontFamily: 'Inter, sans-serif', logoUrl: '' })['--sc-font']).toBe('Inter, sans-serif');
    expect(brandVars({ name: 'A', primaryColor: '#123456', backgroundColor: '#ffffff', textColor: '#000000', fontFamily: 'x;}body{color:red', logoUrl: '' })['--sc-font']).toBe('initial');
  });

  it('keeps text at 4.5:1 or more whatever the brand picked: the transcript, the visitor\'s bubbles, the operator\'s bubbles, the errors', () => {
    const brands = [
      ['#ffff00', '#ffffff', '#eeeeee'],
      ['#1a56db', '#0b0b0b', '#222222'],
      ['#777777', '#777777', '#787878'],
      // A text color that passes on the background by a hair: the operator's tint would pull it under.
      ['#000000', '#ffffff', '#767676'],
      ['#ff0000', '#000000', '#8a8a8a'],
      ['#00ff00', '#101010', '#ffffff'],
      ['#0000ff', '#ffffff', '#1f2328'],
      ['#ff00ff', '#777777', '#000000'],
    ];
    for (const [primaryColor, backgroundColor, textColor] of brands) {
      const v = brandVars({ name: 'A', primaryColor: primaryColor!, backgroundColor: backgroundColor!, textColor: textColor!, fontFamily: null, logoUrl: '' });
      expect(ratio(v['--sc-fg']!, v['--sc-bg']!)).toBeGreaterThanOrEqual(AA_TEXT);
      expect(ratio(v['--sc-on-pri']!, v['--sc-pri']!)).toBeGreaterThanOrEqual(AA_TEXT);
      expect(ratio(v['--sc-err']!, v['--sc-bg']!)).toBeGreaterThanOrEqual(AA_TEXT);
      // The operator's bubble: its name, text and links are --sc-on-op on --sc-op.
      expect(ratio(v['--sc-on-op']!, v['--sc-op']!), `${primaryColor} on ${backgroundColor}`).toBeGreaterThanOrEqual(AA_TEXT);
      // Its tint stays near the background, so the bubble reads as a bubble, not a button.
      expect(ratio(v['--sc-op']!, v['--sc-bg']!)).toBeLessThan(1.6);
    }
    // Default colors: the text keeps its own color in the operator's bubble.
    expect(brandVars(null)['--sc-on-op']).toBe(brandVars(null)['--sc-fg']);
  });

  it('draws the operator\'s bubble, the status lines and the "Sent" mark in colors that pass: the operator\'s on its tint, the rest inherited', () => {
    const rule = (selector: string) => new RegExp(`\\n${selector.replace(/[.[\]()+]/g, '\\$&')}\\{([^}]*)\\}`).exec(chatStyles)?.[1] ?? '';
    expect(rule('.sc-op')).toMatch(/background:var\(--sc-op\);color:var\(--sc-on-op\)/);
    // Lines and marks take the color of what they sit on (the transcript, the visitor's bubble): no opacity, no grey.
    for (const selector of ['.sc-ev', '.sc-sent', '.sc-who']) {
      expect(rule(selector), selector).not.toBe('');
      expect(rule(selector)).not.toMatch(/color|opacity/);
    }
  });

  it('mixes hairline colors between background and text', () => {
    expect(mix('#ffffff', '#000000', 0.25)).toBe('#bfbfbf');
    expect(mix('#fff', '#000', 0)).toBe('#ffffff');
  });
});
