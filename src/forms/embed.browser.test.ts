import { mkdirSync, readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createRequire } from 'node:module';
import { join, resolve } from 'node:path';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { poll } from '../../test/support/browser.js';
import { createTestContext, type TestContext } from '../../test/support/context.js';
import { createAgent, createCustomField, createForm, type FormRecordJson } from '../../test/support/form-factories.js';
import { createOrgWithKey, type OrgWithKey } from '../../test/support/org-factories.js';

/**
 * The visitor's side in real Chromium (Debian's /usr/bin/chromium through playwright-core): the app
 * on one loopback port, a hostile host page on another (`* { all: unset }`, `div { display: none
 * !important }`, a CSP allowing only the app's origin for scripts and requests). Every request
 * that would leave loopback is aborted, and Chromium's background traffic is off.
 */
const CHROMIUM_ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'];
const XSS = '<img src=x onerror=alert(1)><script>alert(2)</script>"\'>';
const root = resolve(import.meta.dirname, '../..');
const axeSource = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');
/**
 * Each test loads its pages and waits on the app: with poll()'s 20 s (vitest's own expect.poll gives up after
 * 1 s, too soon for a submission on a loaded CI machine), a test needs more than Vitest's default 30 s there.
 */
const FLOW_TIMEOUT = 120_000;

/** What every page records from the start: CSP violations, svc-form events, messages from frames. */
const RECORDER = `
  window.__violations = []; window.__events = []; window.__messages = [];
  document.addEventListener('securitypolicyviolation', (e) => window.__violations.push(e.violatedDirective + ' ' + e.blockedURI), true);
  for (const name of ['svc-form:ready', 'svc-form:submitted', 'svc-form:error'])
    document.addEventListener(name, (e) => window.__events.push({ name, detail: e.detail }), true);
  window.addEventListener('message', (e) => window.__messages.push(e.data));
`;

describe('forms in Chromium', () => {
  let t: TestContext;
  let org: OrgWithKey;
  let app: string;
  let host: string;
  let hostServer: Server;
  let browser: Browser;
  let context: BrowserContext;
  const dialogs: string[] = [];

  beforeAll(async () => {
    t = await createTestContext('sqlite');
    org = await createOrgWithKey(t.database, t.clock);
    await t.app.listen({ port: 0, host: '127.0.0.1' });
    app = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`;

    hostServer = createServer((req, res) => {
      const url = new URL(req.url ?? '/', 'http://host');
      if (url.pathname === '/hostile.css') {
        res.writeHead(200, { 'content-type': 'text/css' });
        return res.end('* { all: unset } div { display: none !important } body { font: 40px/3 serif; color: red; letter-spacing: 9px }');
      }
      const slugs = (url.searchParams.get('slugs') ?? '').split(',').filter(Boolean);
      const body =
        url.pathname === '/iframe'
          ? `<iframe title="Contact form" src="${app}/f/${slugs[0]}?embed=1"></iframe>`
          : slugs.map((slug) => `<div data-svc-form="${slug}"></div>`).join('') + `<script async src="${app}/form-embed.js"></script>`;
      const hostile = url.searchParams.has('plain') ? '' : '<link rel="stylesheet" href="/hostile.css">';
      res.writeHead(200, {
        'content-type': 'text/html; charset=utf-8',
        'content-security-policy': `default-src 'none'; script-src ${app}; connect-src ${app}; frame-src ${app}; style-src 'self'; img-src https: data:`,
      });
      res.end(`<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Host page</title>${hostile}</head><body><main><h1>Host page</h1>${body}</main></body></html>`);
    });
    await new Promise<void>((done) => hostServer.listen(0, '127.0.0.1', done));
    host = `http://127.0.0.1:${(hostServer.address() as AddressInfo).port}`;

    browser = await chromium.launch({ executablePath: '/usr/bin/chromium', headless: true, args: CHROMIUM_ARGS });
    context = await newContext();
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await new Promise((done) => hostServer?.close(done));
    await t?.close();
  });

  async function newContext(options: Parameters<Browser['newContext']>[0] = {}): Promise<BrowserContext> {
    const created = await browser.newContext(options);
    // Loopback only: anything else is aborted before it leaves.
    await created.route('**/*', (route) => (/^(https?|wss?):\/\/127\.0\.0\.1[:/]/.test(route.request().url()) ? route.continue() : route.abort()));
    await created.addInitScript(RECORDER);
    return created;
  }

  async function newPage(from = context): Promise<Page> {
    const page = await from.newPage();
    page.on('dialog', (dialog) => {
      dialogs.push(dialog.message());
      void dialog.dismiss();
    });
    return page;
  }

  // Page-side code is given as strings: this file is typed for Node, without the DOM's globals.
  const violations = (page: Page) => page.evaluate<string[]>('window.__violations');
  const submissions = async (form: FormRecordJson) => {
    const res = await t.app.inject({ method: 'GET', url: `/api/org/forms/${form.id}/submissions`, headers: org.auth });
    return (res.json() as { data: { items: { contactId: string; opportunityId: string | null }[] } }).data.items;
  };
  const contactByEmail = async (email: string) => {
    const res = await t.app.inject({ method: 'GET', url: `/api/org/contacts?email=${encodeURIComponent(email)}`, headers: org.auth });
    return (res.json() as { data: { items: { email: string; name: string | null }[] } }).data.items.find((c) => c.email === email);
  };
  const leadForm = (extra: Record<string, unknown> = {}) => createForm(t.app, org, { createOpportunity: true, fields: { message: { enabled: true, required: false } }, ...extra });

  it('the hosted page renders, submits, and makes the contact, note and opportunity', async () => {
    const form = await leadForm({ successMessage: 'Thanks from the hosted page.' });
    const page = await newPage();
    await page.goto(`${app}/f/${form.slug}?utm_source=browser`);
    await page.getByLabel('Email').fill('hosted@example.com');
    await page.getByLabel('Message').fill('Call me');
    await page.getByLabel(/I agree/).check();
    await page.getByRole('button', { name: 'Submit' }).click();
    await poll(() => page.getByText('Thanks from the hosted page.').isVisible()).toBe(true);
    const [submission] = await submissions(form);
    expect(submission?.opportunityId).toMatch(/^opp_/);
    expect(await contactByEmail('hosted@example.com')).toBeDefined();
    const contact = (await t.app.inject({ method: 'GET', url: `/api/org/contacts/${submission!.contactId}`, headers: org.auth })).json().data;
    expect(contact.notes).toEqual([expect.objectContaining({ body: 'Call me' })]);
    expect(contact.opportunities).toEqual([expect.objectContaining({ id: submission!.opportunityId })]);
    expect(await violations(page)).toEqual([]);
    await page.close();
  }, FLOW_TIMEOUT);

  it('the iframe renders under a hostile host page, reports its height, and submits', async () => {
    const form = await leadForm();
    const page = await newPage();
    await page.goto(`${host}/iframe?slugs=${form.slug}`);
    await poll(() => page.evaluate<unknown[]>("window.__messages.filter((m) => m.type === 'svc-form:resize')")).toContainEqual({ type: 'svc-form:resize', slug: form.slug, height: expect.any(Number) });
    const frame = page.frameLocator('iframe');
    await frame.getByLabel('Email').fill('iframe@example.com');
    await frame.getByLabel(/I agree/).check();
    await frame.getByRole('button', { name: 'Submit' }).click();
    await poll(async () => (await submissions(form)).length).toBe(1);
    expect(await contactByEmail('iframe@example.com')).toBeDefined();
    expect(await violations(page)).toEqual([]);
    await page.close();
  }, FLOW_TIMEOUT);

  it('the native script: two slugs, one repeated, one added later, one config request per slug; events; one lead per double click', async () => {
    const [a, b, c] = [await leadForm(), await leadForm(), await leadForm()];
    const page = await newPage();
    const configRequests: string[] = [];
    page.on('request', (request) => {
      const match = /\/api\/public\/forms\/([a-z0-9-]+)$/.exec(request.url());
      if (match && request.method() === 'GET') configRequests.push(match[1]!);
    });
    await page.goto(`${host}/native?slugs=${a.slug},${b.slug},${a.slug}`);
    await poll(() => page.locator('[data-svc-form] >> internal:role=button[name="Submit"]').count()).toBe(3);
    await page.evaluate(`{ const div = document.createElement('div'); div.setAttribute('data-svc-form', '${c.slug}'); document.querySelector('main').append(div); }`);
    await poll(() => page.getByRole('button', { name: 'Submit' }).count()).toBe(4);
    expect(configRequests.sort()).toEqual([a.slug, b.slug, c.slug].sort());
    // The hostile CSS reached neither the host elements nor the forms.
    const box = await page.locator(`[data-svc-form="${b.slug}"]`).boundingBox();
    expect(box?.height).toBeGreaterThan(200);
    mkdirSync(join(root, 'test-artifacts'), { recursive: true });
    await page.screenshot({ path: join(root, 'test-artifacts/native-embed.png'), fullPage: true });

    const second = page.locator(`[data-svc-form="${b.slug}"]`);
    await second.getByLabel('Email').fill('native@example.com');
    await second.getByLabel(/I agree/).check();
    await second.getByRole('button', { name: 'Submit' }).dblclick();
    await poll(() => second.getByRole('status').textContent()).toContain('Thank you');
    expect(await submissions(b)).toHaveLength(1);
    expect(await contactByEmail('native@example.com')).toBeDefined();
    const events = await page.evaluate<{ name: string; detail: Record<string, unknown> }[]>('window.__events');
    expect(events.filter((e) => e.name === 'svc-form:ready')).toHaveLength(4);
    expect(events.filter((e) => e.name === 'svc-form:submitted')).toEqual([{ name: 'svc-form:submitted', detail: { slug: b.slug, successMessage: expect.any(String) } }]);
    expect(await violations(page)).toEqual([]);
    await page.close();
  }, FLOW_TIMEOUT);

  it('as the visitor sees them: a missing required field and an invalid email are marked and focused, nothing sent until fixed', async () => {
    const form = await leadForm({ fields: { name: { enabled: true, required: true }, message: { enabled: true, required: false } } });
    const page = await newPage();
    await page.goto(`${host}/native?slugs=${form.slug}`);
    const embed = page.locator(`[data-svc-form="${form.slug}"]`);
    const focused = (locator: typeof embed) => locator.evaluate((el: { getRootNode(): { activeElement: unknown } }) => el.getRootNode().activeElement === el);
    await embed.getByLabel(/I agree/).check();
    await embed.getByLabel('Email').fill('ada@example');
    await embed.getByRole('button', { name: 'Submit' }).click();
    // The browser's own check: the required name, focused first.
    const name = embed.getByLabel(/^Name/);
    await poll(() => name.getAttribute('aria-invalid')).toBe('true');
    expect(await focused(name)).toBe(true);
    await name.fill('Ada');
    // The server's check: "ada@example" passes the browser's email grammar but is not deliverable.
    await embed.getByRole('button', { name: 'Submit' }).click();
    const email = embed.getByLabel('Email');
    await poll(() => email.getAttribute('aria-invalid')).toBe('true');
    const describedBy = await email.getAttribute('aria-describedby');
    expect(await embed.locator(`#${describedBy}`).textContent()).toMatch(/valid email/);
    expect(await focused(email)).toBe(true);
    expect(await submissions(form)).toHaveLength(0);
    await email.fill('ada@example.com');
    await embed.getByRole('button', { name: 'Submit' }).click();
    await poll(async () => (await submissions(form)).length).toBe(1);
    expect(await violations(page)).toEqual([]);
    await page.close();
  }, FLOW_TIMEOUT);

  it('a consent text changed while the form is open: the new text, asked again, everything typed kept', async () => {
    const form = await leadForm({ consentText: 'I agree to the old terms.' });
    const page = await newPage();
    await page.goto(`${host}/native?slugs=${form.slug}`);
    const embed = page.locator(`[data-svc-form="${form.slug}"]`);
    await embed.getByLabel('Email').fill('consent@example.com');
    await embed.getByLabel('Message').fill('Keep me');
    await embed.getByLabel(/old terms/).check();
    const patched = await t.app.inject({ method: 'PATCH', url: `/api/org/forms/${form.id}`, headers: org.auth, payload: { consentText: 'I agree to the new terms.' } });
    expect(patched.statusCode).toBe(200);
    await embed.getByRole('button', { name: 'Submit' }).click();
    const consent = embed.getByLabel(/new terms/);
    await consent.waitFor();
    expect(await consent.isChecked()).toBe(false);
    expect(await embed.getByLabel('Email').inputValue()).toBe('consent@example.com');
    expect(await embed.getByLabel('Message').inputValue()).toBe('Keep me');
    expect(await submissions(form)).toHaveLength(0);
    await consent.check();
    await embed.getByRole('button', { name: 'Submit' }).click();
    await poll(async () => (await submissions(form)).length).toBe(1);
    await page.close();
  }, FLOW_TIMEOUT);

  it('over the rate limit the visitor is told to wait and keeps what was typed', async () => {
    const form = await leadForm();
    // Use up this address's budget for the form through the API itself.
    for (let i = 0; i < 10; i++) {
      const res = await t.app.inject({ method: 'POST', url: `/api/public/forms/${form.slug}/submit`, remoteAddress: '127.0.0.1', headers: { 'content-type': 'application/json' }, payload: { consentVersion: '1', email: `burst${i}@example.com` } });
      expect(res.statusCode).toBe(200);
    }
    const page = await newPage();
    await page.goto(`${host}/native?slugs=${form.slug}`);
    const embed = page.locator(`[data-svc-form="${form.slug}"]`);
    await embed.getByLabel('Email').fill('patient@example.com');
    await embed.getByLabel(/I agree/).check();
    await embed.getByRole('button', { name: 'Submit' }).click();
    await poll(() => embed.getByRole('alert').first().textContent()).toMatch(/Too many attempts.*wait \d+ seconds?/);
    expect(await embed.getByLabel('Email').inputValue()).toBe('patient@example.com');
    expect(await submissions(form)).toHaveLength(10);
    await page.close();
  }, FLOW_TIMEOUT);

  it('the submission\'s code comes from the service on the first touch, not with the page; a failed load is said and tried again', async () => {
    const form = await leadForm();
    const page = await newPage();
    const modules: string[] = [];
    let blocked = true;
    await page.route(`${app}/assets/form-submit.*`, (route) => {
      modules.push(route.request().url());
      return blocked ? route.abort('connectionreset') : route.continue();
    });
    await page.goto(`${host}/native?slugs=${form.slug}`);
    const embed = page.locator(`[data-svc-form="${form.slug}"]`);
    await embed.getByLabel('Email').waitFor();
    // Drawn, and nothing more fetched: a page view where nobody touches the form loads no submission code.
    await page.waitForTimeout(300);
    expect(modules).toEqual([]);
    await embed.getByLabel('Email').fill('module@example.com');
    await poll(() => modules.length).toBeGreaterThan(0);
    await embed.getByLabel(/I agree/).check();
    await embed.getByRole('button', { name: 'Submit' }).click();
    await poll(() => embed.getByRole('alert').first().textContent()).toMatch(/could not reach the server/);
    const events = await page.evaluate<{ name: string; detail: Record<string, unknown> }[]>('window.__events');
    expect(events.filter((e) => e.name === 'svc-form:error')).toEqual([{ name: 'svc-form:error', detail: { slug: form.slug, code: 'NETWORK_ERROR', message: expect.stringMatching(/could not reach the server/) } }]);
    expect(await submissions(form)).toHaveLength(0);
    blocked = false;
    await embed.getByRole('button', { name: 'Submit' }).click();
    await poll(() => embed.getByRole('status').textContent()).toContain('Thank you');
    expect(await submissions(form)).toHaveLength(1);
    // Each attempt under a URL of its own, the first the build's hashed name as it is; the focus, the failed submit and the last one at least.
    const names = modules.map((url) => url.replace(/^.*\/assets\//, ''));
    expect(names.length).toBeGreaterThanOrEqual(3);
    expect(names).toEqual(names.map((_, i) => expect.stringMatching(i ? new RegExp(`^form-submit\\.[0-9a-f]{12}\\.js\\?${i}$`) : /^form-submit\.[0-9a-f]{12}\.js$/)));
    expect(await violations(page)).toEqual([]);
    await page.close();
  }, FLOW_TIMEOUT);

  it('a retry after a dropped response makes exactly one lead', async () => {
    const form = await leadForm();
    const page = await newPage();
    let dropped = 0;
    // The first submission reaches the server, which stores it, but its answer never reaches the browser.
    await page.route(`${app}/api/public/forms/${form.slug}/submit`, async (route) => {
      if (route.request().method() !== 'POST' || dropped > 0) return route.continue();
      dropped++;
      await route.fetch();
      return route.abort('connectionreset');
    });
    await page.goto(`${host}/native?slugs=${form.slug}`);
    const embed = page.locator(`[data-svc-form="${form.slug}"]`);
    await embed.getByLabel('Email').fill('retry@example.com');
    await embed.getByLabel(/I agree/).check();
    await embed.getByRole('button', { name: 'Submit' }).click();
    await poll(() => embed.getByRole('alert').first().textContent()).toMatch(/could not reach the server/);
    expect(await submissions(form)).toHaveLength(1);
    await embed.getByRole('button', { name: 'Submit' }).click();
    await poll(() => embed.getByRole('status').textContent()).toContain('Thank you');
    expect(dropped).toBe(1);
    expect(await submissions(form)).toHaveLength(1);
    await page.close();
  }, FLOW_TIMEOUT);

  it('XSS payloads in every operator string render as text everywhere: no dialog, no CSP violation', async () => {
    const agent = await createAgent(t.app, org, { name: `Brand ${XSS}`, logoUrl: 'https://127.0.0.1:1/logo.png' });
    const field = await createCustomField(t.app, org, { key: 'tier', label: `Tier ${XSS}`, type: 'select', options: [`gold ${XSS}`, 'silver'] });
    const form = await createForm(t.app, org, { title: `Title ${XSS}`, consentText: `Consent ${XSS}`, successMessage: `Done ${XSS}`, agentId: agent.id, customFields: [{ key: field.key }] });
    for (const url of [`${app}/f/${form.slug}`, `${host}/native?slugs=${form.slug}`, `${host}/iframe?slugs=${form.slug}`]) {
      const page = await newPage();
      await page.goto(url);
      const scope = url.includes('iframe') ? page.frameLocator('iframe') : page;
      await poll(() => scope.getByText(`Title ${XSS}`).count()).toBe(1);
      await scope.getByText(`Consent ${XSS}`).waitFor();
      await scope.getByLabel('Email').fill('xss@example.com');
      await scope.getByLabel(/Tier/).selectOption(`gold ${XSS}`);
      await scope.getByLabel(/Consent/).check();
      await scope.getByRole('button', { name: 'Submit' }).click();
      await scope.getByText(`Done ${XSS}`).waitFor();
      expect(await violations(page)).toEqual([]);
      await page.close();
    }
    expect(dialogs).toEqual([]);
  }, FLOW_TIMEOUT);

  it('the hosted page works with JavaScript off', async () => {
    const form = await leadForm({ successMessage: 'No-JS thanks.' });
    const noJs = await newContext({ javaScriptEnabled: false });
    const page = await newPage(noJs);
    await page.goto(`${app}/f/${form.slug}`);
    await page.getByLabel('Email').fill('nojs@example.com');
    await page.getByRole('button', { name: 'Submit' }).click();
    // The browser's own required check holds the post until consent is ticked.
    expect(await submissions(form)).toHaveLength(0);
    await page.getByLabel(/I agree/).check();
    await page.getByRole('button', { name: 'Submit' }).click();
    await page.getByText('No-JS thanks.').waitFor();
    expect(await submissions(form)).toHaveLength(1);
    expect(await contactByEmail('nojs@example.com')).toBeDefined();
    await noJs.close();
  }, FLOW_TIMEOUT);

  it('axe-core finds no violations on the hosted page nor inside the embed\'s shadow root', async () => {
    const agent = await createAgent(t.app, org, { name: 'Plain brand', logoUrl: 'https://127.0.0.1:1/logo.png' });
    const form = await leadForm({ agentId: agent.id });
    // axe is injected as an inline script: this context lets it past the pages' CSP.
    const axeContext = await newContext({ bypassCSP: true });
    for (const url of [`${app}/f/${form.slug}`, `${host}/native?plain&slugs=${form.slug}`]) {
      const page = await newPage(axeContext);
      await page.goto(url);
      await page.getByRole('button', { name: 'Submit' }).waitFor();
      await page.addScriptTag({ content: axeSource });
      const found = await page.evaluate<string[]>(
        "axe.run(document, { runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'wcag22aa', 'best-practice'] } })" +
          '.then((result) => result.violations.map((v) => v.id + " (" + v.nodes.length + ")"))',
      );
      expect(found, url).toEqual([]);
      await page.close();
    }
    await axeContext.close();
  }, FLOW_TIMEOUT);
});
