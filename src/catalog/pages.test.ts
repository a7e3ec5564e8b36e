import { gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestContext, testDialects, type TestContext } from '../../test/support/context.js';
import { createDeveloperWithApp, developerSession, getAccessToken } from '../../test/support/factories.js';
import { createTool, fixedResolver, publishTool } from '../../test/support/tools-factories.js';
import { TOOL_CATEGORIES } from '../tools/definition.js';
import type { ToolRecord } from '../tools/schema.js';
import { CATEGORY_LABELS } from './pages-html.js';

type Session = Awaited<ReturnType<typeof developerSession>>;

/** Markup a developer might type: it must reach the page as text, never as elements or attributes. */
const MARKUP = '<script>alert(1)</script><img src=x onerror="alert(2)"> & \'quotes\'';

describe.each(testDialects())('public catalog pages on %s', (dialect) => {
  let t: TestContext;
  let alice: Session;
  let mallory: { auth: Record<string, string>; name: string };
  const tools: Record<string, ToolRecord> = {};

  beforeAll(async () => {
    t = await createTestContext(dialect, { deps: { resolveHost: fixedResolver() } });
    alice = await developerSession(t.database, t.clock, t.app);
    const sly = await createDeveloperWithApp(t.database, t.clock, { name: `Mal <b>lory</b>` });
    mallory = { auth: { authorization: `Bearer ${await getAccessToken(t.app, sly.app)}` }, name: sly.developer.name };
    const specs: Array<[string, Record<string, string>, Record<string, unknown>, boolean]> = [
      ['lookup', alice.auth, { name: 'crm_lookup', category: 'crm', description: 'Finds a CRM contact by email.', authType: 'api_key', apiKeyHeader: 'X-Crm-Key' }, true],
      ['draft', alice.auth, { name: 'secret_draft', category: 'crm', description: 'A draft nobody else may see.' }, false],
      ['invoice', alice.auth, { name: 'send_invoice', category: 'finance', description: 'Sends an invoice by email.', endpoint: 'https://tools.example.net:8443/v1/invoice?key=s3cret', authType: 'basic' }, true],
      [
        'evil',
        mallory.auth,
        { name: 'evil_tool', category: 'other', description: MARKUP, parameters: [{ name: 'x', type: 'array', items: 'string', description: MARKUP, required: true }] },
        true,
      ],
    ];
    for (const [key, auth, spec, publish] of specs) {
      t.clock.advance(1000);
      const tool = await createTool(t.app, auth, spec);
      tools[key] = publish ? await publishTool(t.app, auth, tool.id) : tool;
    }
  });
  afterAll(async () => t.close());

  const get = (url: string, headers: Record<string, string> = {}) => t.app.inject({ method: 'GET', url, headers });

  /** What every answer of these routes is: an HTML page under a CSP without any script, never JSON. */
  function expectPage(res: Awaited<ReturnType<typeof get>>, status: number): string {
    expect(res.statusCode).toBe(status);
    expect(res.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(res.headers['x-content-type-options']).toBe('nosniff');
    expect(res.headers['referrer-policy']).toBe('strict-origin-when-cross-origin');
    const csp = String(res.headers['content-security-policy']);
    expect(csp).toContain("default-src 'none'");
    expect(csp).not.toContain('script-src');
    expect(csp).toMatch(/style-src 'sha256-[A-Za-z0-9+/=]+'/);
    expect(res.body).toMatch(/^<!doctype html>\n<html lang="en">/);
    expect(res.body).not.toContain('<script');
    expect(res.body).toContain('<main id="main"');
    expect(res.body).toContain('<a class="skip" href="#main">Skip to content</a>');
    return res.body;
  }

  it('lists the published tools with a link to each, their description, category, developer, credentials and host', async () => {
    const html = expectPage(await get('/catalog'), 200);
    expect(html).toContain('<title>All tools · Switchboard tool catalog</title>');
    expect(html).toContain(`<a href="/catalog/${tools.lookup!.id}">crm_lookup</a>`);
    expect(html).toContain('Finds a CRM contact by email.');
    expect(html).toContain('<dt>Category</dt><dd>CRM</dd>');
    expect(html).toContain(`<dt>Developer</dt><dd>${alice.developer.name}</dd>`);
    expect(html).toContain('<dt>Credentials</dt><dd>Username and password</dd>');
    expect(html).toContain('<dt>Calls</dt><dd>tools.example.net:8443</dd>');
    for (const hidden of ['secret_draft', 's3cret', '/v1/invoice', alice.developer.email]) expect(html).not.toContain(hidden);
  });

  it('has a search form: a labelled text box and every category, labelled, in a select', async () => {
    const html = expectPage(await get('/catalog?q=invoice&category=finance'), 200);
    expect(html).toContain('<form method="get" action="/catalog" role="search" aria-label="Search the catalog">');
    expect(html).toContain('<label for="q">Search names and descriptions</label><input type="search" id="q" name="q" maxlength="100" value="invoice">');
    expect(html).toContain('<label for="category">Category</label>');
    for (const category of TOOL_CATEGORIES) expect(html).toMatch(new RegExp(`<option value="${category}"( selected)?>${CATEGORY_LABELS[category]}</option>`));
    expect(html).toContain('<option value="finance" selected>Finance</option>');
    expect(html).toContain('<title>Tools: “invoice” in Finance · Switchboard tool catalog</title>');
  });

  it.each([
    ['?q=invoice', ['send_invoice']],
    ['?category=crm', ['crm_lookup']],
    ['?q=EMAIL&category=finance', ['send_invoice']],
    ['?q=&category=', ['evil_tool', 'send_invoice', 'crm_lookup']],
    ['?q=+++', ['evil_tool', 'send_invoice', 'crm_lookup']],
  ])('searches %s through the catalog API’s filters', async (query, expected) => {
    const html = expectPage(await get(`/catalog${query}`), 200);
    const names = [...html.matchAll(/<h3><a href="\/catalog\/tool_\w+">(\w+)<\/a><\/h3>/g)].map((m) => m[1]);
    expect(names).toEqual(expected);
  });

  it('says what to do when nothing matches', async () => {
    const html = expectPage(await get('/catalog?q=zebra&category=payments'), 200);
    expect(html).toContain('No published tool matching “zebra” in Payments.');
    expect(html).toContain('Try other or fewer words, choose “All categories”, or <a href="/catalog">see every tool</a>.');
  });

  it('pages through the API’s cursor with a Next page link that keeps the search', async () => {
    for (let i = 0; i < 21; i++) {
      t.clock.advance(1000);
      await publishTool(t.app, alice.auth, (await createTool(t.app, alice.auth, { name: `filler_${i}`, category: 'data', description: 'Filler for paging.' })).id);
    }
    const first = expectPage(await get('/catalog?category=data&q=filler'), 200);
    expect(first).toContain('The first 20 tools, newest first.');
    const next = /<a href="(\/catalog\?q=filler&amp;category=data&amp;cursor=[\w-]+)" rel="next">Next page<\/a>/.exec(first);
    expect(next).not.toBeNull();
    const second = expectPage(await get(next![1]!.replaceAll('&amp;', '&')), 200);
    expect(second).toContain('1 tool more, newest first.');
    expect(second).toContain('>filler_0</a>');
    expect(second).not.toContain('>filler_1</a>');
    expect(second).not.toContain('rel="next"');
  });

  it('shows a tool: description, category, developer, endpoint host and method, credentials in words, parameters, version, date, and how to enable it', async () => {
    const tool = tools.lookup!;
    const html = expectPage(await get(`/catalog/${tool.id}`), 200);
    expect(html).toContain('<title>crm_lookup · Switchboard tool catalog</title>');
    expect(html).toContain('<h1>crm_lookup</h1><p>Finds a CRM contact by email.</p>');
    expect(html).toContain('<dt>Category</dt><dd><a href="/catalog?category=crm">CRM</a></dd>');
    expect(html).toContain(`<dt>Developer</dt><dd>${alice.developer.name}</dd>`);
    expect(html).toContain('<dt>Endpoint</dt><dd>POST to <code>api.example.com</code> (HTTPS)</dd>');
    expect(html).toContain('An API key from the tool&#39;s vendor, which Switchboard sends in the X-Crm-Key header of every call.');
    expect(html).toContain('<dt>Version</dt><dd>1</dd>');
    expect(html).toContain(`<time datetime="${tool.publishedAt}">`);
    expect(html).toContain('<th scope="row"><code>weightKg</code></th><td>number</td><td>Yes</td><td>Parcel weight in kilograms.</td>');
    expect(html).toContain('<a href="/app/tools/catalog?q=crm_lookup">Tools › Add a tool</a>');
    expect(html).toContain('curl -X POST http://localhost:3000/api/org/installations');
    expect(html).toContain(`-d &#39;{&quot;toolId&quot;:&quot;${tool.id}&quot;,&quot;credentials&quot;:{&quot;apiKey&quot;:&quot;…&quot;}}&#39;`);
  });

  it('renders a developer’s markup inert: description, parameter descriptions and display name are text', async () => {
    const escaped = '&lt;script&gt;alert(1)&lt;/script&gt;&lt;img src=x onerror=&quot;alert(2)&quot;&gt; &amp; &#39;quotes&#39;';
    const page = expectPage(await get(`/catalog/${tools.evil!.id}`), 200);
    const list = expectPage(await get('/catalog?category=other'), 200);
    for (const html of [page, list]) {
      expect(html).not.toMatch(/<img|<b>|onerror="/);
      expect(html).toContain(escaped);
      expect(html).toContain('Mal &lt;b&gt;lory&lt;/b&gt;');
    }
    expect(page).toContain(`<td>array of string</td><td>Yes</td><td>${escaped}</td>`);
  });

  it('answers with an ETag and no-cache, 304 when unchanged, and a changed page at once after a tool is withdrawn', async () => {
    const tool = await publishTool(t.app, alice.auth, (await createTool(t.app, alice.auth, { name: 'come_and_go', category: 'support' })).id);
    const list = await get('/catalog?category=support');
    const one = await get(`/catalog/${tool.id}`);
    for (const [url, res] of [['/catalog?category=support', list], [`/catalog/${tool.id}`, one]] as const) {
      expect(res.headers['cache-control']).toBe('no-cache');
      expect(res.headers.etag).toMatch(/^"[\w-]{22}"$/);
      const again = await get(url, { 'if-none-match': String(res.headers.etag) });
      expect(again.statusCode).toBe(304);
      expect(again.body).toBe('');
    }
    await t.app.inject({ method: 'POST', url: `/api/dev/tools/${tool.id}/unpublish`, headers: alice.auth });
    const after = await get('/catalog?category=support', { 'if-none-match': String(list.headers.etag) });
    expect(expectPage(after, 200)).not.toContain('come_and_go');
    expectPage(await get(`/catalog/${tool.id}`, { 'if-none-match': String(one.headers.etag) }), 404);
  });

  it('compresses for a client that accepts gzip', async () => {
    const res = await get('/catalog', { 'accept-encoding': 'gzip' });
    expect(res.headers['content-encoding']).toBe('gzip');
    expect(res.headers.vary).toBe('Accept-Encoding');
    expect(gunzipSync(res.rawPayload).toString()).toContain('<h1>Tool catalog</h1>');
  });

  it.each([
    ['/catalog?category=games', 400, 'There is no category “games”. Choose one of: CRM, Sales,'],
    [`/catalog?q=${'a'.repeat(101)}`, 400, 'The search is too long: use at most 100 characters.'],
    [`/catalog?q=${'é'.repeat(100)}`, 200, 'No published tool matching'],
    ['/catalog?cursor=%25%25%25', 400, 'The cursor is not valid. Use the nextCursor of a previous page.'],
    ['/catalog?q=a&q=b', 400, 'Give “q” once.'],
    ['/catalog?q=a%00b', 400, 'The search contains a control character (tabs and line breaks are not allowed here).'],
    ['/catalog?q=%zz', 200, 'No published tool matching “%zz”.'],
    ['/catalog/not-a-tool', 400, 'That is not a tool id: tool ids look like tool_'],
    ['/catalog/tool_00000000000000000000', 404, 'No published tool has that id. Its developer may have withdrawn it, or the link may be mistyped.'],
  ])('answers %s with a %i page that says what happened', async (url, status, message) => {
    const res = await get(url);
    const html = expectPage(res, status);
    expect(html).toContain(message);
    if (status === 200) return;
    expect(res.headers['cache-control']).toBe('no-store');
    expect(html).toContain('<a href="/catalog">Back to the tool catalog</a>');
  });

  it('answers a draft with the same 404 page as a missing tool', async () => {
    const draft = await get(`/catalog/${tools.draft!.id}`);
    const missing = await get('/catalog/tool_00000000000000000000');
    expectPage(draft, 404);
    expect(draft.body).toBe(missing.body);
    expect(draft.body).not.toContain('secret_draft');
  });

  it('escapes the search as typed, in the box, the title and the empty message', async () => {
    const html = expectPage(await get(`/catalog?q=${encodeURIComponent('"><svg onload=alert(1)>')}`), 200);
    expect(html).not.toContain('<svg');
    expect(html).toContain('value="&quot;&gt;&lt;svg onload=alert(1)&gt;"');
  });
});
