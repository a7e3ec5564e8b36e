/** What stands where an erased person's name, email or phone was (an opportunity's title and custom values). */
export const ERASED = 'Erased contact';

/**
 * Takes the person's identifiers out of a text kept after an erasure: each whole occurrence (not inside a longer
 * word), any case, becomes ERASED. Longer identifiers first, so an email is replaced before a name inside it.
 */
export function redactor(identifiers: ReadonlyArray<string | null | undefined>): (text: string) => string {
  const terms = [...new Set(identifiers.map((term) => term?.trim() ?? '').filter((term) => term.length > 0))].sort((a, b) => b.length - a.length);
  if (terms.length === 0) return (text) => text;
  const escaped = terms.map((term) => term.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'));
  const pattern = new RegExp(`(?<![\\p{L}\\p{N}])(?:${escaped.join('|')})(?![\\p{L}\\p{N}])`, 'giu');
  return (text) => text.replace(pattern, ERASED);
}

/** The same over a custom values object: strings, and strings in arrays; other values as they are. */
export function redactValues(values: Record<string, unknown>, redact: (text: string) => string): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(values)) {
    out[key] = typeof value === 'string' ? redact(value) : Array.isArray(value) ? value.map((item) => (typeof item === 'string' ? redact(item) : item)) : value;
  }
  return out;
}
