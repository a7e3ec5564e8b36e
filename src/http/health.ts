import { Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import type { Database } from '../db/database.js';
import { AppError } from './errors.js';
import { Envelope, errorResponses, ok } from './envelope.js';

const Health = Envelope(Type.Object({ status: Type.Literal('ok') }));

export function registerHealthRoutes(app: FastifyInstance, database: Database): void {
  app.get('/healthz', { schema: { tags: ['Health'], summary: 'The process is alive', response: { 200: Health } }, logLevel: 'warn' }, async () => ok({ status: 'ok' as const }));

  app.get(
    '/readyz',
    { schema: { tags: ['Health'], summary: 'The database answers', response: { 200: Health, ...errorResponses(503) } }, logLevel: 'warn' },
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
