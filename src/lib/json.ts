/** A JSON object: an object that is neither null nor an array (what a parsed `{…}` is). */
export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
