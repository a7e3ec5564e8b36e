import type { Locator, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createAgent, createBrowserHarness, h1, poll, settled, signUp } from '../../test/support/browser.js';
import { createServingTestContext, type TestContext } from '../../test/support/context.js';

/**
 * The agent page's sub-pages in Chromium (issue 35): a tab list of plain links over Brand, Model and playground,
 * Chat widget and hand-off, Tools and MCP. Moved through by keyboard (focus stays on the tab followed, visibly),
 * each sub-page has its address, document title, `aria-current` and headings; Back returns to the tab before;
 * a reload lands on the same sub-page; `/app/agents/{id}` is replaced by the first; an unsaved change asks
 * before another tab opens. axe-core on each sub-page under the console's CSP. SQLite only: nothing here
 * depends on the database.
 */
const FLOW_TIMEOUT = 180_000;
const OWNER = { name: 'Tara Tabs', email: 'tara@tabs.example', password: 'amber harbor lantern', org: 'Tabs Dental' };
const AGENT = 'Front desk';

/** Each sub-page: its path, its tab's name, its sections' headings (h2), in page order. */
const TABS = [
  { path: 'brand', label: 'Brand', headings: ['Agent', 'Brand', 'Preview'] },
  { path: 'model', label: 'Model and playground', headings: ['Model', 'Playground'] },
  { path: 'chat', label: 'Chat widget and hand-off', headings: ['Chat widget', 'Hand-off'] },
  { path: 'tools', label: 'Tools and MCP', headings: ['Tools and MCP'] },
] as const;
type Tab = (typeof TABS)[number];

describe('the agent page’s sub-pages in Chromium', () => {
  let t: TestContext;
  let app: string;
  const harness = createBrowserHarness({ artifacts: 'console-agent-tabs' });
  const { newContext, newPage, visited, checked, pageErrors, blocked } = harness;
  let page: Page;
  let agentId = '';

  beforeAll(async () => {
    const served = await createServingTestContext('sqlite');
    t = served;
    app = served.url;
    t.clock.now = () => new Date();
    await harness.start(app);
  }, 120_000);

  afterAll(async () => {
    await harness.close();
    await t?.close();
  });

  // A failed step leaves its picture in test-artifacts/console-agent-tabs/.
  afterEach(async (context) => {
    if (context.task.result?.state === 'fail') await page?.screenshot({ path: `test-artifacts/console-agent-tabs/failed-${context.task.name.slice(0, 30)}.png`, fullPage: true });
  });

  const tabList = () => page.getByRole('navigation', { name: 'Agent sections' });
  const tabLink = (tab: Tab) => tabList().getByRole('link', { name: tab.label, exact: true });
  const isFocused = (locator: Locator) => locator.evaluate((e) => e === (globalThis as unknown as { document: { activeElement: unknown } }).document.activeElement);
  /** Focused and drawn with the console's focus ring (keyboard focus: `:focus-visible`, a solid outline). */
  const focusRing = (locator: Locator) =>
    locator.evaluate((e) => {
      const style = (globalThis as unknown as { getComputedStyle: (e: unknown) => { outlineStyle: string; outlineWidth: string } }).getComputedStyle(e);
      return (e as { matches: (s: string) => boolean }).matches(':focus-visible') ? `${style.outlineStyle} ${style.outlineWidth}` : 'not focus-visible';
    });

  /** The sub-page shown is `tab`: its address, title, current tab, the shared h1 and its own headings. */
  async function showing(tab: Tab): Promise<void> {
    await page.waitForURL(`${app}/app/agents/${agentId}/${tab.path}`);
    await settled(page);
    await poll(() => page.title()).toBe(`${tab.label} · ${AGENT} · Switchboard`);
    await poll(() => tabList().locator('a[aria-current="page"]').allTextContents()).toEqual([tab.label]);
    await poll(() => h1(page).textContent()).toBe(AGENT);
    await poll(() => page.locator('main h2').allTextContents()).toEqual([...tab.headings]);
  }

  it('the tab list: four plain links in order, each with its address; the agent opens on Brand', async () => {
    page = await newPage(await newContext());
    await signUp(page, app, OWNER);
    agentId = await createAgent(page, AGENT);
    await showing(TABS[0]);
    expect(await tabList().getByRole('link').allTextContents()).toEqual(TABS.map((tab) => tab.label));
    // Real links: a middle-click or "Copy link" gets the sub-page's address.
    for (const tab of TABS) expect(await tabLink(tab).getAttribute('href')).toBe(`/app/agents/${agentId}/${tab.path}`);
    expect(await page.getByRole('link', { name: 'Back to agents' }).getAttribute('href')).toBe('/app/agents');
    await visited(page, 'agent: Brand', 'agent-brand');
  }, FLOW_TIMEOUT);

  it('moves through the four tabs by keyboard; focus stays, visibly, on the tab followed', async () => {
    // From the link before the tab list, Tab reaches the first tab.
    await page.getByRole('link', { name: 'Back to agents' }).focus();
    await page.keyboard.press('Tab');
    await poll(() => isFocused(tabLink(TABS[0]))).toBe(true);
    await poll(() => focusRing(tabLink(TABS[0]))).toBe('solid 3px');
    for (const tab of TABS.slice(1)) {
      await page.keyboard.press('Tab');
      await poll(() => isFocused(tabLink(tab))).toBe(true);
      await page.keyboard.press('Enter');
      await showing(tab);
      await poll(() => isFocused(tabLink(tab))).toBe(true);
      await poll(() => focusRing(tabLink(tab))).toBe('solid 3px');
      await visited(page, `agent: ${tab.label}`, tab.path === 'chat' ? 'agent-chat' : undefined);
    }
  }, FLOW_TIMEOUT);

  it('Back returns to the tab before; a reload lands on the same sub-page', async () => {
    await page.goBack();
    await showing(TABS[2]);
    await page.goBack();
    await showing(TABS[1]);
    await page.goForward();
    await showing(TABS[2]);

    await page.reload();
    await showing(TABS[2]);
    await page.getByRole('region', { name: 'Chat widget' }).getByRole('switch', { name: 'Show the chat widget on my sites' }).waitFor();
  }, FLOW_TIMEOUT);

  it('the agent’s own address is replaced by its first sub-page: Back skips it', async () => {
    await page.goto(`${app}/app/agents/${agentId}`);
    await showing(TABS[0]);
    await page.goBack();
    await showing(TABS[2]);
  }, FLOW_TIMEOUT);

  it('a change not saved yet asks before another tab opens; staying keeps it, leaving drops it', async () => {
    await tabLink(TABS[0]).click();
    await showing(TABS[0]);
    const brandName = page.getByLabel('Brand name');
    await brandName.fill('Bright Smile Dental');
    await tabLink(TABS[1]).focus();
    await page.keyboard.press('Enter');
    const dialog = page.getByRole('alertdialog', { name: 'Leave without saving?' });
    await dialog.waitFor();
    await dialog.getByRole('button', { name: 'Stay and keep editing' }).click();
    await dialog.waitFor({ state: 'detached' });
    expect(new URL(page.url()).pathname).toBe(`/app/agents/${agentId}/brand`);
    expect(await brandName.inputValue()).toBe('Bright Smile Dental');

    await tabLink(TABS[1]).click();
    await dialog.getByRole('button', { name: 'Leave and lose changes' }).click();
    await showing(TABS[1]);
    await page.goBack();
    await showing(TABS[0]);
    // The form is filled from the agent as loaded again: wait for the saved name (a read could see an empty field).
    await poll(() => page.getByLabel('Brand name').inputValue()).toBe('Bright Smile');
    expect(pageErrors).toEqual([]);
  }, FLOW_TIMEOUT);

  it('checked every sub-page with axe-core, and sent nothing off the machine', () => {
    expect(checked).toEqual(['agent: Brand', ...TABS.slice(1).map((tab) => `agent: ${tab.label}`)]);
    expect(blocked, 'requests aborted for leaving loopback').toEqual([]);
  });
});
