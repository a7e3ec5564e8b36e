import { createHash } from 'node:crypto';
import { gunzipSync, brotliDecompressSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestContext, testDialects, type TestContext } from '../../test/support/context.js';
import { countWrites, createAgent, createCustomField, createForm, nextClientIp, type FormRecordJson } from '../../test/support/form-factories.js';
import { createOrgWithKey, type OrgWithKey } from '../../test/support/org-factories.js';

const XSS = '<img src=x onerror=alert(1)></script><script>alert(2)</script>';

describe.each(testDialects())('hosted page /f/{slug} on %s', (dialect) => {
  let t: TestContext;
  let org: OrgWithKey;
  let form: FormRecordJson;

  beforeAll(async () => {
    t = await createTestContext(dialect);
    org = await createOrgWithKey(t.database, t.clock);
    const agent = await createAgent(t.app, org, { name: `Brand ${XSS}` });
    const plan = await createCustomField(t.app, org, { key: 'plan', label: `Plan ${XSS}`, type: 'select', options: ['basic', `pro ${XSS}`] });
    form = await createForm(t.app, org, {
      title: `Book ${XSS}`,
      consentText: `I agree ${XSS}`,
      successMessage: `Thanks ${XSS}`,
      agentId: agent.id,
      customFields: [{ key: plan.key }],
      fields: { name: { enabled: true, required: true } },
    });
  });
  afterAll(async () => t.close());

  const get = (url: string, headers: Record<string, string> = {}, ip = nextClientIp()) => t.app.inject({ method: 'GET', url, headers, remoteAddress: ip });
  const post = (slug: string, fields: Record<string, string>, ip = nextClientIp(), query = '') =>
    t.app.inject({
      method: 'POST',
      url: `/f/${slug}${query}`,
      remoteAddress: ip,
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: new URLSearchParams(fields).toString(),
    });
  const contacts = (email: string) => t.database.db.selectFrom('contacts').selectAll().where('org_id', '=', org.orgId).where('email', '=', email).execute();

  it('serves the form as HTML with strict headers, the config inlined, and every operator string as text', async () => {
    const res = await get(`/f/${form.slug}`);
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(res.headers['x-content-type-options']).toBe('nosniff');
    expect(res.headers['referrer-policy']).toBe('strict-origin-when-cross-origin');
    expect(res.headers['x-frame-options']).toBeUndefined();
    const csp = String(res.headers['content-security-policy']);
    for (const part of ["default-src 'none'", "script-src 'self'", 'img-src https: data:', "connect-src 'self'", "form-action 'self'", 'frame-ancestors *', "base-uri 'none'"]) {
      expect(csp).toContain(part);
    }
    expect(csp).not.toContain('unsafe');
    const html = res.body;
    // The one inline style is the one the CSP's hash allows.
    const style = /<style>([\s\S]*?)<\/style>/.exec(html)![1]!;
    expect(csp).toContain(`'sha256-${createHash('sha256').update(style).digest('base64')}'`);
    expect(html.match(/<script/g)).toHaveLength(2); // the JSON config and the page script, nothing inline to run
    expect(html).toMatch(/<script defer src="\/assets\/form-page\.[0-9a-f]{12}\.js"><\/script>/);
    expect(html).toMatch(/<link rel="stylesheet" href="\/assets\/form\.[0-9a-f]{12}\.css">/);
    expect(html).not.toContain('<img src=x');
    expect(html).not.toContain('<script>alert');
    expect(html).toContain('Book &lt;img src=x onerror=alert(1)&gt;&lt;/script&gt;');
    const json = /<script type="application\/json" id="svc-form-config">([\s\S]*?)<\/script>/.exec(html)![1]!;
    expect(json).not.toContain('<');
    expect(JSON.parse(json)).toMatchObject({ slug: form.slug, title: `Book ${XSS}`, consentText: `I agree ${XSS}` });
    expect(html).toContain(`<form method="post" action="/f/${form.slug}" aria-labelledby="sf-t">`);
    expect(html).toContain('<h1 class="sf-title" id="sf-t">');
    expect(html).toContain('name="_hp"');
    expect(html).toContain('<input type="hidden" name="consentVersion" value="1">');
    expect(html).toContain(`<option value="pro &lt;img src=x onerror=alert(1)&gt;&lt;/script&gt;&lt;script&gt;alert(2)&lt;/script&gt;">`);
    expect(html).toContain('autocomplete="email"');
  });

  it('is cacheable: an ETag tied to the config, 304 on If-None-Match, gzip and brotli', async () => {
    const first = await get(`/f/${form.slug}`);
    const etag = String(first.headers.etag);
    expect(first.headers['cache-control']).toBe('no-cache');
    expect(first.headers.vary).toBe('Accept-Encoding');
    const again = await get(`/f/${form.slug}`, { 'if-none-match': etag });
    expect(again.statusCode).toBe(304);
    const gz = await get(`/f/${form.slug}`, { 'accept-encoding': 'gzip, deflate' });
    expect(gz.headers['content-encoding']).toBe('gzip');
    expect(gunzipSync(gz.rawPayload).toString()).toBe(first.body);
    const br = await get(`/f/${form.slug}`, { 'accept-encoding': 'gzip, br' });
    expect(br.headers['content-encoding']).toBe('br');
    expect(brotliDecompressSync(br.rawPayload).toString()).toBe(first.body);
    // An edit gives a new ETag.
    await t.app.inject({ method: 'PATCH', url: `/api/org/forms/${form.id}`, headers: org.auth, payload: { successMessage: `Thanks ${XSS}!` } });
    const edited = await get(`/f/${form.slug}`, { 'if-none-match': etag });
    expect(edited.statusCode).toBe(200);
    expect(edited.headers.etag).not.toBe(etag);
  });

  it('?embed=1 drops the chrome: transparent background, data-embed for the resize script, posts back to the embed', async () => {
    const res = await get(`/f/${form.slug}?embed=1`);
    expect(res.statusCode).toBe(200);
    expect(res.body).toContain('<html lang="en" data-embed>');
    expect(res.body).toContain('background:transparent');
    expect(res.body).toContain(`action="/f/${form.slug}?embed=1"`);
    expect(res.headers.etag).not.toBe((await get(`/f/${form.slug}`)).headers.etag);
  });

  it('carries utm_* of the page URL through the no-JS post', async () => {
    const res = await get(`/f/${form.slug}?utm_source=news&utm_campaign=%3Cb%3E&other=x`);
    expect(res.body).toContain('<input type="hidden" name="utm_source" value="news">');
    expect(res.body).toContain('<input type="hidden" name="utm_campaign" value="&lt;b&gt;">');
    expect(res.body).not.toContain('name="other"');
  });

  it('answers a 404 page for an unknown or inactive form', async () => {
    const res = await get('/f/no-such-form-here');
    expect(res.statusCode).toBe(404);
    expect(res.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(res.body).toContain('Form not found');
    const inactive = await createForm(t.app, org, { active: false });
    expect((await get(`/f/${inactive.slug}`)).statusCode).toBe(404);
  });

  it('limits page loads to 60 a minute per client IP and slug: a 429 page with Retry-After, and no view counted', async () => {
    const limited = await createForm(t.app, org);
    const ip = nextClientIp();
    const first = await get(`/f/${limited.slug}`, {}, ip);
    expect(first.statusCode).toBe(200);
    expect(first.headers['ratelimit-limit']).toBe('60');
    expect(first.headers['ratelimit-remaining']).toBe('59');
    // The embed and a revalidation spend the same budget.
    for (let i = 2; i <= 60; i++) {
      const revalidation = i % 3 === 0;
      const res = revalidation
        ? await get(`/f/${limited.slug}`, { 'if-none-match': String(first.headers.etag) }, ip)
        : await get(`/f/${limited.slug}${i % 2 ? '?embed=1' : ''}`, {}, ip);
      expect(res.statusCode).toBe(revalidation ? 304 : 200);
    }
    for (const headers of [{}, { 'if-none-match': String(first.headers.etag) }] as Record<string, string>[]) {
      const refused = await get(`/f/${limited.slug}`, headers, ip);
      expect(refused.statusCode).toBe(429);
      expect(refused.headers['content-type']).toBe('text/html; charset=utf-8');
      expect(refused.headers['cache-control']).toBe('no-store');
      expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0);
      expect(refused.headers['ratelimit-remaining']).toBe('0');
      expect(refused.body).toContain('Too many requests for this form from your network.');
      expect(refused.body).not.toContain('svc-form-config');
    }
    // Only the 60 pages served were counted as views.
    expect((await t.app.inject({ method: 'GET', url: `/api/org/forms/${limited.id}`, headers: org.auth })).json().data.views).toBe(60);
    // Another IP, or the same IP on another form, has its own budget; the next minute starts afresh.
    expect((await get(`/f/${limited.slug}`)).statusCode).toBe(200);
    expect((await get(`/f/${(await createForm(t.app, org)).slug}`, {}, ip)).statusCode).toBe(200);
    t.clock.advance(60_000);
    expect((await get(`/f/${limited.slug}`, {}, ip)).statusCode).toBe(200);
  });

  describe('POST /f/{slug} without JavaScript', () => {
    it('creates the lead through the submit rules and answers the success page; a double post makes one lead', async () => {
      const ip = nextClientIp();
      const fields = { name: 'Ada', email: 'ada.nojs@example.com', consent: 'on', consentVersion: '1', _hp: '', utm_source: 'news', [`custom.plan`]: 'basic' };
      const before = await countWrites(t.database, org.orgId);
      const first = await post(form.slug, fields, ip);
      expect(first.statusCode).toBe(200);
      expect(first.headers['content-type']).toBe('text/html; charset=utf-8');
      expect(first.body).toContain('Thanks &lt;img');
      const second = await post(form.slug, fields, ip);
      expect(second.statusCode).toBe(200);
      const after = await countWrites(t.database, org.orgId);
      expect(after.submissions - before.submissions).toBe(1);
      const [contact] = await contacts('ada.nojs@example.com');
      expect(contact).toMatchObject({ name: 'Ada', source: 'form' });
      const submission = await t.database.db.selectFrom('submissions').selectAll().where('contact_id', '=', contact!.id).executeTakeFirstOrThrow();
      expect(JSON.parse(submission.metadata)).toEqual({ utm_source: 'news' });
    });

    it('redirects with 303 to the form\'s redirectUrl', async () => {
      const redirecting = await createForm(t.app, org, { redirectUrl: 'https://acme.example/thanks' });
      const page = await get(`/f/${redirecting.slug}`);
      expect(page.headers['content-security-policy']).toContain("form-action 'self' https://acme.example");
      const res = await post(redirecting.slug, { email: 'redirect@example.com', consent: 'on', consentVersion: '1' });
      expect(res.statusCode).toBe(303);
      expect(res.headers.location).toBe('https://acme.example/thanks');
    });

    it('shows the form again with the errors marked, the values kept and a summary at the top; writes nothing', async () => {
      const before = await countWrites(t.database, org.orgId);
      const res = await post(form.slug, { name: 'Grace <b>', email: 'not-an-email', consent: 'on', consentVersion: '1' });
      expect(res.statusCode).toBe(400);
      expect(res.body).toContain('value="Grace &lt;b&gt;"');
      expect(res.body).toMatch(/<input class="sf-in" type="email" id="(sf-\d+)" name="email" aria-invalid="true" aria-describedby="\1e"/);
      expect(res.body).toContain('class="sf-msg sf-sum" role="alert"');
      expect(res.body).toContain('data-errors');
      expect(await countWrites(t.database, org.orgId)).toEqual(before);

      const noConsent = await post(form.slug, { name: 'Grace', email: 'grace@example.com', consentVersion: '1' });
      expect(noConsent.statusCode).toBe(400);
      expect(noConsent.body).toMatch(/type="checkbox" value="on" id="sf-\d+" name="consent" required aria-required="true" aria-invalid="true"/);

      const missingName = await post(form.slug, { email: 'grace@example.com', consent: 'on', consentVersion: '1' });
      expect(missingName.statusCode).toBe(400);
      expect(missingName.body).toMatch(/name="name" required aria-required="true" aria-invalid="true"/);
      expect(missingName.body).toContain('value="grace@example.com"');
    });

    it('a consent text changed meanwhile: the new text, unticked, everything else kept', async () => {
      const changing = await createForm(t.app, org, { consentText: 'Old text' });
      await t.app.inject({ method: 'PATCH', url: `/api/org/forms/${changing.id}`, headers: org.auth, payload: { consentText: 'New text' } });
      const res = await post(changing.slug, { email: 'consent@example.com', consent: 'on', consentVersion: '1' });
      expect(res.statusCode).toBe(400);
      expect(res.body).toContain('New text');
      expect(res.body).toContain('<input type="hidden" name="consentVersion" value="2">');
      expect(res.body).toMatch(/name="consent" required aria-required="true" aria-invalid="true"[^>]*>/);
      expect(res.body).not.toMatch(/name="consent"[^>]* checked/);
      expect(res.body).toContain('value="consent@example.com"');
    });

    it('a honeypot hit gets the generic thanks and writes nothing', async () => {
      const before = await countWrites(t.database, org.orgId);
      const res = await post(form.slug, { name: 'Bot', email: 'bot@example.com', consent: 'on', consentVersion: '1', _hp: 'spam' });
      expect(res.statusCode).toBe(200);
      expect(await countWrites(t.database, org.orgId)).toEqual(before);
    });

    it('shares the submit API\'s rate limit, as a page with Retry-After', async () => {
      const limited = await createForm(t.app, org);
      const ip = nextClientIp();
      let res = await post(limited.slug, { email: 'x@example.com' }, ip);
      for (let i = 0; i < 12 && res.statusCode !== 429; i++) res = await post(limited.slug, { email: 'x@example.com' }, ip);
      expect(res.statusCode).toBe(429);
      expect(res.headers['retry-after']).toMatch(/^\d+$/);
      expect(res.headers['content-type']).toBe('text/html; charset=utf-8');
      expect(res.body).toContain('Too many');
    });

    it('refuses bytes that are not UTF-8, percent-encoded or raw, with a 400 page that says so, and writes nothing', async () => {
      const before = await countWrites(t.database, org.orgId);
      const fields = 'email=bytes.nojs%40example.com&consent=on&consentVersion=1&name=';
      for (const payload of [`${fields}Caf%C3%28`, Buffer.concat([Buffer.from(`${fields}Caf`), Buffer.from([0xc3, 0x28])])]) {
        const res = await t.app.inject({ method: 'POST', url: `/f/${form.slug}`, remoteAddress: nextClientIp(), headers: { 'content-type': 'application/x-www-form-urlencoded' }, payload });
        expect(res.statusCode).toBe(400);
        expect(res.headers['content-type']).toBe('text/html; charset=utf-8');
        expect(res.body).toMatch(/not valid UTF-8/);
      }
      expect(await countWrites(t.database, org.orgId)).toEqual(before);
      expect(await contacts('bytes.nojs@example.com')).toEqual([]);
      // A real "é" (%C3%A9) is of course fine.
      const ok = await post(form.slug, { name: 'Café', email: 'bytes.nojs@example.com', consent: 'on', consentVersion: '1' });
      expect(ok.statusCode).toBe(200);
      expect((await contacts('bytes.nojs@example.com'))[0]?.name).toBe('Café');
    });

    it('refuses other content types with a page', async () => {
      const res = await t.app.inject({ method: 'POST', url: `/f/${form.slug}`, remoteAddress: nextClientIp(), headers: { 'content-type': 'application/json' }, payload: '{}' });
      expect(res.statusCode).toBe(415);
      expect(res.headers['content-type']).toBe('text/html; charset=utf-8');
      // A page in the page's words, not the API's ("Send application/json"), never cached.
      expect(res.headers['cache-control']).toBe('no-store');
      expect(res.headers['content-security-policy']).toMatch(/default-src 'none'/);
      expect(res.body).toContain('The request could not be read.');
      expect(res.body).not.toContain('application/json');
    });
  });

  describe('form-embed.js and the assets', () => {
    it('serves the plain URL for 5 minutes, the hashed one for a year, CORS open, compressed as asked', async () => {
      const plain = await get('/form-embed.js');
      expect(plain.statusCode).toBe(200);
      expect(plain.headers['content-type']).toBe('text/javascript; charset=utf-8');
      expect(plain.headers['access-control-allow-origin']).toBe('*');
      expect(plain.headers['cache-control']).toBe('public, max-age=300');
      expect(plain.headers.vary).toBe('Accept-Encoding');
      const gz = await get('/form-embed.js', { 'accept-encoding': 'gzip' });
      expect(gz.headers['content-encoding']).toBe('gzip');
      expect(gunzipSync(gz.rawPayload).toString()).toBe(plain.body);
      const br = await get('/form-embed.js', { 'accept-encoding': 'br;q=1, gzip;q=0.5' });
      expect(br.headers['content-encoding']).toBe('br');
      expect(brotliDecompressSync(br.rawPayload).toString()).toBe(plain.body);
      expect((await get('/form-embed.js', { 'if-none-match': String(plain.headers.etag) })).statusCode).toBe(304);

      const hash = createHash('sha256').update(plain.rawPayload).digest('hex').slice(0, 12);
      const hashed = await get(`/form-embed.${hash}.js`);
      expect(hashed.statusCode).toBe(200);
      expect(hashed.body).toBe(plain.body);
      expect(hashed.headers['cache-control']).toBe('public, max-age=31536000, immutable');
      expect((await get('/form-embed.000000000000.js')).statusCode).toBe(404);
    });

    it('serves the page\'s script and stylesheet under hashed names only', async () => {
      const html = (await get(`/f/${form.slug}`)).body;
      const script = /src="(\/assets\/form-page\.[0-9a-f]{12}\.js)"/.exec(html)![1]!;
      const css = /href="(\/assets\/form\.[0-9a-f]{12}\.css)"/.exec(html)![1]!;
      const js = await get(script);
      expect(js.statusCode).toBe(200);
      expect(js.headers['cache-control']).toBe('public, max-age=31536000, immutable');
      expect((await get(css)).headers['content-type']).toBe('text/css; charset=utf-8');
      expect((await get('/assets/manifest.json')).statusCode).toBe(404);
      expect((await get('/assets/..%2Fpackage.json')).statusCode).toBe(404);
    });

    it('keeps the HTML and JS routes out of the OpenAPI document', async () => {
      const doc = (await get('/openapi.json')).json() as { paths: Record<string, unknown> };
      expect(Object.keys(doc.paths).filter((path) => path.startsWith('/f/') || path.includes('form-embed') || path.startsWith('/assets'))).toEqual([]);
    });
  });
});
