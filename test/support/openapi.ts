/** Reading the OpenAPI document the way a client generator does: through its `$ref`s. */

export type Json = Record<string, unknown>;

export function isObject(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** What a local reference (`#/components/schemas/Contact`) points at in the document, if anything. */
export function resolvePointer(document: Json, ref: string): unknown {
  if (!ref.startsWith('#/')) return undefined;
  const keys = ref.slice(2).split('/').map((key) => key.replace(/~1/g, '/').replace(/~0/g, '~'));
  let node: unknown = document;
  for (const key of keys) {
    if (!isObject(node) || !Object.hasOwn(node, key)) return undefined;
    node = node[key];
  }
  return node;
}

/** Every `$ref` anywhere in a value, with where it was found. */
export function refsIn(value: unknown, at = '#'): { ref: string; at: string }[] {
  if (Array.isArray(value)) return value.flatMap((item, i) => refsIn(item, `${at}/${i}`));
  if (!isObject(value)) return [];
  const own = typeof value.$ref === 'string' ? [{ ref: value.$ref, at }] : [];
  return [...own, ...Object.entries(value).flatMap(([key, item]) => refsIn(item, `${at}/${key}`))];
}

/** A copy of `value` with every local `$ref` replaced by what it points at. Throws on a cycle. */
export function dereference(document: Json, value: unknown, seen: readonly string[] = []): unknown {
  if (Array.isArray(value)) return value.map((item) => dereference(document, item, seen));
  if (!isObject(value)) return value;
  if (typeof value.$ref === 'string') {
    if (seen.includes(value.$ref)) throw new Error(`$ref cycle: ${[...seen, value.$ref].join(' → ')}`);
    const target = resolvePointer(document, value.$ref);
    if (target === undefined) throw new Error(`$ref ${value.$ref} points at nothing`);
    return dereference(document, target, [...seen, value.$ref]);
  }
  return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, dereference(document, item, seen)]));
}
