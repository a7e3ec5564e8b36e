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

/** A value the schema accepts, so a request fails only on the field under test. */
export function sample(schema: Json): unknown {
  const examples = schema.examples as unknown[] | undefined;
  if (examples?.length) return examples[0];
  if (schema.default !== undefined) return schema.default;
  if (Array.isArray(schema.enum)) return schema.enum[0];
  if (schema.const !== undefined) return schema.const;
  const union = (schema.anyOf ?? schema.oneOf) as Json[] | undefined;
  if (union?.length) return sample(union[0] as Json);
  switch (schema.type) {
    case 'object': {
      const properties = (schema.properties ?? {}) as Record<string, Json>;
      const required = (schema.required ?? []) as string[];
      return Object.fromEntries(required.map((name) => [name, sample(properties[name] ?? {})]));
    }
    case 'array':
      return [];
    case 'integer':
    case 'number':
      return (schema.minimum as number | undefined) ?? 1;
    case 'boolean':
      return true;
    case 'string':
      if (schema.format === 'email') return 'someone@example.com';
      if (schema.format === 'uri') return 'https://api.example.com/x';
      if (schema.format === 'date-time') return new Date().toISOString();
      return 'abc';
    default:
      return 'abc';
  }
}

/** One operation of the document, as the route-security table reads it. */
export interface DocumentedOperation {
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  path: string;
  /** `GET /api/org/contacts/{id}`: how failures name it. */
  name: string;
  /** Its path parameters with the kind of id each holds: the prefix of the documented example (`ct` of `ct_3kTM…`). */
  pathParameters: { name: string; example: string; kind: string }[];
  /** The first media type of its request body, with the schema ($refs resolved). */
  body?: { type: string; schema: Json };
  /** Its security requirements, e.g. `[{ orgApiKey: [] }, { consoleSession: [] }]`; `[]` when public. */
  security: Record<string, string[]>[];
  /** The statuses it documents. */
  statuses: number[];
}

/** Every operation of an OpenAPI document, read through its `$ref`s. */
export function documentedOperations(document: Json): DocumentedOperation[] {
  const paths = dereference(document, document.paths) as Record<string, Record<string, Json>>;
  return Object.entries(paths).flatMap(([path, item]) =>
    Object.entries(item).map(([method, op]) => {
      const parameters = (op.parameters ?? []) as { in: string; name: string; example?: unknown; schema?: Json }[];
      const content = ((op.requestBody as Json | undefined)?.content ?? {}) as Record<string, { schema: Json }>;
      const [type, media] = Object.entries(content)[0] ?? [];
      return {
        method: method.toUpperCase() as DocumentedOperation['method'],
        path,
        name: `${method.toUpperCase()} ${path}`,
        pathParameters: parameters.filter((p) => p.in === 'path').map((p) => {
          const example = String(p.example ?? (p.schema?.examples as unknown[] | undefined)?.[0] ?? '');
          return { name: p.name, example, kind: example.includes('_') ? example.slice(0, example.lastIndexOf('_')) : p.name };
        }),
        ...(type && media ? { body: { type, schema: media.schema } } : {}),
        security: (op.security ?? []) as Record<string, string[]>[],
        statuses: Object.keys(op.responses as Json).map(Number),
      };
    }),
  );
}
