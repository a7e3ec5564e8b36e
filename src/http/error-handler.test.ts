import Fastify from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { installErrorHandling, type ErrorPageRenderer } from './error-handler.js';
import { AppError } from './errors.js';

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

describe('the JSON-RPC shape (errorFormat: jsonrpc): every failure, ours included', () => {
  const app = Fastify();
  beforeAll(async () => {
    installErrorHandling(app);
    const config = { errorFormat: 'jsonrpc' as const };
    app.post('/rpc/bug', { config }, async () => {
      throw new Error('connection to 10.0.0.7 refused: password authentication failed');
    });
    app.post('/rpc/params', { config }, async () => {
      throw new AppError('VALIDATION_ERROR', 'Invalid request: params.arguments.x contains a control character.', { field: 'params.arguments.x' });
    });
    app.post('/rpc/message', { config }, async () => {
      throw new AppError('VALIDATION_ERROR', 'The request body may not contain "__proto__" or "constructor.prototype" keys.');
    });
    await app.ready();
  });
  afterAll(async () => app.close());

  it('answers our own failure as -32603 for the request\'s id, never in the REST shape and never with the internal message', async () => {
    const res = await app.inject({ method: 'POST', url: '/rpc/bug', payload: { jsonrpc: '2.0', id: 'call-9', method: 'tools/call' } });
    expect(res.statusCode).toBe(500);
    expect(res.json()).toEqual({
      jsonrpc: '2.0', id: 'call-9',
      error: { code: -32603, message: expect.stringMatching(/^Something went wrong on our side/), data: { code: 'INTERNAL_ERROR', requestId: expect.any(String) } },
    });
    expect(res.body).not.toMatch(/10\.0\.0\.7|password|success/);
  });

  it('answers a problem inside params as -32602 and any other problem with the message as -32600, with the id', async () => {
    const params = await app.inject({ method: 'POST', url: '/rpc/params', payload: { jsonrpc: '2.0', id: 3, method: 'tools/call' } });
    expect(params.statusCode).toBe(400);
    expect(params.json()).toMatchObject({ jsonrpc: '2.0', id: 3, error: { code: -32602, data: { code: 'VALIDATION_ERROR' } } });
    const message = await app.inject({ method: 'POST', url: '/rpc/message', payload: [{ jsonrpc: '2.0', id: 4 }] });
    // A batch has no one id to answer.
    expect(message.json()).toMatchObject({ jsonrpc: '2.0', id: null, error: { code: -32600 } });
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
    app.get('/mail-down', async () => {
      throw new AppError('SERVICE_UNAVAILABLE', 'The invitation email could not be sent.');
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

  it('every 503 says when to come back, as the API reference promises, even one raised without Retry-After', async () => {
    const res = await app.inject({ method: 'GET', url: '/mail-down' });
    expect(res.statusCode).toBe(503);
    expect(res.headers['retry-after']).toBe('5');
    expect(res.json()).toMatchObject({ code: 'SERVICE_UNAVAILABLE', error: 'The invitation email could not be sent.' });
  });

  it('anything else is still a 500, logged as the bug it is', async () => {
    lines.length = 0;
    const res = await app.inject({ method: 'GET', url: '/bug' });
    expect(res.statusCode).toBe(500);
    expect(res.headers['retry-after']).toBeUndefined();
    expect(lines.some((line) => line.includes('"level":50') && line.includes('"stack"'))).toBe(true);
  });
});

describe('the HTML shape (errorFormat: html): the route\'s page, the handler\'s headers', () => {
  const app = Fastify();
  const seen: { status: number; code: string | undefined }[] = [];
  beforeAll(async () => {
    installErrorHandling(app);
    const errorPage: ErrorPageRenderer = (_request, reply, failure) => {
      seen.push({ status: failure.status, code: failure.error?.code });
      return reply.code(failure.status).type('text/html; charset=utf-8').send(`<p>${failure.error?.message ?? 'The request could not be read.'}</p>`);
    };
    const config = { errorFormat: 'html' as const, errorPage };
    app.get('/page/limited', { config }, async () => {
      throw new AppError('RATE_LIMIT_EXCEEDED', 'Too many requests.', { headers: { 'Retry-After': '42', 'RateLimit-Remaining': '0' } });
    });
    app.get('/page/unbuilt', { config }, async () => {
      throw new AppError('SERVICE_UNAVAILABLE', 'The page is not built yet.');
    });
    app.get('/page/library', { config }, async () => {
      throw Object.assign(new Error('unsupported media type text/x-secret'), { statusCode: 415, code: 'FST_ERR_CTP_INVALID_MEDIA_TYPE' });
    });
    app.get('/json/unbuilt', async () => {
      throw new AppError('SERVICE_UNAVAILABLE', 'The page is not built yet.');
    });
    await app.ready();
  });
  afterAll(async () => app.close());

  it('renders an AppError as the page, with the error\'s own headers (Retry-After, RateLimit-*)', async () => {
    const res = await app.inject({ method: 'GET', url: '/page/limited' });
    expect(res.statusCode).toBe(429);
    expect(res.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(res.headers['retry-after']).toBe('42');
    expect(res.headers['ratelimit-remaining']).toBe('0');
    expect(res.body).toBe('<p>Too many requests.</p>');
    expect(seen.at(-1)).toEqual({ status: 429, code: 'RATE_LIMIT_EXCEEDED' });
  });

  it('adds no Retry-After to a 503 page (the JSON answer gets one)', async () => {
    const page = await app.inject({ method: 'GET', url: '/page/unbuilt' });
    expect(page.statusCode).toBe(503);
    expect(page.headers['retry-after']).toBeUndefined();
    const json = await app.inject({ method: 'GET', url: '/json/unbuilt' });
    expect(json.headers['retry-after']).toBe('5');
  });

  it('gives the page Fastify\'s own failures by their own status, without the error (and so without its words)', async () => {
    const res = await app.inject({ method: 'GET', url: '/page/library' });
    expect(res.statusCode).toBe(415);
    expect(res.body).toBe('<p>The request could not be read.</p>');
    expect(seen.at(-1)).toEqual({ status: 415, code: undefined });
  });
});
