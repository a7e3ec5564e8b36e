import { isIP } from 'node:net';
import { AppError } from '../http/errors.js';

/**
 * The origins a chat widget works on (issue 22): exact `scheme://host[:port]`, http or https, optionally with
 * one leading `*.` label standing for exactly one label (`https://*.example.com` allows `https://shop.example.com`,
 * not `https://example.com` nor `https://a.b.example.com`). Stored as the browser sends them in `Origin`:
 * lowercase, punycode, without the scheme's default port. The agents service normalises what an operator
 * types; the public chat routes match a request's `Origin` against the stored list (chat/session-auth.ts).
 */

export const MAX_ALLOWED_ORIGINS = 20;

/** A label the URL parser accepts in place of `*`, to read the rest of a wildcard origin. */
const WILDCARD_STAND_IN = 'wildcard-label-0';

function invalid(field: string, value: string, why: string): AppError {
  return new AppError('VALIDATION_ERROR', `"${value.slice(0, 100)}" is not an origin the chat can allow: ${why}`, { field });
}

/** One origin as typed → its stored form, or a 400 saying what is wrong with it. */
export function normalizeOrigin(input: string, field: string): string {
  let text = input.trim().toLowerCase();
  // A lone trailing slash is how browsers' address bars show an origin; anything after it is a path.
  if (/^[a-z]+:\/\/[^/]+\/$/.test(text)) text = text.slice(0, -1);
  const match = /^(https?):\/\/(\*\.)?([^/?#]*)$/.exec(text);
  if (!match) {
    if (!/^https?:\/\//.test(text)) return fail(input, field, 'it must start with https:// (or http:// for a local site), like https://shop.example.com.');
    return fail(input, field, 'an origin is the scheme, host and port only, with no path, query or fragment (https://shop.example.com, not https://shop.example.com/page).');
  }
  const [, scheme, wildcard, rest] = match as unknown as [string, string, string | undefined, string];
  if (rest.includes('@')) return fail(input, field, 'it may not contain a user name or password.');
  if (rest.includes('*')) return fail(input, field, 'a wildcard is allowed only as one leading label, like https://*.example.com.');
  let url: URL;
  try {
    url = new URL(`${scheme}://${wildcard ? `${WILDCARD_STAND_IN}.` : ''}${rest}`);
  } catch {
    return fail(input, field, 'its host or port is not valid.');
  }
  if (url.hostname === '') return fail(input, field, 'it has no host.');
  if (wildcard) {
    const base = url.hostname.slice(WILDCARD_STAND_IN.length + 1);
    if (isIP(base.replace(/^\[|\]$/g, '')) !== 0 || !base.includes('.')) {
      return fail(input, field, 'a wildcard needs a domain of at least two labels after it, like https://*.example.com.');
    }
    return url.origin.replace(`${WILDCARD_STAND_IN}.`, '*.');
  }
  return url.origin;
}

function fail(input: string, field: string, why: string): never {
  throw invalid(field, input, why);
}

/** The list as typed → the stored list (duplicates once, in the order given), or a 400 naming the first bad entry. */
export function normalizeOrigins(inputs: readonly string[], field = 'chat.allowedOrigins'): string[] {
  if (inputs.length > MAX_ALLOWED_ORIGINS) {
    throw new AppError('VALIDATION_ERROR', `A chat may allow at most ${MAX_ALLOWED_ORIGINS} origins (${inputs.length} given). Use one wildcard like https://*.example.com for a domain's sites.`, { field });
  }
  const out: string[] = [];
  inputs.forEach((input, i) => {
    const origin = normalizeOrigin(input, `${field}[${i}]`);
    if (!out.includes(origin)) out.push(origin);
  });
  return out;
}

/** Whether a request's `Origin` header is one of the stored origins (a wildcard standing for exactly one label). */
export function originAllowed(origin: string | undefined, allowed: readonly string[]): boolean {
  if (origin === undefined || origin === '' || origin === 'null') return false;
  const candidate = origin.toLowerCase();
  for (const entry of allowed) {
    if (entry === candidate) return true;
    const star = entry.indexOf('://*.');
    if (star === -1) continue;
    // `https://*.example.com:8443` → scheme `https://`, suffix `.example.com:8443`; the origin's label before it has no dot.
    const scheme = entry.slice(0, star + 3);
    const suffix = entry.slice(star + 4);
    if (!candidate.startsWith(scheme) || !candidate.endsWith(suffix)) continue;
    const label = candidate.slice(scheme.length, candidate.length - suffix.length);
    if (/^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/.test(label)) return true;
  }
  return false;
}

/** The stored JSON text → the list (an unreadable value allows nothing). */
export function parseOrigins(text: string): string[] {
  try {
    const value: unknown = JSON.parse(text);
    return Array.isArray(value) ? value.filter((item): item is string => typeof item === 'string') : [];
  } catch {
    return [];
  }
}
