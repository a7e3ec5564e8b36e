/** Helpers of the custom field form (pure: unit tested). */

/** A key the API accepts (`^[a-z][a-z0-9_]{0,63}$`) made from a label: "Insurance provider" → "insurance_provider". */
export function suggestKey(label: string): string {
  const base = label
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '_')
    .replace(/^[^a-z]+/, '')
    .replace(/_+$/, '');
  return base.slice(0, 64).replace(/_+$/, '');
}

/** One choice per line, trimmed, blank lines left out (duplicates kept: the API words that refusal). */
export function optionsFromText(text: string): string[] {
  return text
    .split(/\r?\n/)
    .map((line) => line.trim())
    .filter(Boolean);
}
