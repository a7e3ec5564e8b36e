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

describe('the database unavailable', () => {
  const lines: string[] = [];
  const app = Fastify({ logger: { level: 'info', stream: { write: (line: string) => void lines.push(line) } } });
  const busy = () => Object.assign(new Error('database is locked'), { code: 'SQLITE_BUSY' });
  beforeAll(async () => {
    installErrorHandling(app);
    app.get('/sqlite-busy', async () => {
      throw busy();
    });
    app.get('/pg-terminated', async () => {
      throw new Error('Connection terminated unexpectedly');
    });
    app.post('/rpc', { config: { errorFormat: 'jsonrpc' } }, async () => {
      throw busy();
    });
    app.get('/bug', async () => {
      throw new TypeError('undefined is not a function');
    });
    await app.ready();
  });
  afterAll(async () => app.close());

  it.each(['/sqlite-busy', '/pg-terminated'])('%s: 503 SERVICE_UNAVAILABLE with Retry-After, and a warning without a stack trace', async (url) => {
    lines.length = 0;
    const res = await app.inject({ method: 'GET', url });
    expect(res.statusCode).toBe(503);
    expect(res.headers['retry-after']).toBe('5');
    expect(res.json()).toMatchObject({ success: false, code: 'SERVICE_UNAVAILABLE' });
    const logged = lines.map((line) => JSON.parse(line) as { level: number; msg: string; err?: unknown });
    expect(logged.filter((line) => line.msg.startsWith('request answered 503'))).toEqual([expect.objectContaining({ level: 40 })]);
    expect(lines.join('')).not.toContain('"stack"');
  });

  it('on a JSON-RPC route: a JSON-RPC error body with the 503 and Retry-After', async () => {
    const res = await app.inject({ method: 'POST', url: '/rpc', payload: {} });
    expect(res.statusCode).toBe(503);
    expect(res.headers['retry-after']).toBe('5');
    expect(res.json()).toMatchObject({ jsonrpc: '2.0', id: null, error: { code: -32000, data: { code: 'SERVICE_UNAVAILABLE' } } });
  });

  it('anything else is still a 500, logged as the bug it is', async () => {
    lines.length = 0;
    const res = await app.inject({ method: 'GET', url: '/bug' });
    expect(res.statusCode).toBe(500);
    expect(res.headers['retry-after']).toBeUndefined();
    expect(lines.some((line) => line.includes('"level":50') && line.includes('"stack"'))).toBe(true);
  });
});
