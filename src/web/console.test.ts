import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { brotliCompressSync, brotliDecompressSync, gunzipSync, gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestContext, type TestContext } from '../../test/support/context.js';
import { createConsoleFiles } from './console-files.js';
import { CONSOLE_CSP } from './console-routes.js';

const INDEX = '<!doctype html><html lang="en"><head><title>Switchboard</title><script type="module" src="/app/assets/index-Ab12Cd34.js"></script></head><body><div id="root"></div></body></html>';
const SCRIPT = `console.log(${JSON.stringify('x'.repeat(2000))});\n`;

describe('the console under /app', () => {
  let t: TestContext;
  let bare: TestContext;
  let dir: string;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'switchboard-console-'));
    mkdirSync(join(dir, 'assets'));
    writeFileSync(join(dir, 'index.html'), INDEX);
    writeFileSync(join(dir, 'assets', 'index-Ab12Cd34.js'), SCRIPT);
    // The compressed copies the build writes beside each text file (scripts/precompress.mjs).
    writeFileSync(join(dir, 'assets', 'index-Ab12Cd34.js.br'), brotliCompressSync(SCRIPT));
    writeFileSync(join(dir, 'assets', 'index-Ab12Cd34.js.gz'), gzipSync(SCRIPT));
    writeFileSync(join(dir, 'index.html.br'), brotliCompressSync(INDEX));
    writeFileSync(join(dir, 'index.html.gz'), gzipSync(INDEX));
    writeFileSync(join(dir, 'favicon.svg'), '<svg xmlns="http://www.w3.org/2000/svg"/>');
    t = await createTestContext('sqlite', { deps: { consoleFiles: createConsoleFiles(dir) } });
    bare = await createTestContext('sqlite', { deps: { consoleFiles: createConsoleFiles(join(dir, 'nowhere')) } });
  });
  afterAll(async () => {
    await t.close();
    await bare.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('leads / to /app/', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/' });
    expect(res.statusCode).toBe(302);
    expect(res.headers.location).toBe('/app/');
  });

  it.each(['/app', '/app/', '/app/signin', '/app/forms/frm_123/submissions', '/app/index.html'])('answers %s with index.html, not cached, under a strict CSP', async (url) => {
    const res = await t.app.inject({ method: 'GET', url });
    expect(res.statusCode).toBe(200);
    expect(res.body).toBe(INDEX);
    expect(res.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(res.headers['cache-control']).toBe('no-cache');
    expect(res.headers['content-security-policy']).toBe(CONSOLE_CSP);
    expect(res.headers['x-frame-options']).toBe('DENY');
  });

  it('answers index.html compressed as accepted, with an ETag and 304 while it is current', async () => {
    const plain = await t.app.inject({ method: 'GET', url: '/app/contacts' });
    expect(plain.headers.etag).toMatch(/^"[\w-]{22}"$/);
    expect(plain.headers.vary).toBe('Accept-Encoding');
    const br = await t.app.inject({ method: 'GET', url: '/app/contacts', headers: { 'accept-encoding': 'gzip, br' } });
    expect(br.headers['content-encoding']).toBe('br');
    expect(brotliDecompressSync(br.rawPayload).toString()).toBe(INDEX);
    const gz = await t.app.inject({ method: 'GET', url: '/app/', headers: { 'accept-encoding': 'gzip' } });
    expect(gunzipSync(gz.rawPayload).toString()).toBe(INDEX);
    const again = await t.app.inject({ method: 'GET', url: '/app/forms', headers: { 'if-none-match': String(plain.headers.etag) } });
    expect(again.statusCode).toBe(304);
    expect(again.headers['content-security-policy']).toBe(CONSOLE_CSP);
  });

  it('serves hashed assets immutable, brotli or gzip as accepted, with 304 on a matching ETag', async () => {
    const url = '/app/assets/index-Ab12Cd34.js';
    const plain = await t.app.inject({ method: 'GET', url });
    expect(plain.statusCode).toBe(200);
    expect(plain.body).toBe(SCRIPT);
    expect(plain.headers['cache-control']).toBe('public, max-age=31536000, immutable');
    expect(plain.headers['content-type']).toBe('text/javascript; charset=utf-8');
    expect(plain.headers.vary).toBe('Accept-Encoding');
    const br = await t.app.inject({ method: 'GET', url, headers: { 'accept-encoding': 'gzip, deflate, br' } });
    expect(br.headers['content-encoding']).toBe('br');
    expect(brotliDecompressSync(br.rawPayload).toString()).toBe(SCRIPT);
    expect(br.rawPayload.length).toBeLessThan(200);
    const gz = await t.app.inject({ method: 'GET', url, headers: { 'accept-encoding': 'gzip' } });
    expect(gz.headers['content-encoding']).toBe('gzip');
    expect(gunzipSync(gz.rawPayload).toString()).toBe(SCRIPT);
    const again = await t.app.inject({ method: 'GET', url, headers: { 'if-none-match': String(plain.headers.etag) } });
    expect(again.statusCode).toBe(304);
  });

  it('answers 404 for an asset that is not in the build, and serves other build files for an hour', async () => {
    const missing = await t.app.inject({ method: 'GET', url: '/app/assets/index-Old00000.js' });
    expect(missing.statusCode).toBe(404);
    expect((await t.app.inject({ method: 'GET', url: '/app/assets/../index.html' })).statusCode).not.toBe(500);
    const icon = await t.app.inject({ method: 'GET', url: '/app/favicon.svg' });
    expect(icon.headers['content-type']).toBe('image/svg+xml');
    expect(icon.headers['cache-control']).toBe('public, max-age=3600');
  });

  it('says to run npm run build when the console is not built', async () => {
    const res = await bare.app.inject({ method: 'GET', url: '/app/forms' });
    expect(res.statusCode).toBe(503);
    expect(res.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(res.body).toContain('npm run build');
  });
});
