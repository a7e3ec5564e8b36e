import { Type } from '@sinclair/typebox';
import type { ErrorObject } from 'ajv';
import { idPattern, type IdPrefix } from '../lib/ids.js';
import type { AppError } from './errors.js';

/**
 * Path ids that cannot exist answer exactly like ids that do not exist — the feature's own
 * 404 — without a query. The id's schema carries the feature's not-found error; the
 * validator compiler (validation.ts) answers with it when a path id breaks its schema.
 */
const NOT_FOUND = Symbol('notFound');

type NotFound = () => AppError;

/** A path parameter holding an id with this prefix; any other value answers `notFound()`. */
export function IdParam(prefix: IdPrefix, notFound: NotFound, description = `The id (\`${prefix}_…\`).`) {
  const schema = Type.String({ pattern: idPattern(prefix), description, examples: [`${prefix}_3kTMd92nqLx0aPz8Vb1c`] });
  return Object.assign(schema, { [NOT_FOUND]: notFound });
}

/** A path parameter that is not an id (a slug) but answers `notFound()` all the same when malformed. */
export function withNotFound<T extends object>(schema: T, notFound: NotFound): T {
  return Object.assign(schema, { [NOT_FOUND]: notFound });
}

/** The not-found error of the first path parameter that failed validation, if it has one. */
export function notFoundOf(errors: ErrorObject[] | null | undefined): AppError | undefined {
  for (const error of errors ?? []) {
    const factory = (error.parentSchema as Record<symbol, unknown> | undefined)?.[NOT_FOUND];
    if (typeof factory === 'function') return (factory as NotFound)();
  }
  return undefined;
}
