import type { FastifyInstance } from 'fastify';
import { decodeUtf8 } from '../lib/utf8.js';
import { AppError } from './errors.js';
import { bodyText } from './json-body.js';

const PERCENT = 0x25;

function hexValue(code: number | undefined): number {
  if (code === undefined) return -1;
  if (code >= 0x30 && code <= 0x39) return code - 0x30;
  if (code >= 0x41 && code <= 0x46) return code - 0x37;
  if (code >= 0x61 && code <= 0x66) return code - 0x57;
  return -1;
}

/** Percent-decoding as WHATWG does it (a `%` not followed by two hex digits stays as it is), into bytes. */
function percentDecode(text: string): Buffer {
  const input = Buffer.from(text, 'utf8');
  const out = Buffer.allocUnsafe(input.length);
  let length = 0;
  for (let i = 0; i < input.length; i++) {
    const byte = input[i]!;
    const high = byte === PERCENT ? hexValue(input[i + 1]) : -1;
    const low = high >= 0 ? hexValue(input[i + 2]) : -1;
    if (low >= 0) {
      out[length++] = high * 16 + low;
      i += 2;
    } else {
      out[length++] = byte;
    }
  }
  return out.subarray(0, length);
}

function decodePart(part: string): string {
  const plus = part.includes('+') ? part.replace(/\+/g, ' ') : part;
  if (!plus.includes('%')) return plus;
  const text = decodeUtf8(percentDecode(plus));
  if (typeof text === 'string') return text;
  throw new AppError('VALIDATION_ERROR', 'The form body has a percent-encoded value that is not valid UTF-8. Encode text as UTF-8 before percent-encoding it.');
}

/**
 * An application/x-www-form-urlencoded body as its name/value pairs, in order: the WHATWG
 * parser's result (what URLSearchParams gives), except that bytes which are not UTF-8 — raw, or
 * percent-encoded like `%C3%28` — are refused instead of becoming U+FFFD.
 */
export function readFormBody(bytes: Buffer): [string, string][] {
  const pairs: [string, string][] = [];
  for (const sequence of bodyText(bytes, 'The form body').split('&')) {
    if (sequence === '') continue;
    const equals = sequence.indexOf('=');
    const name = equals < 0 ? sequence : sequence.slice(0, equals);
    const value = equals < 0 ? '' : sequence.slice(equals + 1);
    pairs.push([decodePart(name), decodePart(value)]);
  }
  return pairs;
}

/** The one way a scope reads form posts: bytes, decoded strictly by `readFormBody`, then shaped by `build`. */
export function addFormBodyParser(scope: FastifyInstance, bodyLimit: number, build: (pairs: [string, string][]) => unknown): void {
  scope.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'buffer', bodyLimit }, (_request, body, done) => {
    try {
      done(null, build(readFormBody(body as Buffer)));
    } catch (error) {
      done(error as Error);
    }
  });
}
