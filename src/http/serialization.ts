import fastJson from 'fast-json-stringify';
import type { FastifySerializerCompiler } from 'fastify/types/schema.js';

type Schema = Record<string, unknown>;

const PRIMITIVES = new Set(['string', 'number', 'integer', 'boolean']);

function isNull(schema: unknown): boolean {
  return typeof schema === 'object' && schema !== null && (schema as Schema).type === 'null';
}

/**
 * Rewrites unions into forms fast-json-stringify serializes directly. For an `anyOf` it
 * otherwise runs a validator on every value to pick the branch, which made a page of 20
 * tools cost more than the query behind it. Only serialization sees the rewritten schema;
 * validation and the OpenAPI document keep the TypeBox originals.
 *
 * - `anyOf: [{type: T, …}, {type: 'null'}]` with a primitive T → `{type: [T, 'null'], …}`
 * - `anyOf: [object, {type: 'null'}]` → the object with `nullable: true`
 * - `anyOf` of `const` values of one primitive type → `{type, enum}`
 */
export function simplifyForSerialization(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(simplifyForSerialization);
  if (typeof schema !== 'object' || schema === null) return schema;
  const out: Schema = {};
  for (const [key, value] of Object.entries(schema as Schema)) out[key] = simplifyForSerialization(value);
  const anyOf = out.anyOf;
  if (!Array.isArray(anyOf) || anyOf.length === 0) return out;
  const branches = anyOf as Schema[];
  const { anyOf: _drop, ...rest } = out;

  const nonNull = branches.filter((branch) => !isNull(branch));
  if (nonNull.length === 1 && branches.length === 2) {
    const only = nonNull[0] as Schema;
    if (typeof only.type === 'string' && PRIMITIVES.has(only.type) && only.const === undefined) return { ...only, ...rest, type: [only.type, 'null'] };
    if (only.type === 'object') return { ...only, ...rest, nullable: true };
  }
  const consts = branches.every((branch) => branch.const !== undefined && typeof branch.type === 'string' && branch.type === branches[0]?.type);
  if (consts && PRIMITIVES.has(String(branches[0]?.type))) return { ...rest, type: branches[0]?.type, enum: branches.map((branch) => branch.const) };
  return out;
}

type Serializer = (data: unknown) => string;

/**
 * Fastify's serializer compiler, over the simplified schemas. Fastify asks once per
 * route and status; most of those are the same schema object (every error status
 * of every route is `ErrorBody`), so each schema object is compiled only once.
 */
export function createSerializerCompiler(): FastifySerializerCompiler<unknown> {
  const compiled = new WeakMap<object, Serializer>();
  return ({ schema }) => {
    const key = schema as object;
    let serializer = compiled.get(key);
    if (serializer === undefined) {
      serializer = fastJson(simplifyForSerialization(schema) as Parameters<typeof fastJson>[0]) as Serializer;
      compiled.set(key, serializer);
    }
    return serializer;
  };
}
