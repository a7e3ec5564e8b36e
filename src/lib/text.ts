/** Text checks shared by every place that stores what people type. */

/**
 * Whether a field holds one line (names, titles, ids) or several (descriptions, notes,
 * consent texts): only multi-line text may carry tabs and line breaks.
 */
export type TextKind = 'line' | 'multiline';

// C0 control characters and DEL. PostgreSQL refuses NUL outright; the rest only ever come
// from bugs or attacks, and a tab or line break in a one-line field breaks what shows it.
// eslint-disable-next-line no-control-regex
const LINE_CONTROL = /[\u0000-\u001F\u007F]/;
// eslint-disable-next-line no-control-regex
const MULTILINE_CONTROL = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\u007F]/;
// A UTF-16 surrogate without its partner cannot be stored as UTF-8: databases replace it, so
// what we would answer would not be what we stored.
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;
// Printable ASCII needs neither check nor normalization: the common case stays one test.
const PLAIN_ASCII = /^[\u0020-\u007E]*$/;

/** Why a text value is refused (phrased to follow its field's name), or undefined. */
export function textProblem(value: string, kind: TextKind): string | undefined {
  if (PLAIN_ASCII.test(value)) return undefined;
  if (LONE_SURROGATE.test(value)) return 'contains an invalid character (a lone UTF-16 surrogate)';
  if ((kind === 'line' ? LINE_CONTROL : MULTILINE_CONTROL).test(value)) {
    return kind === 'line' ? 'contains a control character (tabs and line breaks are not allowed here)' : 'contains a control character';
  }
  return undefined;
}

/** The value in Unicode Normalization Form C, so "é" typed two ways is stored, compared and counted one way. */
export function toNfc(value: string): string {
  return PLAIN_ASCII.test(value) ? value : value.normalize('NFC');
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
 * (phrased to follow a field's label: "… must be text."). Values people type into forms may
 * span lines.
 */
export function cleanText(value: unknown, max: number): { ok: true; value: string } | { ok: false; message: string } {
  if (typeof value !== 'string') return { ok: false, message: 'must be text' };
  const problem = textProblem(value, 'multiline');
  if (problem) return { ok: false, message: problem };
  const trimmed = toNfc(value.trim());
  if (charLength(trimmed) > max) return { ok: false, message: `can be at most ${max} characters long` };
  return { ok: true, value: trimmed };
}
