import Fastify from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Database } from '../db/database.js';
import { installErrorHandling } from './error-handler.js';
import { registerHealthRoutes } from './health.js';

describe('/readyz', () => {
  const app = Fastify();
  let answer: 'never' | 'now' = 'never';
  // A database that never answers, as PostgreSQL does while paused (SIGSTOP): no error, no timeout of its own.
  const database = { ping: () => (answer === 'now' ? Promise.resolve() : new Promise<void>(() => undefined)) } as unknown as Database;
  beforeAll(async () => {
    installErrorHandling(app);
    registerHealthRoutes(app, database);
    await app.ready();
  });
  afterAll(async () => app.close());

  it('answers 503 SERVICE_UNAVAILABLE with Retry-After within 2 s when the database does not answer, 200 once it does', async () => {
    const started = performance.now();
    const res = await app.inject({ method: 'GET', url: '/readyz' });
    const waited = performance.now() - started;
    expect(res.statusCode).toBe(503);
    expect(res.headers['retry-after']).toBe('5');
    expect(res.json()).toMatchObject({ success: false, code: 'SERVICE_UNAVAILABLE', error: 'The database is not reachable.' });
    expect(waited).toBeGreaterThanOrEqual(950);
    expect(waited).toBeLessThan(2000);
    answer = 'now';
    expect((await app.inject({ method: 'GET', url: '/readyz' })).statusCode).toBe(200);
  });
});
