/** Text checks shared by every place that stores what people type. */

/**
 * Text is refused when it holds lone UTF-16 surrogates (they cannot be stored as UTF-8)
 * or control characters other than tab and line breaks (PostgreSQL refuses NUL outright;
 * the rest only ever come from bugs or attacks).
 */
// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\u007F]/;
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

export function textProblem(value: string): string | undefined {
  if (LONE_SURROGATE.test(value)) return 'contains an invalid character (a lone UTF-16 surrogate)';
  if (CONTROL.test(value)) return 'contains a control character';
  return undefined;
}

/** Length in Unicode code points, so an emoji counts as one character. */
export function charLength(value: string): number {
  let count = 0;
  for (let i = 0; i < value.length; i++) {
    const code = value.charCodeAt(i);
    if (code >= 0xd800 && code <= 0xdbff && i + 1 < value.length) i++;
    count++;
  }
  return count;
}

/** An http(s) URL or undefined; anything else (javascript:, data:, relative) is refused. */
export function httpUrl(raw: string): URL | undefined {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return undefined;
  }
  return url.protocol === 'http:' || url.protocol === 'https:' ? url : undefined;
}

/**
 * Trimmed, NFC-normalized text of at most `max` code points, or the reason it is refused
 * (phrased to follow a field's label: "… must be text.").
 */
export function cleanText(value: unknown, max: number): { ok: true; value: string } | { ok: false; message: string } {
  if (typeof value !== 'string') return { ok: false, message: 'must be text' };
  const problem = textProblem(value);
  if (problem) return { ok: false, message: problem };
  const trimmed = value.trim().normalize('NFC');
  if (charLength(trimmed) > max) return { ok: false, message: `can be at most ${max} characters long` };
  return { ok: true, value: trimmed };
}
