import type { FastifyRequest } from 'fastify';

/**
 * A typed value attached to a request by an auth hook and read by the handler,
 * without global declaration merging on FastifyRequest.
 */
export interface RequestSlot<T> {
  set(request: FastifyRequest, value: T): void;
  get(request: FastifyRequest): T;
}

export function createRequestSlot<T>(name: string): RequestSlot<T> {
  const values = new WeakMap<FastifyRequest, T>();
  return {
    set: (request, value) => values.set(request, value),
    get: (request) => {
      const value = values.get(request);
      if (value === undefined) throw new Error(`${name} was read before the hook that sets it ran`);
      return value;
    },
  };
}
