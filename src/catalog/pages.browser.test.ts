import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createBrowserHarness, h1, poll } from '../../test/support/browser.js';
import { createServingTestContext, type TestContext } from '../../test/support/context.js';
import { developerSession } from '../../test/support/factories.js';
import { createTool, fixedResolver, publishTool } from '../../test/support/tools-factories.js';

/**
 * The public catalog pages in real Chromium, as a business meets them without an account: axe-core
 * (WCAG 2.2 AA) on the list, a search, an empty search, a tool and an error page, at 1280 and 375 px,
 * under the pages' own CSP (no script); and a keyboard-only run: skip link, search, open a tool, back.
 */
const FLOW_TIMEOUT = 120_000;
/**
 * The pages allow no script at all, so axe cannot be loaded as the console's tests load it (a script
 * from the page's origin): it is put in every page of the context by the browser itself, which no CSP governs.
 */
const axeSource = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

describe('public catalog pages in Chromium', () => {
  let t: TestContext;
  let app: string;
  let invoiceId: string;
  const harness = createBrowserHarness({ artifacts: 'catalog-pages' });
  const { newContext, newPage, visited, pageErrors, blocked } = harness;
  let page: Page;

  async function visitor(): Promise<BrowserContext> {
    const context = await newContext();
    await context.addInitScript({ content: axeSource });
    return context;
  }
  /** The results page of the search for `q`, however the form wrote the rest of the address. */
  const resultsOf = (q: string) => (url: URL) => url.pathname === '/catalog' && url.searchParams.get('q') === q;

  beforeAll(async () => {
    const served = await createServingTestContext('sqlite', { deps: { resolveHost: fixedResolver() } });
    t = served;
    app = served.url;
    const dev = await developerSession(t.database, t.clock, t.app);
    const specs = [
      { name: 'crm_lookup', category: 'crm', description: 'Finds a CRM contact by email.', authType: 'api_key' },
      { name: 'send_invoice', category: 'finance', description: 'Sends an <b>invoice</b> by email.', authType: 'bearer' },
    ];
    for (const spec of specs) {
      t.clock.advance(1000);
      const tool = await publishTool(t.app, dev.auth, (await createTool(t.app, dev.auth, spec)).id);
      if (spec.name === 'send_invoice') invoiceId = tool.id;
    }
    await harness.start(app);
  }, 120_000);

  afterAll(async () => {
    await harness.close();
    await t?.close();
  });

  /** The element that has focus, by its tag and text. */
  const focused = () => page.evaluate<string>("(() => { const e = document.activeElement; return e ? e.tagName + ' ' + (e.textContent || e.getAttribute('name') || '').trim() : ''; })()");
  /** Focus is drawn: an outline at least 2 px wide. */
  const focusRing = () => page.evaluate<string>("(() => { const s = getComputedStyle(document.activeElement); return s.outlineStyle + ' ' + s.outlineWidth; })()");

  it('every page is axe-clean at 1280 and 375 px, with no script and no CSP violation', async () => {
    page = await newPage(await visitor());
    for (const [path, label] of [
      ['/catalog', 'catalog'],
      ['/catalog?q=invoice&category=finance', 'catalog search'],
      ['/catalog?q=zebra', 'catalog empty search'],
      [`/catalog/${invoiceId}`, 'tool page'],
      ['/catalog/tool_00000000000000000000', 'tool not found'],
      ['/catalog?category=games', 'bad search'],
    ] as const) {
      await page.goto(`${app}${path}`);
      await visited(page, label, label.replaceAll(' ', '-'));
    }
    // The page's own markup has no script element (axe, put there by the browser, is not one).
    expect(await page.evaluate<number>('document.scripts.length')).toBe(0);
  }, FLOW_TIMEOUT);

  it('by keyboard alone: skip to the content, search, open a tool, and come back to the results', async () => {
    page = await newPage(await visitor());
    await page.goto(`${app}/catalog`);
    await page.keyboard.press('Tab');
    expect(await focused()).toBe('A Skip to content');
    expect(await focusRing()).toMatch(/^solid [2-9]/);
    await page.keyboard.press('Enter');
    await page.keyboard.press('Tab');
    expect(await focused()).toBe('INPUT q');
    await page.keyboard.type('invoice');
    await page.keyboard.press('Enter');
    await page.waitForURL(resultsOf('invoice'));
    await poll(() => page.title()).toBe('Tools: “invoice” · Switchboard tool catalog');

    // Tab from the top to the first result's link.
    let steps = 0;
    while ((await focused()) !== 'A send_invoice' && steps++ < 15) await page.keyboard.press('Tab');
    expect(await focused()).toBe('A send_invoice');
    expect(await focusRing()).toMatch(/^solid [2-9]/);
    await page.keyboard.press('Enter');
    await page.waitForURL(`${app}/catalog/${invoiceId}`);
    expect(await h1(page).textContent()).toBe('send_invoice');
    expect(await page.getByText('Sends an <b>invoice</b> by email.').count()).toBeGreaterThan(0);
    await page.getByRole('table', { name: 'What an agent sends when it calls the tool' }).waitFor();

    // Back, as the browser's Back button does it (headless Chromium has no Alt+Left of its own).
    await page.goBack();
    await page.waitForURL(resultsOf('invoice'));
    expect(await page.getByRole('searchbox', { name: 'Search names and descriptions' }).inputValue()).toBe('invoice');
    expect(pageErrors).toEqual([]);
    expect(blocked).toEqual([]);
  }, FLOW_TIMEOUT);
});
