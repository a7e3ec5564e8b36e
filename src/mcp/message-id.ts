import { endOfString } from '../lib/json.js';

const QUOTE = 0x22;
const OPEN_ARRAY = 0x5b;
const OPEN_OBJECT = 0x7b;
const CLOSE_ARRAY = 0x5d;
const CLOSE_OBJECT = 0x7d;
const WHITESPACE = /[ \t\r\n]/;

/** A JSON-RPC id (a string or a safe integer) written at `from`, after the member's colon; undefined for anything else. */
function idValue(text: string, from: number): string | number | undefined {
  let at = from;
  while (WHITESPACE.test(text.charAt(at))) at++;
  if (text.charAt(at) !== ':') return undefined;
  at++;
  while (WHITESPACE.test(text.charAt(at))) at++;
  if (text.charCodeAt(at) === QUOTE) {
    try {
      const id: unknown = JSON.parse(text.slice(at, endOfString(text, at) + 1));
      // U+FFFD: the id held bytes that were not UTF-8, so this is not the id the client sent.
      return typeof id === 'string' && !id.includes('\uFFFD') ? id : undefined;
    } catch {
      return undefined;
    }
  }
  const integer = /^-?\d{1,16}(?![\d.eE])/.exec(text.slice(at, at + 18))?.[0];
  const id = integer === undefined ? NaN : Number(integer);
  return Number.isSafeInteger(id) ? id : undefined;
}

/**
 * The `id` of a JSON-RPC request whose body was refused before it could be parsed (nested too
 * deeply, not UTF-8), read from the text without parsing it — the scan counts brackets, so no
 * depth hurts it — so that the JSON-RPC error answers that request. Only a top-level member of
 * an object body counts (the last one, as JSON.parse would keep); a batch, or an id that is not
 * a string or an integer, gives undefined and the error carries `id: null`.
 */
export function readableMessageId(text: string): string | number | undefined {
  let depth = 0;
  let id: string | number | undefined;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code === QUOTE) {
      const end = endOfString(text, i);
      if (depth === 1 && end - i === 3 && text.startsWith('"id"', i)) {
        const value = idValue(text, end + 1);
        // "id" may also be a value (`"method":"id"`): only a member's value counts.
        if (value !== undefined || /^\s*:/.test(text.slice(end + 1, end + 16))) id = value;
      }
      i = end;
    } else if (code === OPEN_ARRAY || code === OPEN_OBJECT) {
      depth++;
      if (depth === 1 && code === OPEN_ARRAY) return undefined;
    } else if (code === CLOSE_ARRAY || code === CLOSE_OBJECT) {
      depth--;
    }
  }
  return id;
}
