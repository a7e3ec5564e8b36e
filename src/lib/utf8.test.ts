import { describe, expect, it } from 'vitest';
import { decodeUtf8, invalidUtf8Offset } from './utf8.js';

const bytes = (...values: number[]) => Uint8Array.from(values);

describe('strict UTF-8', () => {
  it('decodes valid text exactly, U+FFFD and a byte-order mark included', () => {
    const text = 'Café 👋🏽 \uFFFD مرحبا';
    expect(decodeUtf8(Buffer.from(text))).toBe(text);
    expect(decodeUtf8(bytes(0xef, 0xbb, 0xbf, 0x41))).toBe('\uFEFFA');
  });

  it.each([
    ['a lead byte followed by ASCII', [0x41, 0xc3, 0x28], 1],
    ['a lone continuation byte', [0x41, 0x42, 0x80], 2],
    ['an overlong "/"', [0xc0, 0xaf], 0],
    ['an overlong three-byte form', [0x41, 0xe0, 0x80, 0xaf], 1],
    ['an encoded UTF-16 surrogate', [0xed, 0xa0, 0x80], 0],
    ['a code point past U+10FFFF', [0xf4, 0x90, 0x80, 0x80], 0],
    ['a byte that never occurs (0xFF)', [0x41, 0xff], 1],
    ['a truncated four-byte character at the end', [0x41, 0xf0, 0x9f, 0x91], 1],
  ])('refuses %s and says where it starts', (_what, input, at) => {
    expect(decodeUtf8(bytes(...input))).toEqual({ invalidAt: at });
  });

  it('agrees with the WHATWG decoder on every two-byte sequence after a valid prefix', () => {
    const fatal = new TextDecoder('utf-8', { fatal: true });
    for (let first = 0x80; first <= 0xff; first++) {
      for (let second = 0; second <= 0xff; second += 5) {
        const input = bytes(0x61, first, second, 0x62);
        let valid = true;
        try {
          fatal.decode(input);
        } catch {
          valid = false;
        }
        expect(invalidUtf8Offset(input) === -1, `${first.toString(16)} ${second.toString(16)}`).toBe(valid);
      }
    }
  });
});
