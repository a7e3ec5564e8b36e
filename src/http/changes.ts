import { Type, type ObjectOptions, type TProperties } from '@sinclair/typebox';

/**
 * The body of a partial update — every PATCH, and the partial PUT of /api/dev/tools/{id}: any
 * subset of `properties` (only those given change), nothing else, and at least one of them.
 * `minProperties: 1` puts that last rule in the schema, so the validator refuses `{}` with a 400
 * before any handler runs (nothing is written, `updatedAt` stays) and the OpenAPI document says
 * so; no route checks it by hand, and a new partial update built with this cannot forget it.
 */
export function ChangesBody<T extends TProperties>(properties: T, options: Omit<ObjectOptions, 'additionalProperties' | 'minProperties'> = {}) {
  return Type.Partial(Type.Object(properties), { ...options, additionalProperties: false, minProperties: 1 });
}
