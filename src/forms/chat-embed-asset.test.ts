import { createHash } from 'node:crypto';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestContext, type TestContext } from '../../test/support/context.js';
import { createWebAssets } from './web-assets.js';

/**
 * `/chat-embed.js` (the chat widget, web/chat) is served like `/form-embed.js`: from memory, 5 minutes
 * under its plain name and a year under its hashed one, the build's .br/.gz as accepted, readable by a
 * script on any origin (it carries no data: the chat's own endpoints check the page's origin).
 */
describe('chat-embed.js', () => {
  let t: TestContext;
  beforeAll(async () => {
    t = await createTestContext('sqlite');
  });
  afterAll(async () => t.close());
  const get = (url: string, headers: Record<string, string> = {}) => t.app.inject({ method: 'GET', url, headers });

  it('serves the plain URL for 5 minutes, the hashed one for a year, open to every origin, compressed as asked', async () => {
    const plain = await get('/chat-embed.js');
    expect(plain.statusCode).toBe(200);
    expect(plain.headers['content-type']).toBe('text/javascript; charset=utf-8');
    expect(plain.headers['cache-control']).toBe('public, max-age=300');
    expect(plain.headers['access-control-allow-origin']).toBe('*');
    expect(plain.headers['cross-origin-resource-policy']).toBe('cross-origin');
    expect(plain.headers['x-content-type-options']).toBe('nosniff');
    expect(plain.body).toContain('data-svc-chat');
    const gz = await get('/chat-embed.js', { 'accept-encoding': 'gzip' });
    expect(gz.headers['content-encoding']).toBe('gzip');
    expect(gunzipSync(gz.rawPayload).toString()).toBe(plain.body);
    const br = await get('/chat-embed.js', { 'accept-encoding': 'gzip, br' });
    expect(br.headers['content-encoding']).toBe('br');
    expect(brotliDecompressSync(br.rawPayload).toString()).toBe(plain.body);
    expect((await get('/chat-embed.js', { 'if-none-match': String(plain.headers.etag) })).statusCode).toBe(304);

    const hash = createHash('sha256').update(plain.rawPayload).digest('hex').slice(0, 12);
    const hashed = await get(`/chat-embed.${hash}.js`);
    expect(hashed.statusCode).toBe(200);
    expect(hashed.body).toBe(plain.body);
    expect(hashed.headers['cache-control']).toBe('public, max-age=31536000, immutable');
    expect(hashed.headers['access-control-allow-origin']).toBe('*');
    expect((await get('/chat-embed.000000000000.js')).statusCode).toBe(404);
  });

  it('stays out of the OpenAPI document', async () => {
    const doc = (await get('/openapi.json')).json() as { paths: Record<string, unknown> };
    expect(Object.keys(doc.paths).filter((path) => path.includes('chat-embed'))).toEqual([]);
  });
});

describe('chat-embed.js without a build', () => {
  let t: TestContext;
  beforeAll(async () => {
    t = await createTestContext('sqlite', { deps: { webAssets: createWebAssets(['/nonexistent/dist/web']) } });
  });
  afterAll(async () => t.close());

  it('answers 503 saying to build', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/chat-embed.js' });
    expect(res.statusCode).toBe(503);
    expect(res.json()).toMatchObject({ code: 'SERVICE_UNAVAILABLE', error: expect.stringContaining('npm run build') });
  });
});
