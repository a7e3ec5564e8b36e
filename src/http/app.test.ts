import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Validator } from '@seriousme/openapi-schema-validator';
import { createTestContext, testDialects, type TestContext } from '../../test/support/context.js';

describe.each(testDialects())('service foundation on %s', (dialect) => {
  let t: TestContext;
  beforeAll(async () => {
    t = await createTestContext(dialect);
  });
  afterAll(async () => t.close());

  it('answers /healthz and /readyz', async () => {
    const health = await t.app.inject({ method: 'GET', url: '/healthz' });
    expect(health.statusCode).toBe(200);
    expect(health.json()).toEqual({ success: true, data: { status: 'ok' } });
    const ready = await t.app.inject({ method: 'GET', url: '/readyz' });
    expect(ready.statusCode).toBe(200);
  });

  it('gives every response a prefixed request id', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/healthz' });
    expect(res.headers['x-request-id']).toMatch(/^req_[0-9A-Za-z]{20}$/);
  });

  it('answers unknown paths with the error shape', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/nope' });
    expect(res.statusCode).toBe(404);
    const body = res.json();
    expect(body).toMatchObject({ success: false, code: 'NOT_FOUND' });
    expect(body.error).toContain('/nope');
    expect(body.requestId).toBe(res.headers['x-request-id']);
  });

  it('serves a valid OpenAPI 3.1 document and a rendered reference', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/openapi.json' });
    expect(res.statusCode).toBe(200);
    const doc = res.json();
    expect(doc.openapi).toBe('3.1.0');
    const validator = new Validator();
    const result = await validator.validate(doc);
    expect(result.errors ?? []).toEqual([]);
    expect(result.valid).toBe(true);
    const docs = await t.app.inject({ method: 'GET', url: '/docs/' });
    expect(docs.statusCode).toBe(200);
    expect(docs.headers['content-type']).toContain('text/html');
  });
});

describe('request hygiene', () => {
  let t: TestContext;
  beforeAll(async () => {
    t = await createTestContext('sqlite');
  });
  afterAll(async () => t.close());

  const post = (payload: string, contentType = 'application/json') =>
    t.app.inject({ method: 'POST', url: '/api/dev/oauth/revoke-nothing', headers: { 'content-type': contentType }, payload });

  it.each([
    ['{"__proto__": {"admin": true}}', /__proto__/],
    ['{"a": {"constructor": {"prototype": {"admin": true}}}}', /constructor\.prototype/],
    ['{"a": ', /not valid JSON \(it ends too early\)/],
    ['{"a": 1}x', /^The request body is not valid JSON \(at position 8\)\.$/],
    ['', /empty/],
  ])('refuses the JSON body %j with a 400 that says why', async (payload, message) => {
    const res = await post(payload);
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({ success: false, code: 'VALIDATION_ERROR', error: expect.stringMatching(message) });
  });

  it('never quotes the body when it is not valid JSON', async () => {
    const res = await post('{"client_secret": svc_cs_secret123}');
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({ success: false, code: 'VALIDATION_ERROR', error: 'The request body is not valid JSON.' });
    expect(res.body).not.toContain('svc_cs');
  });

  it('answers an over-long path segment with the error shape, not a router error', async () => {
    const res = await t.app.inject({ method: 'GET', url: `/api/catalog/tools/${'x'.repeat(5000)}` });
    expect(res.statusCode).toBe(404);
    expect(res.json()).toMatchObject({ success: false, code: 'NOT_FOUND' });
  });

  it('answers a malformed percent-encoding with the error shape', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/api/catalog/tools/%E0%A4%A' });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({ success: false, code: 'VALIDATION_ERROR' });
  });
});
