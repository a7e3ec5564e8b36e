import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestContext, type TestContext } from '../../test/support/context.js';
import { createForm } from '../../test/support/form-factories.js';
import { createOrgWithKey } from '../../test/support/org-factories.js';
import { createWebAssets, pickEncoding } from './web-assets.js';

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
