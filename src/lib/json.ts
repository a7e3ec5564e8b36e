/** A JSON object: an object that is neither null nor an array (what a parsed `{…}` is). */
export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * How deeply any JSON document we read may nest objects and arrays, the document's own
 * brackets counting as the first level: every request body, tool-call arguments sent as a
 * JSON string, and a tool endpoint's answer. The deepest body the API defines nests 4 levels
 * (an MCP tools/call with object arguments: message → params → arguments → value); 64 leaves
 * room for any real tool arguments while staying far below where recursive code fails: V8's
 * own JSON.stringify overflows the stack between 4,000 and 5,000 levels (measured on Node 20),
 * and Ajv, pino and the SDK's zod checks recurse too.
 */
export const MAX_JSON_DEPTH = 64;

export interface TooDeep {
  /** The top-level key whose value nests too deeply (a root array, or a document too deep at its root, has none). */
  key?: string;
}

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN_ARRAY = 0x5b;
const OPEN_OBJECT = 0x7b;
const CLOSE_ARRAY = 0x5d;
const CLOSE_OBJECT = 0x7d;

/**
 * Where JSON text nests objects and arrays more than `max` levels deep, or undefined. It reads
 * the text, not a parsed value, so a hostile body is refused before it is parsed and without
 * recursion: the scan stops at the first bracket past the limit, however deep the text goes.
 * Brackets inside strings do not count. Text that is not JSON gets whatever answer its brackets
 * give; the parser then refuses it anyway. (Measured: about 1 µs for a 500-byte submission,
 * 0.2 ms for 94 KB, under JSON.parse's own time.)
 */
export function jsonTooDeep(text: string, max: number = MAX_JSON_DEPTH): TooDeep | undefined {
  let depth = 0;
  let rootIsArray = false;
  // The last string that ended at depth 1: in an object, the key whose value is being read.
  let keyStart = -1;
  let keyEnd = -1;
  const length = text.length;
  for (let i = 0; i < length; i++) {
    const code = text.charCodeAt(i);
    if (code === QUOTE) {
      const start = i;
      i = endOfString(text, i);
      if (depth === 1) {
        keyStart = start;
        keyEnd = i + 1;
      }
    } else if (code === OPEN_ARRAY || code === OPEN_OBJECT) {
      depth++;
      if (depth === 1) rootIsArray = code === OPEN_ARRAY;
      if (depth > max) return rootIsArray || depth === 1 ? {} : keyOf(text.slice(keyStart, keyEnd));
    } else if (code === CLOSE_ARRAY || code === CLOSE_OBJECT) {
      depth--;
    }
  }
  return undefined;
}

/** The index of the quote that ends the string opening at `open` (the text's length if none does). */
export function endOfString(text: string, open: number): number {
  let at = open;
  for (;;) {
    at = text.indexOf('"', at + 1);
    if (at < 0) return text.length;
    // A quote preceded by an odd number of backslashes is escaped.
    let backslashes = 0;
    while (text.charCodeAt(at - 1 - backslashes) === BACKSLASH) backslashes++;
    if (backslashes % 2 === 0) return at;
  }
}

/** The top-level key a too-deep value sits under, when it reads as a JSON string. */
function keyOf(quoted: string): TooDeep {
  try {
    const key: unknown = JSON.parse(quoted);
    return typeof key === 'string' ? { key } : {};
  } catch {
    return {};
  }
}
