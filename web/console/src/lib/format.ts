/** Dates and numbers as people read them, in the browser's locale. */
const dateTime = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'short' });
const date = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium' });

export function formatDateTime(iso: string | null | undefined): string {
  if (!iso) return '—';
  const d = new Date(iso);
  return Number.isNaN(d.getTime()) ? iso : dateTime.format(d);
}

export function formatDate(iso: string | null | undefined): string {
  if (!iso) return '—';
  const d = new Date(iso);
  return Number.isNaN(d.getTime()) ? iso : date.format(d);
}

/** Conversion: submissions per view, as a percentage with one decimal; a dash without views. */
export function conversion(views: number, submissions: number): string {
  if (!views) return '—';
  return `${(Math.round((submissions / views) * 1000) / 10).toLocaleString(undefined, { maximumFractionDigits: 1 })}%`;
}

/** A stored value as text: booleans as Yes/No, lists joined, objects as JSON, everything else as written. */
export function displayValue(value: unknown): string {
  if (value === true) return 'Yes';
  if (value === false) return 'No';
  if (value === null || value === undefined || value === '') return '—';
  if (Array.isArray(value)) return value.map(displayValue).join(', ');
  return typeof value === 'object' ? JSON.stringify(value) : String(value);
}

/**
 * A console path to go back to after sign-in or sign-up (the router's, under /app: `/authorize?client_id=…`);
 * `/app/…` as the browser's address has it is taken too. Never another site: `//host`, `/\host`, a full URL,
 * control characters (which browsers drop, so `/\t/host` would become `//host`) and anything that does not stay
 * on this origin are refused; then `/`, where Home picks the person's area.
 */
export function safeNext(next: string | null): string {
  if (!next) return '/';
  const path = next === '/app' ? '/' : next.startsWith('/app/') ? next.slice(4) : next;
  if (!path.startsWith('/') || path.startsWith('//') || path.startsWith('/\\') || /\p{Cc}/u.test(path)) return '/';
  const base = 'https://console.invalid';
  try {
    const url = new URL(path, base);
    if (url.origin !== base) return '/';
  } catch {
    return '/';
  }
  return path;
}

/** "1 view", "3 views". */
export function plural(count: number, word: string): string {
  return `${count.toLocaleString()} ${word}${count === 1 ? '' : 's'}`;
}
