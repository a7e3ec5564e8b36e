/**
 * The one escaping function for HTML the server writes: text content and quoted attribute
 * values alike (& < > " ' all escaped, so it is safe in either place). Operator strings
 * reach server-rendered HTML only through it.
 */
const ENTITIES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

export function escapeHtml(value: string): string {
  return value.replace(/[&<>"']/g, (c) => ENTITIES[c]!);
}

/**
 * JSON for a `<script type="application/json">` element: `<` becomes \u003c, so no value can
 * close the element (`</script>`) or open a comment (`<!--`); U+2028/U+2029 are escaped too.
 */
export function jsonForScript(value: unknown): string {
  return JSON.stringify(value).replace(/</g, '\\u003c').replace(/\u2028/g, '\\u2028').replace(/\u2029/g, '\\u2029');
}
