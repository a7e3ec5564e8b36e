/**
 * Strict UTF-8. Node's usual decoding (`buffer.toString('utf8')`, URLSearchParams) replaces
 * bytes that are not UTF-8 with U+FFFD, so we would store something other than what was sent
 * and the sender would never know. Text we read from a client is decoded with these instead.
 */

// fatal: invalid bytes throw instead of becoming U+FFFD. ignoreBOM: a leading byte-order mark
// is kept as a character (and then refused by JSON.parse), as Buffer#toString always did.
const STRICT = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

/** The bytes as text, or `{invalidAt}`: the offset of the first byte that does not start a valid UTF-8 sequence. */
export function decodeUtf8(bytes: Uint8Array): string | { invalidAt: number } {
  try {
    return STRICT.decode(bytes);
  } catch {
    return { invalidAt: invalidUtf8Offset(bytes) };
  }
}

/**
 * Where the first malformed sequence starts (RFC 3629 §4: no overlong forms, no surrogates, nothing
 * past U+10FFFF), or -1. Only run once decoding has failed, to tell the client where to look.
 */
export function invalidUtf8Offset(bytes: Uint8Array): number {
  let i = 0;
  while (i < bytes.length) {
    const lead = bytes[i]!;
    if (lead < 0x80) {
      i++;
      continue;
    }
    let trailing: number;
    let low = 0x80;
    let high = 0xbf;
    if (lead >= 0xc2 && lead <= 0xdf) trailing = 1;
    else if (lead >= 0xe0 && lead <= 0xef) {
      trailing = 2;
      if (lead === 0xe0) low = 0xa0; // overlong
      if (lead === 0xed) high = 0x9f; // UTF-16 surrogates
    } else if (lead >= 0xf0 && lead <= 0xf4) {
      trailing = 3;
      if (lead === 0xf0) low = 0x90; // overlong
      if (lead === 0xf4) high = 0x8f; // past U+10FFFF
    } else return i;
    for (let k = 1; k <= trailing; k++) {
      const next = bytes[i + k];
      if (next === undefined || next < (k === 1 ? low : 0x80) || next > (k === 1 ? high : 0xbf)) return i;
    }
    i += trailing + 1;
  }
  return -1;
}
