import type { ConversationUtm as Utm } from '../../api/types';

/** Where a conversation started, in the list and the transcript: the console, the API or a site's chat widget. */

const LABELS: Record<string, string> = { console: 'Console', api: 'API', widget: 'Widget' };

export const sourceLabel = (source: string) => LABELS[source] ?? source;

/** "in the console", "through the API", "in the chat widget", after the start time on the transcript. */
export function startedIn(source: string): string {
  if (source === 'console') return 'in the console';
  if (source === 'api') return 'through the API';
  if (source === 'widget') return 'in the chat widget';
  return `(${source})`;
}

const UTM_KEYS = ['source', 'medium', 'campaign', 'term', 'content'] as const;

/** "source google · medium cpc · campaign spring", in the parameters' own order; '' without any. */
export function utmText(utm: Utm | null): string {
  if (!utm) return '';
  return UTM_KEYS.filter((key) => utm[key])
    .map((key) => `${key} ${utm[key]}`)
    .join(' · ');
}

/**
 * The page a visitor chatted on, short enough for a table cell: host and path, without the scheme,
 * query or fragment (the UTM parameters are shown apart), cut at 60 characters.
 */
export function shortPage(url: string): string {
  let text = url;
  try {
    const parsed = new URL(url);
    text = `${parsed.host}${parsed.pathname === '/' ? '' : parsed.pathname}`;
  } catch {
    // not a URL: shown as sent
  }
  return text.length > 60 ? `${text.slice(0, 59)}…` : text;
}

/** A page address the console may link to: http(s) only (it came from a visitor's browser). */
export function linkablePage(url: string): boolean {
  try {
    return ['http:', 'https:'].includes(new URL(url).protocol);
  } catch {
    return false;
  }
}
