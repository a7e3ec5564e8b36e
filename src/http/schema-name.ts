/**
 * Names of wire schemas in the API reference. A named schema is written once in the OpenAPI
 * document, under `components/schemas/<Name>`, and every use of it is a `$ref` there, so
 * generated clients get real type names (openapi-components.ts does the hoisting).
 *
 * The name travels with the schema object itself, under a symbol: validation, serialization
 * and TypeBox's types never see it, and there is no registry to keep in step.
 *
 * TypeBox copies a schema's symbol keys when it wraps it (`Type.Optional(Contact)`) and when
 * it derives another from it (`Type.Partial(BrandingInput)`); a spread copies them too. So a
 * schema counts as named only while its JSON is still that of the schema that was named:
 * an optional Contact is a Contact, a partial BrandingInput is not (name it for itself).
 */
const NAME = Symbol('schemaName');

interface NameTag {
  readonly name: string;
  /** The schema object that was named: a copy is the same schema only if its JSON is equal. */
  readonly schema: object;
}

const PASCAL_CASE = /^[A-Z][A-Za-z0-9]*$/;

/** Names a schema for the API reference; the name is PascalCase and unique in the document. */
export function named<T extends object>(name: string, schema: T): T {
  if (!PASCAL_CASE.test(name)) throw new Error(`Schema name "${name}" must be PascalCase: a capital letter, then letters and digits.`);
  const tag: NameTag = { name, schema };
  Object.assign(schema, { [NAME]: tag });
  return schema;
}

/** The name of a schema, if it was named (or is an unchanged copy of a named one). */
export function nameOf(schema: unknown): string | undefined {
  if (typeof schema !== 'object' || schema === null) return undefined;
  const tag = (schema as Record<symbol, unknown>)[NAME] as NameTag | undefined;
  if (tag === undefined) return undefined;
  return tag.schema === schema || sameJson(schema, tag.schema) ? tag.name : undefined;
}

/** Equal as JSON: the same string keys with equal values (symbol keys are not JSON). */
export function sameJson(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  const left = a as Record<string, unknown>;
  const right = b as Record<string, unknown>;
  const keys = Object.keys(left);
  if (keys.length !== Object.keys(right).length) return false;
  return keys.every((key) => Object.hasOwn(right, key) && sameJson(left[key], right[key]));
}
