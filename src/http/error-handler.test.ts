import Fastify from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { installErrorHandling } from './error-handler.js';

describe('errors that are not ours', () => {
  const app = Fastify();
  beforeAll(async () => {
    installErrorHandling(app);
    // Libraries and Fastify itself raise errors with a status and a message that may quote the request.
    app.get('/library-refusal', async () => {
      throw Object.assign(new Error("'svc_cs_secret123' is not a valid url component"), { statusCode: 400, code: 'FST_ERR_SOMETHING' });
    });
    app.get('/library-timeout', async () => {
      throw Object.assign(new Error('Timed out reading svc_cs_secret123'), { statusCode: 408 });
    });
    await app.ready();
  });
  afterAll(async () => app.close());

  it.each([
    ['/library-refusal', 400, 'VALIDATION_ERROR'],
    ['/library-timeout', 408, 'REQUEST_TIMEOUT'],
  ])('%s is answered by its status, in our words', async (url, status, code) => {
    const res = await app.inject({ method: 'GET', url });
    expect(res.statusCode).toBe(status);
    expect(res.json()).toMatchObject({ success: false, code });
    expect(res.body).not.toContain('svc_cs_secret123');
  });
});
