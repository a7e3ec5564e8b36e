import type { FastifyBaseLogger } from 'fastify';

/**
 * Every request's logger carries its request id (`reqId`), bound without going through pino's
 * redaction.
 *
 * Fastify gives each request a child logger, `logger.child({reqId})`. With our redaction paths
 * (http/redact.ts), which include `*.password` and the like, pino runs each binding of a child
 * through the full redaction (a clone and every wildcard path: pino calls its redactor non-strict,
 * so even a string is walked), about 2.5 KB of garbage and 0.6 µs on every request, logged or not
 * (measured under the tools benchmark and with pino alone, 2026-11-27). The id is a value we make
 * (`req_…`), never a secret, so the child is made with no bindings, the id is kept on it, and
 * `mixin` writes it into each line the request logs. A line is redacted as before.
 *
 * With no bindings and no options (a route's logLevel or logSerializers), a child has nothing of its own: pino
 * would still copy the serializers, build new formatters and set up its levels per request (Fastify passes an
 * options object, `{}`, which takes pino's slow path). So such a request's logger is the parent itself seen
 * through a prototype, `Object.create(logger)`, with the id on it: every method, level, serializer and the
 * stream are the parent's, and a child made from it is a pino child as ever (issue 37, docs/benchmarks.md).
 */
const REQUEST_ID = Symbol('switchboard.requestId');
const NO_BINDINGS = {};

type WithRequestId = FastifyBaseLogger & { [REQUEST_ID]?: string };

/** Fastify's `childLoggerFactory`: the request's logger, its id kept beside it instead of bound. */
export function requestChildLogger(logger: FastifyBaseLogger, bindings: Record<string, unknown>, options: object): FastifyBaseLogger {
  const child = (hasOwnKeys(options) ? logger.child(NO_BINDINGS, options) : Object.create(logger)) as WithRequestId;
  const id = bindings.reqId;
  if (typeof id === 'string') child[REQUEST_ID] = id;
  return child;
}

function hasOwnKeys(object: object): boolean {
  for (const key in object) if (Object.hasOwn(object, key)) return true;
  return false;
}

/** pino's `mixin`: `reqId` on every line logged through a request's logger (or a child of it). */
export function requestIdMixin(_merge: object, _level: number, logger: unknown): Record<string, unknown> {
  const id = (logger as WithRequestId)[REQUEST_ID];
  return id === undefined ? {} : { reqId: id };
}
