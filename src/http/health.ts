import { Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import type { Database } from '../db/database.js';
import { AppError } from './errors.js';
import { Envelope, errorResponses, ok } from './envelope.js';
import { named } from './schema-name.js';

const Health = Envelope(named('HealthStatus', Type.Object({ status: Type.Literal('ok') })));

export function registerHealthRoutes(app: FastifyInstance, database: Database): void {
  app.get(
    '/healthz',
    {
      schema: {
        tags: ['Health'],
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
        operationId: 'checkReadiness',
        summary: 'The database answers',
        description: 'Answers 200 when the database answers a trivial query and 503 SERVICE_UNAVAILABLE when it does not: for readiness probes and load balancers. No authentication.',
        response: { 200: Health, ...errorResponses(503) },
      },
      logLevel: 'warn',
    },
    async () => {
      try {
        await database.ping();
      } catch (error) {
        throw new AppError('SERVICE_UNAVAILABLE', 'The database is not reachable.', { cause: error });
      }
      return ok({ status: 'ok' as const });
    },
  );
}
