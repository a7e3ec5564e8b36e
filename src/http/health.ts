import { Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import type { Database } from '../db/database.js';
import { serviceUnavailable } from './database-unavailable.js';
import { Envelope, ok } from './envelope.js';
import { named } from './schema-name.js';

/**
 * /readyz answers within 2 s whatever the database does (a load balancer's probe typically waits
 * 2–5 s). The ping gets 1 s, a thousand times what `select 1` takes on a healthy database, and the
 * rest is left to a busy event loop: with 1.5 s the slowest answer under the fault tests' load
 * on a loaded machine was 1.7 s, too close to 2.
 */
const READINESS_TIMEOUT_MS = 1000;

/** `promise`, or a rejection once `ms` have passed: a paused database never answers at all. */
function within<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), ms);
  });
  return Promise.race([promise, late]).finally(() => clearTimeout(timer));
}

const Health = Envelope(named('HealthStatus', Type.Object({ status: Type.Literal('ok') })));

export function registerHealthRoutes(app: FastifyInstance, database: Database): void {
  app.get(
    '/healthz',
    {
      schema: {
        tags: ['Health'],
        security: [],
        operationId: 'checkLiveness',
        summary: 'The process is alive',
        description: 'Answers 200 while the process runs, without touching the database: for liveness probes. No authentication.',
        response: { 200: Health },
      },
      logLevel: 'warn',
    },
    async () => ok({ status: 'ok' as const }),
  );

  app.get(
    '/readyz',
    {
      schema: {
        tags: ['Health'],
        security: [],
        operationId: 'checkReadiness',
        summary: 'The database answers',
        description: 'Answers 200 when the database answers a trivial query within 1 s, and 503 SERVICE_UNAVAILABLE (with Retry-After) when it does not: for readiness probes and load balancers. No authentication.',
        response: { 200: Health },
      },
      logLevel: 'warn',
    },
    async () => {
      try {
        await within(database.ping(READINESS_TIMEOUT_MS), READINESS_TIMEOUT_MS);
      } catch (error) {
        throw serviceUnavailable('The database is not reachable.', error);
      }
      return ok({ status: 'ok' as const });
    },
  );
}
