import { UTM_KEYS } from './types.js';

/**
 * The `utm_*` values the API stores, non-empty and at most 500 characters each, read by `get`
 * (a page URL's search parameters in the browser, the hosted page's query on the server).
 */
export function utmValues(get: (key: string) => unknown): Record<string, string> {
  const metadata: Record<string, string> = {};
  for (const key of UTM_KEYS) {
    const raw = get(key);
    const value = typeof raw === 'string' ? raw.trim() : '';
    // The API refuses a value over 500 code points with INVALID_FIELD; a visitor cannot fix a URL, so cut it.
    if (value) metadata[key] = Array.from(value).slice(0, 500).join('');
  }
  return metadata;
}

/** The `utm_*` parameters of a page URL (the first of a repeated one). */
export function utmFromUrl(pageUrl: string | null | undefined): Record<string, string> {
  let params: URLSearchParams;
  try {
    params = new URL(pageUrl ?? '').searchParams;
  } catch {
    return {};
  }
  return utmValues((key) => params.get(key));
}

/** `url` as an absolute http(s) URL, or null: never `javascript:`, `data:` or anything relative. */
export function httpUrl(url: string | null | undefined): string | null {
  if (!url) return null;
  try {
    const parsed = new URL(url);
    return parsed.protocol === 'https:' || parsed.protocol === 'http:' ? parsed.href : null;
  } catch {
    return null;
  }
}
