import { Type, type TSchema } from '@sinclair/typebox';
import { ERROR_STATUS } from './errors.js';

/** `{success: true, data}`: the body of every successful response outside OAuth. */
export function Envelope<T extends TSchema>(data: T) {
  return Type.Object({ success: Type.Literal(true), data }, { additionalProperties: false });
}

/** A page of a list: `{items, nextCursor}`. */
export function Page<T extends TSchema>(item: T) {
  return Type.Object({
    items: Type.Array(item),
    nextCursor: Type.Union([Type.String(), Type.Null()], { description: 'Pass as `cursor` to get the next page; null on the last page.' }),
  });
}

export const ErrorBody = Type.Object(
  {
    success: Type.Literal(false),
    error: Type.String({ description: 'A human-readable message.' }),
    code: Type.Union(Object.keys(ERROR_STATUS).map((code) => Type.Literal(code)), { description: 'A stable machine-readable code.' }),
    requestId: Type.String({ description: 'Quote it when you contact support.' }),
    field: Type.Optional(Type.String({ description: 'The offending field.' })),
    details: Type.Optional(Type.Array(Type.Object({ path: Type.String(), message: Type.String() }))),
  },
  { additionalProperties: true, description: 'The shape of every error outside the OAuth endpoints.' },
);

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
