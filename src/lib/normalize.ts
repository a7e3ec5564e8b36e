/**
 * Contact identity normalization (DESIGN "Contact identity"): emails trimmed and
 * lowercased, phones to E.164 using the org's default country for national numbers.
 * Both return a typed result instead of throwing, so callers choose the error
 * (INVALID_FIELD on a form, VALIDATION_ERROR on the API). The email rule is also the one
 * of the people who sign in (operators, developers, an org's first owner): hence lib/.
 */
import { parsePhoneNumberFromString, type CountryCode } from 'libphonenumber-js/max';

export type Normalized = { ok: true; value: string } | { ok: false; message: string };

/** RFC 5321 caps a forward path at 256 octets including the angle brackets. */
const MAX_EMAIL = 254;
// The WHATWG "valid e-mail address" grammar, plus a dot in the domain: lead capture wants a deliverable address.
const EMAIL =
  /^[a-z0-9.!#$%&'*+/=?^_`{|}~-]+@[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)+$/;

export function normalizeEmail(raw: string): Normalized {
  const value = raw.trim().toLowerCase();
  if (value === '') return { ok: false, message: 'Enter an email address.' };
  if (value.length > MAX_EMAIL) return { ok: false, message: `An email address has at most ${MAX_EMAIL} characters.` };
  if (!EMAIL.test(value)) return { ok: false, message: 'Enter a valid email address, like name@example.com.' };
  return { ok: true, value };
}

/** Anything longer is not a phone number, and parsing it would only cost time. */
const MAX_PHONE_INPUT = 40;

/**
 * E.164 (`+14155552671`) or a failure. National numbers (`(415) 555-2671`) are read in
 * `defaultCountry` (ISO 3166 alpha-2). Uses the full metadata, so numbers that cannot
 * exist in their country are refused, not just ones of the wrong length. An extension is dropped.
 */
export function normalizePhone(raw: string, defaultCountry: string): Normalized {
  const input = raw.trim();
  if (input === '') return { ok: false, message: 'Enter a phone number.' };
  if (input.length > MAX_PHONE_INPUT) return { ok: false, message: 'That phone number is too long.' };
  if (!/^[+0-9 ().\-/]+(?:\s*(?:x|ext\.?|#)\s*\d{1,10})?$/i.test(input)) {
    return { ok: false, message: 'A phone number may contain only digits, spaces, +, -, ., / and parentheses.' };
  }
  const phone = parsePhoneNumberFromString(input, { defaultCountry: defaultCountry.toUpperCase() as CountryCode });
  if (!phone || !phone.isValid()) {
    return {
      ok: false,
      message: input.startsWith('+')
        ? 'Enter a valid phone number, like +1 415 555 2671.'
        : `Enter a valid phone number for ${defaultCountry.toUpperCase()}, or the full number with its country code (+…).`,
    };
  }
  return { ok: true, value: phone.number };
}
