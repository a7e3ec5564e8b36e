/**
 * WCAG 2.2 contrast (relative luminance, success criterion 1.4.3): the brand's colors are used
 * as given when they pass AA, and a pair that fails gets black or white text instead.
 */

/** AA for normal-size text. */
export const AA_TEXT = 4.5;
/** AA for focus rings and input borders (1.4.11 non-text contrast). */
export const AA_UI = 3;

export type Rgb = [number, number, number];

/** `#rgb` or `#rrggbb` (case-insensitive) → channels 0–255; anything else → null. */
export function parseHex(color: string | null | undefined): Rgb | null {
  const m = /^#([0-9a-f]{3}|[0-9a-f]{6})$/i.exec((color ?? '').trim());
  if (!m) return null;
  let hex = m[1]!;
  if (hex.length === 3) hex = hex.replace(/./g, '$&$&');
  const n = parseInt(hex, 16);
  return [(n >> 16) & 255, (n >> 8) & 255, n & 255];
}

/** WCAG relative luminance of an sRGB color, 0 (black) to 1 (white). */
export function luminance([r, g, b]: Rgb): number {
  const lin = (c: number) => {
    const s = c / 255;
    return s <= 0.04045 ? s / 12.92 : ((s + 0.055) / 1.055) ** 2.4;
  };
  return 0.2126 * lin(r) + 0.7152 * lin(g) + 0.0722 * lin(b);
}

/** Contrast ratio between two colors, 1 to 21. */
export function contrast(a: Rgb, b: Rgb): number {
  const la = luminance(a);
  const lb = luminance(b);
  return (Math.max(la, lb) + 0.05) / (Math.min(la, lb) + 0.05);
}

const BLACK: Rgb = [0, 0, 0];
const WHITE: Rgb = [255, 255, 255];

/**
 * `preferred` when it reaches `min` against `background`, else black or white, whichever
 * contrasts more (one of them always reaches 4.5:1 against any color).
 */
export function readableOn(background: string, preferred: string | null, min = AA_TEXT): string {
  const bg = parseHex(background) ?? WHITE;
  const fg = parseHex(preferred);
  if (fg && contrast(fg, bg) >= min) return preferred!;
  return contrast(BLACK, bg) >= contrast(WHITE, bg) ? '#000000' : '#ffffff';
}

export interface Palette {
  background: string;
  text: string;
  primary: string;
  /** Text on the primary color (the submit button). */
  onPrimary: string;
  /** Focus ring and input borders: the primary color when it stands out from the background. */
  ring: string;
  error: string;
}

export const DEFAULT_COLORS = { background: '#ffffff', text: '#1f2328', primary: '#1a56db' } as const;

/**
 * The colors the form is drawn with. The operator's text color is kept when it passes AA on the
 * background; the button's text is the background color when that passes on the primary color
 * (the usual inverted look), otherwise black or white.
 */
export function palette(brand: { primaryColor?: string; backgroundColor?: string; textColor?: string } | null): Palette {
  const background = parseHex(brand?.backgroundColor) ? brand!.backgroundColor! : DEFAULT_COLORS.background;
  const primary = parseHex(brand?.primaryColor) ? brand!.primaryColor! : DEFAULT_COLORS.primary;
  const bg = parseHex(background)!;
  const passes = (color: string, min = AA_TEXT) => contrast(parseHex(color)!, bg) >= min;
  const text = readableOn(background, brand ? (brand.textColor ?? null) : DEFAULT_COLORS.text);
  return {
    background,
    text,
    primary,
    onPrimary: readableOn(primary, background),
    ring: passes(primary, AA_UI) ? primary : text,
    // A dark red on light backgrounds, a light red on dark ones, the text color if neither passes.
    error: ['#b3261e', '#ffb4ab'].find((c) => passes(c)) ?? text,
  };
}
