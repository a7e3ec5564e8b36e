import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestContext, type TestContext } from '../../test/support/context.js';
import { createForm } from '../../test/support/form-factories.js';
import { createOrgWithKey } from '../../test/support/org-factories.js';
import { pickEncoding } from '../http/in-memory.js';
import { createWebAssets } from './web-assets.js';

describe('pickEncoding', () => {
  it('prefers brotli, then gzip, honours q=0, and sends identity otherwise', () => {
    expect(pickEncoding(undefined)).toBeNull();
    expect(pickEncoding('identity')).toBeNull();
    expect(pickEncoding('gzip, deflate, br')).toBe('br');
    expect(pickEncoding('gzip;q=0.8, br;q=0')).toBe('gzip');
    expect(pickEncoding('BR')).toBe('br');
    expect(pickEncoding('*')).toBe('gzip');
    expect(pickEncoding('deflate')).toBeNull();
  });
});

describe('without a build of the browser code', () => {
  let t: TestContext;
  beforeAll(async () => {
    t = await createTestContext('sqlite', { deps: { webAssets: createWebAssets(['/nonexistent/dist/web']) } });
  });
  afterAll(async () => t.close());

  it('the hosted page and form-embed.js answer 503 saying to build', async () => {
    const org = await createOrgWithKey(t.database, t.clock);
    const form = await createForm(t.app, org);
    const page = await t.app.inject({ method: 'GET', url: `/f/${form.slug}` });
    expect(page.statusCode).toBe(503);
    expect(page.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(page.body).toContain('npm run build');
    const script = await t.app.inject({ method: 'GET', url: '/form-embed.js' });
    expect(script.statusCode).toBe(503);
    expect(script.json()).toMatchObject({ code: 'SERVICE_UNAVAILABLE', error: expect.stringContaining('npm run build') });
    // The JSON API does not need the build.
    expect((await t.app.inject({ method: 'GET', url: `/api/public/forms/${form.slug}` })).statusCode).toBe(200);
  });
});

describe('the hashed files, answered from memory', () => {
  let t: TestContext;
  beforeAll(async () => {
    t = await createTestContext('sqlite');
  });
  afterAll(async () => t.close());

  it('sends the build\'s brotli or gzip copy as accepted, as text/javascript, with 304 on the ETag', async () => {
    const state = createWebAssets().load();
    if (!state.ok) throw new Error(state.message);
    const url = `/assets/${state.set.hashed('form-page.js').name}`;
    const plain = await t.app.inject({ method: 'GET', url });
    expect(plain.statusCode).toBe(200);
    expect(plain.headers['content-type']).toBe('text/javascript; charset=utf-8');
    expect(plain.headers['cache-control']).toBe('public, max-age=31536000, immutable');
    expect(plain.headers['access-control-allow-origin']).toBe('*');
    expect(plain.headers.vary).toBe('Accept-Encoding');
    expect(plain.headers['content-encoding']).toBeUndefined();
    const br = await t.app.inject({ method: 'GET', url, headers: { 'accept-encoding': 'gzip, br' } });
    expect(br.headers['content-encoding']).toBe('br');
    expect(br.headers['content-type']).toBe('text/javascript; charset=utf-8');
    expect(brotliDecompressSync(br.rawPayload).toString()).toBe(plain.body);
    const gz = await t.app.inject({ method: 'GET', url, headers: { 'accept-encoding': 'gzip' } });
    expect(gz.headers['content-encoding']).toBe('gzip');
    expect(gunzipSync(gz.rawPayload).toString()).toBe(plain.body);
    const again = await t.app.inject({ method: 'GET', url, headers: { 'if-none-match': String(plain.headers.etag) } });
    expect(again.statusCode).toBe(304);
    expect(again.body).toBe('');
  });

  it('serves the modules the embeds import on demand as the embeds themselves: any origin, a year, compressed', async () => {
    const state = createWebAssets().load();
    if (!state.ok) throw new Error(state.message);
    for (const [embed, module] of [['/form-embed.js', 'form-submit.js'], ['/chat-embed.js', 'chat-panel.js']] as const) {
      const name = state.set.hashed(module).name;
      // The embed names exactly this build's module.
      expect((await t.app.inject({ method: 'GET', url: embed })).body).toContain(`/assets/${name}`);
      const res = await t.app.inject({ method: 'GET', url: `/assets/${name}`, headers: { 'accept-encoding': 'br' } });
      expect(res.statusCode).toBe(200);
      expect(res.headers['content-type']).toBe('text/javascript; charset=utf-8');
      expect(res.headers['cache-control']).toBe('public, max-age=31536000, immutable');
      // A module script from another origin is fetched with CORS: without this header the import fails.
      expect(res.headers['access-control-allow-origin']).toBe('*');
      expect(res.headers['cross-origin-resource-policy']).toBe('cross-origin');
      expect(res.headers['x-content-type-options']).toBe('nosniff');
      expect(res.headers['content-encoding']).toBe('br');
      expect(brotliDecompressSync(res.rawPayload).toString()).toMatch(/^[\t\n\r -~]*export\{\w+ as (submitter|openChat)\};\n$/);
    }
  });

  it('answers an unknown hashed name with the JSON 404', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/assets/form-page.000000000000.js' });
    expect(res.statusCode).toBe(404);
    expect(res.json()).toMatchObject({ success: false, code: 'NOT_FOUND', error: expect.stringContaining('/form-embed.js') });
  });
});
