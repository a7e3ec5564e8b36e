import { describe, expect, it } from 'vitest';
import { AA_TEXT, AA_UI, contrast, luminance, palette, parseHex, readableOn } from './contrast.js';

const ratio = (a: string, b: string) => contrast(parseHex(a)!, parseHex(b)!);

describe('contrast', () => {
  it('reads #rgb and #rrggbb, and nothing else', () => {
    expect(parseHex('#1a73E8')).toEqual([0x1a, 0x73, 0xe8]);
    expect(parseHex('#fa0')).toEqual([0xff, 0xaa, 0x00]);
    for (const bad of ['', 'red', '#12345', '1a73e8', '#1a73e8ff', 'rgb(0,0,0)', 'url(x)', null, undefined]) expect(parseHex(bad)).toBeNull();
  });

  it('computes WCAG relative luminance and contrast ratios', () => {
    expect(luminance([0, 0, 0])).toBe(0);
    expect(luminance([255, 255, 255])).toBeCloseTo(1, 10);
    expect(ratio('#000000', '#ffffff')).toBeCloseTo(21, 10);
    expect(ratio('#ffffff', '#ffffff')).toBe(1);
    // Reference values from the WCAG contrast checkers.
    expect(ratio('#777777', '#ffffff')).toBeCloseTo(4.48, 2);
    expect(ratio('#767676', '#ffffff')).toBeCloseTo(4.54, 2);
    expect(ratio('#1a73e8', '#ffffff')).toBeCloseTo(4.5, 1);
    expect(ratio('#ff0000', '#ffffff')).toBeCloseTo(4.0, 1);
  });

  it('keeps a passing color and replaces a failing one with black or white', () => {
    expect(readableOn('#ffffff', '#767676')).toBe('#767676');
    expect(readableOn('#ffffff', '#777777')).toBe('#000000');
    expect(readableOn('#111111', '#333333')).toBe('#ffffff');
    expect(readableOn('#ffff00', '#ffffff')).toBe('#000000');
    expect(readableOn('#000080', 'not a color')).toBe('#ffffff');
    // 3:1 is enough for a focus ring.
    expect(readableOn('#ffffff', '#ff0000', AA_UI)).toBe('#ff0000');
  });

  it('draws with the brand when its pairs pass AA', () => {
    const p = palette({ primaryColor: '#1a56db', backgroundColor: '#ffffff', textColor: '#202124' });
    expect(p).toEqual({ background: '#ffffff', text: '#202124', primary: '#1a56db', onPrimary: '#ffffff', ring: '#1a56db', error: '#b3261e' });
  });

  it('falls back to readable text when the brand pairs fail', () => {
    // Light grey text on white, and a yellow button whose white label would be unreadable.
    const p = palette({ primaryColor: '#ffd500', backgroundColor: '#ffffff', textColor: '#cccccc' });
    expect(p.text).toBe('#000000');
    expect(p.onPrimary).toBe('#000000');
    expect(p.ring).toBe('#000000'); // yellow on white is under 3:1: the ring uses the text color
    // A dark brand: the light error red.
    expect(palette({ primaryColor: '#bb86fc', backgroundColor: '#121212', textColor: '#121212' })).toMatchObject({ text: '#ffffff', error: '#ffb4ab' });
  });

  it('uses defaults without a brand, and for colors that are not hex', () => {
    expect(palette(null)).toMatchObject({ background: '#ffffff', text: '#1f2328', primary: '#1a56db' });
    expect(palette({ primaryColor: 'javascript:x', backgroundColor: 'red', textColor: '#000' })).toMatchObject({ background: '#ffffff', primary: '#1a56db', text: '#000' });
  });

  it('always ends with AA text and button labels, whatever the brand picked', () => {
    let seed = 7;
    const random = () => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return `#${(seed % 0x1000000).toString(16).padStart(6, '0')}`;
    };
    for (let i = 0; i < 2000; i++) {
      const p = palette({ primaryColor: random(), backgroundColor: random(), textColor: random() });
      expect(ratio(p.text, p.background)).toBeGreaterThanOrEqual(AA_TEXT);
      expect(ratio(p.onPrimary, p.primary)).toBeGreaterThanOrEqual(AA_TEXT);
      expect(ratio(p.ring, p.background)).toBeGreaterThanOrEqual(AA_UI);
      expect(ratio(p.error, p.background)).toBeGreaterThanOrEqual(AA_TEXT);
    }
  });
});
