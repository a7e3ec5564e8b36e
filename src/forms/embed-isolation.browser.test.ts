import { createServer, type Server } from 'node:http';
import { createServer as createHttpsServer, type Server as HttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { join, resolve } from 'node:path';
import { mkdirSync, writeFileSync } from 'node:fs';
import type { BrowserContext, Frame, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createBrowserHarness, poll } from '../../test/support/browser.js';
import { createServingTestContext, type TestContext } from '../../test/support/context.js';
import { createAgent, createCustomField, createForm } from '../../test/support/form-factories.js';
import { testCertificates } from '../../test/support/https-endpoint.js';
import { createOrgWithKey, type OrgWithKey } from '../../test/support/org-factories.js';

/**
 * The two embed snippets exactly as `GET /api/org/forms/{id}/embed` gives them, pasted into a host
 * page (another loopback port) whose CSP is exactly what docs/embedding.md asks of a host:
 * `default-src 'none'` plus the service's origin for scripts, connections, frames and images, and
 * the logo's own origin (an HTTPS server on loopback) for images. No violation, no console error,
 * no failed request; and under hostile CSS (the host's `html` font-size, `*` letter-spacing and
 * line-height, every inherited property on the host element, text decorations, `--sf-*` properties)
 * the form is drawn exactly as on the plain host: the same boxes, computed styles and pixels.
 *
 * The hostile CSS is adopted through the CSSOM by the test (the host's CSP has no `style-src`, so a
 * stylesheet link would itself be a violation); the cascade treats it like any author stylesheet.
 */
const HOSTILE_CSS = `
html { font-size: 40px !important; --sf-font: "Comic Sans MS", cursive; --sf-bg: #000; --sf-fg: #0f0; --sf-pri: #f0f }
* { letter-spacing: 3px !important; line-height: 3 !important; word-spacing: 9px !important }
body { font: italic small-caps 900 31px/4 "Comic Sans MS", cursive !important; color: red !important; text-decoration: underline overline line-through !important }
[data-svc-form], iframe {
  direction: rtl !important; font: italic small-caps 900 31px/4 "Comic Sans MS", cursive !important; font-size: 62.5% !important;
  color: red !important; text-transform: uppercase !important; text-indent: 40px !important; text-align: right !important;
  text-shadow: 2px 2px blue !important; white-space: pre !important; -webkit-text-fill-color: green !important;
  -webkit-text-stroke: 1px red !important; cursor: wait !important; color-scheme: dark !important; accent-color: lime !important;
  font-feature-settings: "smcp" !important; hyphens: auto !important; tab-size: 20 !important; font-kerning: none !important;
  text-underline-offset: 10px !important; writing-mode: horizontal-tb !important; caret-color: red !important;
}
[data-svc-form] { visibility: hidden !important; text-decoration: underline wavy red !important }
`;

/** Adopted by every page whose URL asks for it, before anything draws. */
const HOSTILE_INIT = `
  if (location.search.includes('hostile')) {
    const sheet = new CSSStyleSheet();
    sheet.replaceSync(${JSON.stringify(HOSTILE_CSS)});
    document.adoptedStyleSheets = [sheet];
  }
`;

/** Computed values compared between hosts: every inherited property the host could try to push in. */
const PROPS = [
  'font-family', 'font-size', 'font-style', 'font-weight', 'font-variant-caps', 'font-feature-settings', 'font-kerning', 'line-height', 'letter-spacing',
  'word-spacing', 'text-transform', 'text-indent', 'text-align', 'text-shadow', 'white-space', 'hyphens', 'tab-size', 'color', '-webkit-text-fill-color',
  '-webkit-text-stroke-width', 'direction', 'visibility', 'cursor', 'color-scheme', 'accent-color', 'writing-mode', 'background-color',
];

/** Boxes (relative to the form's root) and computed styles of the root and its main parts; ids lose their per-render prefix. */
const MEASURE = `(root) => {
  const origin = root.getBoundingClientRect();
  const parts = [root, ...root.querySelectorAll('.sf-logo, .sf-title, .sf-note, label, .sf-in, .sf-c input, .sf-btn')];
  return parts.map((el) => {
    const box = el.getBoundingClientRect();
    const style = getComputedStyle(el);
    return {
      part: el.tagName.toLowerCase() + '.' + el.className + (el.id ? '#' + el.id.replace(/^sf\\d+-/, '') : ''),
      box: [box.x - origin.x, box.y - origin.y, box.width, box.height],
      style: Object.fromEntries(${JSON.stringify(PROPS)}.map((name) => [name, style.getPropertyValue(name)])),
    };
  });
}`;

type Measured = { part: string; box: number[]; style: Record<string, string> }[];

interface Snippets {
  directLink: string;
  iframe: string;
  script: string;
}

const root = resolve(import.meta.dirname, '../..');
/** Tall enough for the whole form without scrolling. */
const VIEWPORT = { width: 1280, height: 1100 };
const LOGO_SVG = '<svg xmlns="http://www.w3.org/2000/svg" width="160" height="64" viewBox="0 0 160 64"><rect width="160" height="64" rx="8" fill="#1a73e8"/><circle cx="32" cy="32" r="18" fill="#fff"/></svg>';

describe('embeds under a strict host CSP and hostile host CSS', () => {
  let t: TestContext;
  let org: OrgWithKey;
  let app: string;
  let host: string;
  let logoOrigin: string;
  let hostServer: Server;
  let logoServer: HttpsServer;
  let snippets: Snippets;
  let csp: string;
  let context: BrowserContext;
  const harness = createBrowserHarness({ artifacts: 'embeds' });
  const { newContext, newPage, pageErrors, blocked } = harness;

  beforeAll(async () => {
    // PUBLIC_URL is the server's real address: the snippets point at it.
    const served = await createServingTestContext('sqlite');
    t = served;
    app = served.url;

    // The brand's logo, on an origin of its own (HTTPS, as the API requires of logo URLs).
    const { key, cert } = testCertificates();
    logoServer = createHttpsServer({ key, cert }, (req, res) => {
      if (req.url !== '/logo.svg') return res.writeHead(404).end();
      res.writeHead(200, { 'content-type': 'image/svg+xml', 'cache-control': 'no-store' }).end(LOGO_SVG);
    });
    await new Promise<void>((done) => logoServer.listen(0, '127.0.0.1', done));
    logoOrigin = `https://127.0.0.1:${(logoServer.address() as AddressInfo).port}`;

    org = await createOrgWithKey(t.database, t.clock);
    // No brand font: the form's own font stack, which the host's `--sf-font` must not replace.
    const agent = await createAgent(t.app, org, { name: 'Isolation Dental', logoUrl: `${logoOrigin}/logo.svg`, fontFamily: null });
    const plan = await createCustomField(t.app, org, { label: 'Plan', type: 'select', options: ['Basic', 'Premium'] });
    const callback = await createCustomField(t.app, org, { label: 'Call me back', type: 'checkbox' });
    const on = { enabled: true, required: false };
    const form = await createForm(t.app, org, {
      title: 'Book a visit',
      agentId: agent.id,
      fields: { name: { enabled: true, required: true }, email: on, phone: on, company: { enabled: false, required: false }, message: on },
      customFields: [{ key: plan.key }, { key: callback.key }],
      consentText: 'I agree to be contacted about my request, by email or phone, and to the privacy policy of Isolation Dental.',
    });
    const res = await t.app.inject({ method: 'GET', url: `/api/org/forms/${form.id}/embed`, headers: org.auth });
    expect(res.statusCode).toBe(200);
    snippets = (res.json() as { data: Snippets }).data;

    // The host page: exactly the CSP docs/embedding.md asks for, and the snippet pasted as given.
    csp = `default-src 'none'; script-src ${app}; connect-src ${app}; frame-src ${app}; img-src ${app} ${logoOrigin}`;
    hostServer = createServer((req, res) => {
      const url = new URL(req.url ?? '/', 'http://host');
      const snippet = url.pathname === '/script' ? snippets.script : url.pathname === '/iframe' ? snippets.iframe : null;
      if (snippet === null) return res.writeHead(404, { 'content-type': 'text/plain' }).end('not found');
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'content-security-policy': csp });
      // The snippet first, so the host's own text above it cannot move it by a fraction of a pixel.
      res.end(`<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Host page</title></head><body>${snippet}<main><h1>Host page</h1><p>Our own text.</p></main></body></html>`);
    });
    await new Promise<void>((done) => hostServer.listen(0, '127.0.0.1', done));
    host = `http://127.0.0.1:${(hostServer.address() as AddressInfo).port}`;

    await harness.start(app);
    // The logo's certificate comes from a test CA the browser does not know.
    context = await newContext({ ignoreHTTPSErrors: true, viewport: VIEWPORT });
    await context.addInitScript(HOSTILE_INIT);
    mkdirSync(join(root, 'test-artifacts', 'embeds'), { recursive: true });
  }, 120_000);

  afterAll(async () => {
    await harness.close();
    await new Promise((done) => hostServer?.close(done));
    await new Promise((done) => logoServer?.close(done));
    await t?.close();
  });

  /** A page with everything the browser reports recorded: console errors, failed requests, 4xx/5xx answers. */
  async function open(url: string): Promise<{ page: Page; problems: string[] }> {
    const page = await newPage(context);
    const problems: string[] = [];
    page.on('console', (message) => {
      if (message.type() === 'error' || message.type() === 'warning') problems.push(`console ${message.type()}: ${message.text()}`);
    });
    page.on('requestfailed', (request) => problems.push(`failed: ${request.url()} ${request.failure()?.errorText}`));
    page.on('response', (response) => {
      if (response.status() >= 400) problems.push(`${response.status()}: ${response.url()}`);
    });
    await page.goto(url);
    return { page, problems };
  }

  /** Where the form is drawn: the embed's shadow root on the host page, or the iframe's document. */
  async function formFrame(page: Page, kind: 'script' | 'iframe'): Promise<{ frame: Frame; rootExpr: string }> {
    if (kind === 'script') return { frame: page.mainFrame(), rootExpr: "document.querySelector('[data-svc-form]').shadowRoot.querySelector('.svc-form')" };
    await poll(() => page.frames().length).toBe(2);
    return { frame: page.frames()[1]!, rootExpr: "document.querySelector('.svc-form')" };
  }

  /** The form drawn, its logo loaded and fonts ready: then its boxes, styles and pixels. */
  async function drawn(page: Page, kind: 'script' | 'iframe') {
    const { frame, rootExpr } = await formFrame(page, kind);
    await poll(() => frame.evaluate<boolean>(`(() => { const r = ${rootExpr}; const logo = r && r.querySelector('.sf-logo'); return !!(r && r.querySelector('.sf-btn') && logo && logo.complete && logo.naturalWidth > 0); })()`), {
      message: `${kind}: form and logo drawn`,
    }).toBe(true);
    await frame.evaluate('document.fonts.ready.then(() => true)');
    const measured = await frame.evaluate<Measured>(`(${MEASURE})(${rootExpr})`);
    // The form's own pixels, clipped from the unscrolled page (an element screenshot would scroll it first).
    const form = kind === 'script' ? page.locator('[data-svc-form] .svc-form') : page.frameLocator('iframe').locator('.svc-form');
    const clip = await form.boundingBox();
    expect(clip!.y + clip!.height, `${kind}: the whole form in the viewport`).toBeLessThanOrEqual(VIEWPORT.height);
    const pixels = await page.screenshot({ clip: clip!, animations: 'disabled', caret: 'hide' });
    const violations = await Promise.all(page.frames().map((f) => f.evaluate<string[]>('window.__violations ?? []')));
    return { frame, measured, pixels, violations: violations.flat() };
  }

  for (const kind of ['script', 'iframe'] as const) {
    it(`the ${kind} snippet: no violation or error under the strict CSP; hostile CSS changes nothing of the form`, async () => {
      const plain = await open(`${host}/${kind}`);
      const hostile = await open(`${host}/${kind}?hostile`);
      const a = await drawn(plain.page, kind);
      const b = await drawn(hostile.page, kind);
      await plain.page.screenshot({ path: join(root, `test-artifacts/embeds/${kind}-plain.png`), fullPage: true });
      writeFileSync(join(root, `test-artifacts/embeds/${kind}-form-plain.png`), a.pixels);
      writeFileSync(join(root, `test-artifacts/embeds/${kind}-form-hostile.png`), b.pixels);
      await hostile.page.screenshot({ path: join(root, `test-artifacts/embeds/${kind}-hostile.png`), fullPage: true });

      // The hostile sheet really applies to the host page.
      expect(await hostile.page.evaluate<string>("getComputedStyle(document.documentElement).fontSize")).toBe('40px');
      expect(await hostile.page.evaluate<string>("getComputedStyle(document.querySelector('h1')).letterSpacing")).toBe('3px');

      for (const [label, run] of [['plain', a], ['hostile', b]] as const) {
        expect(run.violations, `${kind} ${label}: CSP violations`).toEqual([]);
      }
      expect(b.measured).toEqual(a.measured);
      // Anchored at the visitor's default size (16px in this browser), whatever the host's html says.
      expect(a.measured[0]!.style['font-size']).toBe('16px');
      expect(a.measured.find((part) => part.part.startsWith('h2.sf-title') || part.part.startsWith('h1.sf-title'))?.style['font-size']).toBe('24px');
      expect(Buffer.compare(b.pixels, a.pixels), `${kind}: the form's pixels on the hostile host equal the plain host's`).toBe(0);

      if (kind === 'iframe') {
        // The frame's box is its attributes: the whole form at first draw, no scrollbar, without a style attribute.
        const frameBox = async (page: Page) => page.locator('iframe').boundingBox();
        expect(await frameBox(hostile.page)).toEqual(await frameBox(plain.page));
        const height = Number(/height="(\d+)"/.exec(snippets.iframe)?.[1]);
        const content = await a.frame.evaluate<number>("Math.ceil(document.querySelector('.svc-form').getBoundingClientRect().bottom)");
        expect(await a.frame.evaluate<boolean>('document.documentElement.scrollHeight <= innerHeight'), 'no scrollbar in the frame').toBe(true);
        process.stdout.write(`iframe: height attribute ${height}px, form drawn ${content}px\n`);
        expect(content).toBeLessThanOrEqual(height);
        expect(height - content, 'no more than the room left for error messages, and a little').toBeLessThanOrEqual(240);
      }

      // It still works under that CSP: a visitor submits through it.
      const scope = kind === 'script' ? hostile.page.locator('[data-svc-form]') : hostile.page.frameLocator('iframe');
      await scope.getByLabel(/^Name/).fill('Ada Lovelace');
      await scope.getByLabel('Email', { exact: true }).fill(`${kind}@example.com`);
      await scope.getByLabel(/I agree/).check();
      await scope.getByRole('button', { name: 'Submit' }).click();
      await poll(() => scope.getByText('Thank you').count()).toBeGreaterThan(0);

      expect(plain.problems, `${kind} plain: what the browser reported`).toEqual([]);
      expect(hostile.problems, `${kind} hostile: what the browser reported`).toEqual([]);
      await plain.page.close();
      await hostile.page.close();
    });
  }

  it('reached nothing outside loopback and met no page error', () => {
    expect(blocked).toEqual([]);
    expect(pageErrors).toEqual([]);
  });
});
