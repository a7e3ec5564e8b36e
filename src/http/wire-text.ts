import type { Ajv, ErrorObject, SchemaValidateFunction } from 'ajv';
import { Type, type StringOptions } from '@sinclair/typebox';
import { textProblem, toNfc, type TextKind } from '../lib/text.js';

type DataValidationCxt = Parameters<SchemaValidateFunction>[3];

/**
 * One rule for text on the wire, applied by the validation layer to every string of every
 * body, query string and path (lib/text.ts says what is refused and why):
 * - a string field holds one line unless its schema says `x-multiline`;
 * - values of open shape (`Type.Unknown()`: custom values, stored JSON) may span lines;
 * - object keys hold one line;
 * - accepted text is normalized to NFC, so what we answer is exactly what we stored.
 *
 * Routes never call this: `annotateWireText` adds the checks to each schema when the
 * validator is compiled, so a new route cannot forget them.
 */

/** Marks a string field that may hold tabs and line breaks (descriptions, notes, consent texts). */
export const MULTILINE = 'x-multiline';

export function MultilineText(options: StringOptions = {}) {
  return Type.String({ ...options, [MULTILINE]: true });
}

/** Keywords of a schema whose values are schemas, or maps or lists of schemas. */
const SCHEMA_VALUED = ['additionalProperties', 'items', 'not', 'if', 'then', 'else', 'contains', 'propertyNames', 'unevaluatedProperties', 'unevaluatedItems'];
const SCHEMA_MAPS = ['properties', 'patternProperties', '$defs', 'definitions', 'dependentSchemas'];
const SCHEMA_LISTS = ['anyOf', 'oneOf', 'allOf', 'prefixItems'];
/** A schema with none of these accepts any JSON value. */
const SHAPING = ['type', 'anyOf', 'oneOf', 'allOf', 'not', 'enum', 'const', '$ref', 'properties', 'items'];

type Schema = Record<string | symbol, unknown>;

function isSchema(value: unknown): value is Schema {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function hasType(schema: Schema, type: string): boolean {
  return schema.type === type || (Array.isArray(schema.type) && schema.type.includes(type));
}

/**
 * A copy of `schema` with the wire-text keywords on every string, open value and object.
 * Data-valued keywords (`default`, `examples`, `enum`, `const`) are copied untouched, and so
 * are symbol keys (TypeBox's, and `notFound` of path ids).
 */
export function annotateWireText(schema: unknown): unknown {
  if (!isSchema(schema)) return schema;
  const out: Schema = {};
  for (const key of Object.getOwnPropertySymbols(schema)) out[key] = schema[key];
  for (const [key, value] of Object.entries(schema)) {
    if (SCHEMA_VALUED.includes(key)) out[key] = Array.isArray(value) ? value.map(annotateWireText) : annotateWireText(value);
    else if (SCHEMA_MAPS.includes(key) && isSchema(value)) out[key] = Object.fromEntries(Object.entries(value).map(([k, v]) => [k, annotateWireText(v)]));
    else if (SCHEMA_LISTS.includes(key) && Array.isArray(value)) out[key] = value.map(annotateWireText);
    else out[key] = value;
  }
  if (hasType(schema, 'string')) out.wireText = schema[MULTILINE] === true ? 'multiline' : 'line';
  if (hasType(schema, 'object')) out.wireTextKeys = true;
  if (!SHAPING.some((key) => key in schema)) out.wireTextAny = true;
  return out;
}

function problemAt(instancePath: string, message: string): ErrorObject {
  return { keyword: 'wireText', instancePath, schemaPath: '', params: {}, message };
}

/** Replaces a string in its parent; a root-level string (never one of ours) stays as it is. */
function replaceInParent(cxt: DataValidationCxt | undefined, value: string): void {
  if (cxt?.parentData !== undefined && cxt.parentDataProperty !== undefined) {
    (cxt.parentData as Record<string | number, unknown>)[cxt.parentDataProperty] = value;
  }
}

/**
 * Checks and normalizes every string and key inside an open value; the first problem found, if any.
 * Iterative, with its own stack of containers still to visit: a value's depth is the client's to
 * choose, and a recursive walk overflowed the call stack at a few thousand levels (a 500). Bodies
 * are held to MAX_JSON_DEPTH when parsed (json-body.ts), but this walk needs no such promise.
 */
function checkDeep(root: unknown, rootPath: string): ErrorObject | undefined {
  const pending: { container: unknown[] | Record<string, unknown>; path: string }[] = [];
  if (Array.isArray(root) || isSchema(root)) pending.push({ container: root as unknown[] | Record<string, unknown>, path: rootPath });
  for (let next = pending.pop(); next !== undefined; next = pending.pop()) {
    const { container, path } = next;
    const record = container as Record<string | number, unknown>;
    const keys: (string | number)[] = Array.isArray(container) ? Array.from(container.keys()) : Object.keys(container);
    for (const key of keys) {
      if (typeof key === 'string') {
        const keyProblem = textProblem(key, 'line');
        if (keyProblem) return problemAt(`${path}/${key}`, `has a key that ${keyProblem}`);
      }
      const item = record[key];
      if (typeof item === 'string') {
        const problem = textProblem(item, 'multiline');
        if (problem) return problemAt(`${path}/${key}`, problem);
        record[key] = toNfc(item);
      } else if (Array.isArray(item) || isSchema(item)) {
        pending.push({ container: item as unknown[] | Record<string, unknown>, path: `${path}/${key}` });
      }
    }
  }
  return undefined;
}

/**
 * An Ajv `validate` keyword from a check that returns its problem, or undefined.
 * (Ajv reads a keyword's errors from the function's own `errors` property.)
 */
function keyword<S, D>(check: (schemaValue: S, data: D, cxt: DataValidationCxt | undefined) => ErrorObject | undefined): SchemaValidateFunction {
  const validate: SchemaValidateFunction = (schemaValue: S, data: D, _parent?: unknown, cxt?: DataValidationCxt) => {
    const problem = check(schemaValue, data, cxt);
    validate.errors = problem ? [problem] : [];
    return problem === undefined;
  };
  return validate;
}

/** Checks one string, and puts its NFC form in its place. */
function checkString(kind: TextKind, data: string, cxt: DataValidationCxt | undefined): ErrorObject | undefined {
  const problem = textProblem(data, kind);
  if (problem) return problemAt(cxt?.instancePath ?? '', problem);
  const normalized = toNfc(data);
  if (normalized !== data) replaceInParent(cxt, normalized);
  return undefined;
}

/** Teaches an Ajv instance the keywords `annotateWireText` adds. */
export function addWireTextKeywords(ajv: Ajv): void {
  ajv.addKeyword({
    keyword: 'wireText',
    type: 'string',
    schemaType: 'string',
    modifying: true,
    errors: true,
    validate: keyword(checkString),
  });
  ajv.addKeyword({
    keyword: 'wireTextKeys',
    type: 'object',
    schemaType: 'boolean',
    errors: true,
    validate: keyword((_on: boolean, data: Record<string, unknown>, cxt) => {
      for (const key of Object.keys(data)) {
        const problem = textProblem(key, 'line');
        if (problem) return problemAt(`${cxt?.instancePath ?? ''}/${key}`, `has a key that ${problem}`);
      }
      return undefined;
    }),
  });
  ajv.addKeyword({
    keyword: 'wireTextAny',
    schemaType: 'boolean',
    modifying: true,
    errors: true,
    validate: keyword((_on: boolean, data: unknown, cxt) =>
      typeof data === 'string' ? checkString('multiline', data, cxt) : checkDeep(data, cxt?.instancePath ?? ''),
    ),
  });
}
