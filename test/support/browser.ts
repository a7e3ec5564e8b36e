import { mkdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join, resolve } from 'node:path';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { expect, vi } from 'vitest';

/**
 * What the console's browser tests (src/web/*.browser.test.ts) share: Debian's Chromium through
 * playwright-core, browser profiles that reach loopback only, axe-core (WCAG 2.2 AA) served from the
 * console's own origin so its CSP is never bypassed, CSP violations, page errors and dialogs recorded
 * from the start, and screenshots at 1280 and 375 px into test-artifacts/<name>/.
 *
 *   const harness = createBrowserHarness({ artifacts: 'console' });
 *   const { newContext, newPage, visited, pageErrors, blocked } = harness;
 *   beforeAll(async () => { …the server on `app`…; await harness.start(app); });
 *   afterAll(() => harness.close());
 */

/** Headless, and nothing of Chromium's own that would call home (updates, sync, background fetches). */
export const CHROMIUM_ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'];

/** The only URLs a test's browser may reach: 127.0.0.1 and [::1]; every other request is aborted and recorded. */
export const LOOPBACK = /^(https?|wss?):\/\/(127\.0\.0\.1|\[::1\])[:/]/;

const root = resolve(import.meta.dirname, '../..');
const axeSource = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');
/** Served from the console's own origin (by the browser context, never by the app), so the console's CSP need not be bypassed. */
const AXE_PATH = '/__browser-test__/axe.min.js';
const AXE_TAGS = ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'wcag22aa', 'best-practice'];

/** What every page records from the start: CSP violations. */
const RECORDER = `
  window.__violations = [];
  document.addEventListener('securitypolicyviolation', (e) => window.__violations.push(e.violatedDirective + ' ' + e.blockedURI), true);
`;

/** Debian's /usr/bin/chromium, headless, with CHROMIUM_ARGS. */
export function launchChromium(): Promise<Browser> {
  return chromium.launch({ executablePath: '/usr/bin/chromium', headless: true, args: CHROMIUM_ARGS });
}

/** expect.poll with room for a loaded machine (vitest's default gives up after a second). */
export const poll = <T>(fn: () => T | Promise<T>, options: { timeout?: number; message?: string } = {}) => expect.poll(fn, { timeout: 20_000, ...options });

/** The page's h1. */
export const h1 = (page: Page) => page.getByRole('heading', { level: 1 });

/** The page has drawn its data: an h1, nothing loading. */
export async function settled(page: Page): Promise<void> {
  await h1(page).first().waitFor();
  await poll(() => page.locator('.loading').count(), { timeout: 20_000 }).toBe(0);
}

/**
 * A link of the console's main navigation, by its exact name; resolves once the link is the current page. The
 * router draws the new page and marks its link in one update, so what follows never reads the old page (whose
 * h1 would satisfy settled()).
 */
export async function nav(page: Page, name: string): Promise<void> {
  const link = page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name, exact: true });
  await link.click();
  await poll(() => link.getAttribute('aria-current'), { message: `${name} did not become the current page` }).toBe('page');
}

/**
 * React Aria announces a busy button (a dialog's confirm button while it works) through hidden nodes of its own
 * (role img, labelled by the button) for a few seconds, added a moment after the press by a timer; once the button
 * is gone axe flags them. Waited out before an axe check that follows such a press.
 */
export async function announcerQuiet(page: Page): Promise<void> {
  // The entry comes a moment after the press, so a fast answer can beat it: that moment first.
  await page.waitForTimeout(1_000);
  await poll(() => page.locator('div[role="img"]').count(), { message: 'React Aria\'s announcement ended' }).toBe(0);
}

/**
 * The names of the links in the console's main navigation. The navigation is drawn after the address
 * changes (pages load lazily), so assert on it with poll(), never on one read.
 */
export const mainLinks = (page: Page) => page.getByRole('navigation', { name: 'Main' }).getByRole('link').allTextContents();

/** A person signs up through the console's own page, making an organization, and lands on its forms. */
export async function signUp(page: Page, app: string, who: { name: string; email: string; password: string; org: string }): Promise<void> {
  await page.goto(`${app}/app/signup`);
  await poll(() => h1(page).textContent()).toBe('Create your account');
  await page.getByLabel('Your name').fill(who.name);
  await page.getByLabel('Email').fill(who.email);
  await page.getByLabel('Organization name').fill(who.org);
  await page.getByLabel('Password').fill(who.password);
  await page.getByRole('button', { name: 'Create account' }).click();
  await page.waitForURL(`${app}/app/forms`);
}

/** A person signs up as a tool developer ("Build tools": no organization) and lands on the developer portal. */
export async function signUpDeveloper(page: Page, app: string, who: { name: string; email: string; password: string }): Promise<void> {
  await page.goto(`${app}/app/signup`);
  await page.getByLabel('Build tools (a developer account)').check();
  await page.getByLabel('Your name').fill(who.name);
  await page.getByLabel('Email').fill(who.email);
  await page.getByLabel('Password').fill(who.password);
  await page.getByRole('button', { name: 'Create account' }).click();
  await page.waitForURL(`${app}/app/developer`);
}

/** An operator creates an agent from the Agents page (brand name and a loopback logo address) and lands on its Brand sub-page; resolves to its id. */
export async function createAgent(page: Page, name: string): Promise<string> {
  await nav(page, 'Agents');
  await settled(page);
  await page.getByRole('link', { name: /^(Create an agent|New agent)$/ }).click();
  await page.getByLabel('Agent name').fill(name);
  await page.getByLabel('Brand name').fill('Bright Smile');
  await page.getByLabel('Logo address').fill('https://127.0.0.1:1/logo.png');
  await page.getByRole('button', { name: 'Create agent' }).click();
  await page.waitForURL(/\/app\/agents\/agt_[^/]+\/brand$/);
  await poll(() => h1(page).textContent()).toBe(name);
  return new URL(page.url()).pathname.split('/').at(-2)!;
}

/** One of an agent's sub-pages (`brand`, `model`, `chat`, `tools`), opened by its address and settled. */
export async function agentTab(page: Page, app: string, agentId: string, tab: 'brand' | 'model' | 'chat' | 'tools'): Promise<void> {
  await page.goto(`${app}/app/agents/${agentId}/${tab}`);
  await settled(page);
}

export interface BrowserHarnessOptions {
  /** The folder under test-artifacts/ the screenshots go to (made by start()). */
  artifacts: string;
  /** A test's own check of every page visited, run after axe at 1280 px (before the screenshots). */
  checkPage?: (page: Page, label: string) => Promise<void>;
}

export type BrowserHarness = ReturnType<typeof createBrowserHarness>;

/**
 * One Chromium for one test file, against the console at the origin given to start(). Its lists fill
 * as the tests run, for the tests to assert on: `pageErrors` (uncaught errors and unexpected dialogs),
 * `blocked` (requests aborted for leaving loopback), `checked` (the pages visited, axe-checked).
 */
export function createBrowserHarness({ artifacts, checkPage }: BrowserHarnessOptions) {
  // A browser flow is many round trips, axe runs and screenshots: 20–30 s on a loaded CI machine, where the
  // project's 30 s default is too close. This file's tests and hooks get 2 minutes unless they say otherwise.
  vi.setConfig({ testTimeout: 120_000, hookTimeout: 120_000 });
  const folder = join(root, 'test-artifacts', artifacts);
  const pageErrors: string[] = [];
  const blocked: string[] = [];
  const checked: string[] = [];
  let browser: Browser | undefined;
  let app = '';

  function started(): Browser {
    if (!browser) throw new Error('the browser harness is not started: call start(app) in beforeAll');
    return browser;
  }

  /** Launches Chromium for the console at `appOrigin` (http://127.0.0.1:port) and makes the artifacts folder. */
  async function start(appOrigin: string): Promise<Browser> {
    app = appOrigin;
    browser = await launchChromium();
    mkdirSync(folder, { recursive: true });
    return browser;
  }

  async function close(): Promise<void> {
    await browser?.close();
  }

  /** A browser profile of its own (one person), loopback only, axe served from the console's origin. */
  async function newContext(options: Parameters<Browser['newContext']>[0] = {}): Promise<BrowserContext> {
    const context = await started().newContext({ viewport: { width: 1280, height: 900 }, ...options });
    await context.route('**/*', (route) => {
      const url = route.request().url();
      if (LOOPBACK.test(url)) return route.continue();
      blocked.push(url);
      return route.abort();
    });
    await context.route(`${app}${AXE_PATH}`, (route) => route.fulfill({ status: 200, contentType: 'text/javascript', body: axeSource }));
    await context.addInitScript(RECORDER);
    return context;
  }

  /** A tab whose uncaught errors and dialogs (none expected) land in pageErrors. */
  async function newPage(context: BrowserContext): Promise<Page> {
    const page = await context.newPage();
    page.on('pageerror', (error) => pageErrors.push(`${page.url()}: ${error.message}`));
    page.on('dialog', (dialog) => {
      pageErrors.push(`unexpected dialog: ${dialog.message()}`);
      void dialog.dismiss();
    });
    return page;
  }

  /** axe-core on the page as it is now (WCAG 2.2 AA and best practices), under the console's CSP; and no CSP violation so far. */
  async function axe(page: Page, label: string): Promise<void> {
    if (!(await page.evaluate<boolean>("typeof window.axe === 'object'"))) await page.addScriptTag({ url: `${app}${AXE_PATH}` });
    const found = await page.evaluate<string[]>(
      `axe.run(document, { runOnly: { type: 'tag', values: ${JSON.stringify(AXE_TAGS)} } })` +
        ".then((result) => result.violations.map((v) => v.id + ' (' + v.nodes.length + '): ' + v.nodes.slice(0, 3).map((n) => n.target.join(' ')).join(', ')))",
    );
    expect(found, `axe on ${label}`).toEqual([]);
    expect(await page.evaluate<string[]>('window.__violations'), `CSP violations on ${label}`).toEqual([]);
  }

  /** A console page visited: settled, axe-clean (and checkPage); the main ones screenshotted (and axe-checked) at 1280 and 375 px wide. */
  async function visited(page: Page, label: string, screenshot?: string): Promise<void> {
    await settled(page);
    await axe(page, label);
    await checkPage?.(page, label);
    checked.push(label);
    if (!screenshot) return;
    // Notices of earlier steps would shift the page in its pictures: dismissed by their buttons.
    const dismiss = page.getByRole('button', { name: 'Dismiss notification' });
    for (let i = 0; i < 5 && (await dismiss.count()) > 0; i++) await dismiss.first().click({ timeout: 2_000 }).catch(() => undefined);
    await page.screenshot({ path: join(folder, `${screenshot}-1280.png`), fullPage: true });
    await page.setViewportSize({ width: 375, height: 812 });
    try {
      await poll(() => page.evaluate<number>('document.documentElement.scrollWidth'), { message: `${label} fits 375 px` }).toBeLessThanOrEqual(375);
      await axe(page, `${label} at 375 px`);
      await page.screenshot({ path: join(folder, `${screenshot}-375.png`), fullPage: true });
    } finally {
      await page.setViewportSize({ width: 1280, height: 900 });
    }
  }

  /** The session cookie of a browser profile, as a Cookie header for raw requests. */
  async function cookieOf(context: BrowserContext): Promise<string> {
    const cookie = (await context.cookies(app)).find((c) => c.name === 'svc_session');
    expect(cookie, 'session cookie').toBeDefined();
    return `svc_session=${cookie!.value}`;
  }

  return { start, close, newContext, newPage, axe, visited, cookieOf, pageErrors, blocked, checked };
}
