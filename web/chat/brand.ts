import { palette, parseHex, readableOn } from '../form/contrast.js';
import { FONT_FAMILY } from '../form/fields.js';
import type { Branding } from './types.js';

/** `a` moved a fraction `t` of the way to `b` (#rrggbb): the widget's hairlines, between background and text. */
export function mix(a: string, b: string, t: number): string {
  const x = parseHex(a) ?? [255, 255, 255];
  const y = parseHex(b) ?? [0, 0, 0];
  return `#${x.map((c, i) => Math.round(c + (y[i]! - c) * t).toString(16).padStart(2, '0')).join('')}`;
}

/**
 * The brand's colors (through web/form/contrast.ts: text and button colors that fail WCAG AA against
 * their background become black or white) and font, as the `--sc-*` custom properties of the widget's
 * root. Every one is set, `--sc-font` to `initial` without a brand font, so none inherits from the host.
 */
export function applyChatBranding(element: HTMLElement, branding: Branding | null): void {
  const colors = palette(branding);
  const set = (name: string, value: string) => element.style.setProperty(`--sc-${name}`, value);
  set('bg', colors.background);
  set('fg', colors.text);
  set('pri', colors.primary);
  set('on-pri', colors.onPrimary);
  set('ring', colors.ring);
  set('err', colors.error);
  // Decorative only (bubble and panel edges): no contrast is asked of it.
  set('line', mix(colors.background, colors.text, 0.25));
  // An operator's bubble: the background tinted with the brand's color, its text AA on that tint (or black/white).
  const op = mix(colors.background, colors.primary, 0.15);
  set('op', op);
  set('on-op', readableOn(op, colors.text));
  const font = branding?.fontFamily;
  set('font', font && FONT_FAMILY.test(font) ? font : 'initial');
}
