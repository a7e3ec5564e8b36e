import Fastify from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { installErrorHandling } from './error-handler.js';
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

