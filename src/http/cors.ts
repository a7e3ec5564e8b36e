import type { FastifyInstance } from 'fastify';

export interface CorsPolicy {
  methods: string[];
  /** The request headers a cross-origin script may send. */
  allowedHeaders: string[];
  /** The response headers a cross-origin script may read (browsers hide the others). */
  exposedHeaders: string[];
  /** How long a browser may keep the preflight's answer, in seconds. */
  maxAge: number;
}

/**
 * Opens the scope's routes to scripts on every origin, without credentials: `Access-Control-Allow-Origin: *`
 * and the exposed headers on every answer of the scope (set in onRequest, so a 404 or a 429 has them
 * too), and a 204 to any OPTIONS under the scope's prefix with the policy's methods, headers and
 * max-age, with or without Origin.
 *
 * By hand, not @fastify/cors: its hook (the options merged per request, the origin resolved through a
 * callback) cost the public config GET 6% of its server CPU (24.5 µs per request against 23.0, the commit
 * with @fastify/cors against this code, both without V8's pretenuring, `npm run bench:compare`, 24 s per
 * build in six rounds, 2026-11-26), over the 5% a change of plumbing may cost. A first measure said 9%
 * (21.5 against 19.7 µs), but it was taken before src/v8-flags.ts, when a process's speed was partly chance.
 */
export function openCors(scope: FastifyInstance, policy: CorsPolicy): void {
  // Lower-case names: Fastify lower-cases each name it is given, per request (see app.ts).
  const simple = { 'access-control-allow-origin': '*', 'access-control-expose-headers': policy.exposedHeaders.join(', ') };
  const preflight = {
    'Access-Control-Allow-Methods': policy.methods.join(', '),
    'Access-Control-Allow-Headers': policy.allowedHeaders.join(', '),
    'Access-Control-Max-Age': String(policy.maxAge),
    'Content-Length': '0',
  };
  scope.addHook('onRequest', function corsHeaders(_request, reply, done) {
    reply.headers(simple);
    done();
  });
  scope.options('*', { schema: { hide: true } }, (_request, reply) => reply.code(204).headers(preflight).send());
}
