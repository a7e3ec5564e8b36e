import { Type, type TSchema } from '@sinclair/typebox';
import { ERROR_STATUS, type ErrorCode } from './errors.js';
import { named, nameOf } from './schema-name.js';

/** Names a schema derived from a named one (`ContactPage` from `Contact`); unnamed stays unnamed. */
function derivedName<T extends object>(from: unknown, suffix: string, schema: T): T {
  const name = nameOf(from);
  return name === undefined ? schema : named(`${name}${suffix}`, schema);
}

/**
 * `{success: true, data}`: the body of every successful response outside OAuth.
 * Named after its data in the API reference: `Envelope(Contact)` is `ContactResponse`.
 */
export function Envelope<T extends TSchema>(data: T) {
  return derivedName(data, 'Response', Type.Object({ success: Type.Literal(true), data }, { additionalProperties: false }));
}

/** A page of a list: `{items, nextCursor}`. Named after its items: `Page(Contact)` is `ContactPage`. */
export function Page<T extends TSchema>(item: T) {
  return derivedName(
    item,
    'Page',
    Type.Object({
      items: Type.Array(item),
      nextCursor: Type.Union([Type.String(), Type.Null()], { description: 'Pass as `cursor` to get the next page; null on the last page.' }),
    }),
  );
}

/** Every error code a client can see (errors.ts), as one enum. */
export const ErrorCodeSchema = named(
  'ErrorCode',
  Type.Unsafe<ErrorCode>({ type: 'string', enum: Object.keys(ERROR_STATUS), description: 'A stable machine-readable code.' }),
);

export const ErrorBody = named('ErrorBody', Type.Object(
  {
    success: Type.Literal(false),
    error: Type.String({ description: 'A human-readable message.' }),
    code: ErrorCodeSchema,
    requestId: Type.String({ description: 'Quote it when you contact support.' }),
    field: Type.Optional(Type.String({ description: 'The offending field.' })),
    details: Type.Optional(Type.Array(named('ErrorDetail', Type.Object({ path: Type.String(), message: Type.String() })), { description: 'One entry per problem, on VALIDATION_ERROR.' })),
  },
  { additionalProperties: true, description: 'The shape of every error outside the OAuth endpoints.' },
));

/** Error responses for a route's schema: `errorResponses(400, 401, 404)`. */
export function errorResponses(...statuses: number[]): Record<number, typeof ErrorBody> {
  const out: Record<number, typeof ErrorBody> = {};
  for (const status of statuses) out[status] = ErrorBody;
  return out;
}

export function ok<T>(data: T): { success: true; data: T } {
  return { success: true, data };
}

export const ListQuery = {
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, default: 20, description: 'Page size, 1–100.' })),
  cursor: Type.Optional(Type.String({ maxLength: 200, description: 'The `nextCursor` of the previous page.' })),
};
