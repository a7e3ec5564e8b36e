import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAgent, createBrowserHarness, h1, mainLinks, nav, poll, settled, signUp } from '../../test/support/browser.js';
import { createServingTestContext, type TestContext } from '../../test/support/context.js';
import { developerSession } from '../../test/support/factories.js';
import { json, startHttpsEndpoint, type HttpsEndpoint } from '../../test/support/https-endpoint.js';
import { toolEndpointOptions } from '../../test/support/invocation-factories.js';
import { createTool, publishTool } from '../../test/support/tools-factories.js';

/**
 * The console's Tools pages in real Chromium (Debian's /usr/bin/chromium through playwright-core), as
 * console.browser.test.ts drives the rest of the console: a real server on loopback (SQLite, the console
 * built by the global setup), every request that would leave loopback aborted, axe-core (WCAG 2.2 AA)
 * on each page and dialog visited under the console's own CSP. A developer publishes a tool whose
 * endpoint is a real HTTPS server on 127.0.0.1 (a test CA); an operator enables it for one agent with a
 * bearer token, calls it, reads the call log, makes and revokes an agent key, and removes it.
 */
const FLOW_TIMEOUT = 240_000;

const OWNER = { name: 'Olive Owner', email: 'olive@brightsmile.example', password: 'violet kettle marathon', org: 'Bright Smile Dental' };
const OTHER = { name: 'Otto Other', email: 'otto@elsewhere.example', password: 'granite puzzle meadow', org: 'Elsewhere Plumbing' };
/** The credentials the operator types: neither may ever come back in a page. */
const TOKEN = 'tok-first-9f8e7d6c5b4a';
const NEW_TOKEN = 'tok-second-1a2b3c4d5e6f';
const SECRETS = [TOKEN, NEW_TOKEN];

describe('the console’s tools pages in Chromium', () => {
  let t: TestContext;
  let endpoint: HttpsEndpoint;
  let app: string;
  const harness = createBrowserHarness({ artifacts: 'console-tools', checkPage: noSecrets });
  const { newContext, newPage, axe, visited, cookieOf, checked, pageErrors, blocked } = harness;
  let toolName: string;
  let toolId: string;
  let installationId = '';

  beforeAll(async () => {
    endpoint = await startHttpsEndpoint(json(200, { quote: { amount: 12.5, currency: 'EUR' } }));
    const served = await createServingTestContext('sqlite', toolEndpointOptions(endpoint));
    t = served;
    app = served.url;
    t.clock.now = () => new Date();

    // A developer publishes a shipping-quote tool that takes a bearer token.
    const dev = await developerSession(t.database, t.clock, t.app);
    const tool = await createTool(t.app, dev.auth, { endpoint: `https://tool.test:${endpoint.port}/quote`, authType: 'bearer', category: 'ecommerce' });
    await publishTool(t.app, dev.auth, tool.id);
    toolName = tool.name;
    toolId = tool.id;

    await harness.start(app);
  }, 120_000);

  afterAll(async () => {
    await harness.close();
    await t?.close();
    await endpoint?.close();
  });

  /** No credential the operator typed is anywhere in the page's HTML (inputs' values included): checked on every page visited. */
  async function noSecrets(page: Page, label: string): Promise<void> {
    const html = await page.evaluate<string>(
      "document.documentElement.outerHTML + [...document.querySelectorAll('input, textarea')].map((e) => e.value).join(' ')",
    );
    for (const secret of SECRETS) expect(html.includes(secret), `a credential in the HTML of ${label}`).toBe(false);
  }


  /** Runs the Test call panel with these arguments. */
  async function testCall(page: Page, args: string): Promise<void> {
    const panel = page.getByRole('region', { name: 'Test call' });
    await panel.getByLabel('Arguments (JSON)').fill(args);
    await panel.getByRole('button', { name: 'Run test call' }).click();
  }

  let ownerContext: BrowserContext;
  let owner: Page;

  it('an operator enables a catalog tool for one agent with a token, calls it, reads the log, makes and revokes an agent key, and removes the tool', async () => {
    ownerContext = await newContext();
    await ownerContext.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: app });
    owner = await newPage(ownerContext);
    await signUp(owner, app, OWNER);
    const frontDesk = await createAgent(owner, 'Front desk');
    await createAgent(owner, 'Sales bot');

    // Tools, after Agents in the navigation: nothing yet.
    await poll(async () => {
      const links = await mainLinks(owner);
      return links.indexOf('Tools') - links.indexOf('Agents');
    }).toBe(1);
    await nav(owner, 'Tools');
    await owner.waitForURL(`${app}/app/tools`);
    await visited(owner, 'tools (empty)');
    await owner.getByRole('link', { name: 'Browse the catalog' }).click();

    // The catalog: found by a search, its parameters and auth type on its card.
    await owner.waitForURL(`${app}/app/tools/catalog`);
    await poll(() => h1(owner).textContent()).toBe('Add a tool');
    await visited(owner, 'catalog', 'catalog');
    const search = owner.getByRole('search', { name: 'Catalog' });
    await search.getByLabel('Search').fill(toolName);
    await search.getByLabel('Category').selectOption('ecommerce');
    await search.getByRole('button', { name: 'Search', exact: true }).click();
    await owner.waitForURL(/[?&]q=quote_/);
    const card = owner.getByRole('article', { name: toolName });
    await card.getByText('Bearer token').waitFor();
    await card.getByText(/Parameters \(2\)/).click();
    await card.getByText('weightKg').waitFor();
    await visited(owner, 'catalog (searched)');

    // Enable: only Front desk, with a bearer token in a password input the browser will not fill or keep.
    await card.getByRole('button', { name: `Enable ${toolName}` }).click();
    const dialog = owner.getByRole('dialog', { name: `Enable “${toolName}”` });
    await dialog.getByLabel('Only the agents I choose').check();
    await dialog.getByLabel('Front desk').check();
    const token = dialog.getByLabel(/^Bearer token/);
    expect(await token.getAttribute('type')).toBe('password');
    expect(await token.getAttribute('autocomplete')).toBe('new-password');
    await axe(owner, 'enable dialog');
    checked.push('enable dialog');
    // Nothing chosen is refused before sending, on the field.
    await dialog.getByLabel('Front desk').uncheck();
    await dialog.getByRole('button', { name: 'Enable tool' }).click();
    await dialog.getByText('Choose at least one agent, or All agents.').waitFor();
    await dialog.getByLabel('Front desk').check();
    await token.fill(TOKEN);
    await dialog.getByRole('button', { name: 'Enable tool' }).click();
    await owner.waitForURL(/\/app\/tools\/inst_/);
    installationId = new URL(owner.url()).pathname.split('/').pop()!;
    await poll(() => h1(owner).textContent()).toBe(toolName);
    await owner.getByText('Credentials are set').waitFor();
    await visited(owner, 'installation', 'installation');

    // A test call reaches the endpoint with the token and the arguments, plus _svc_context.
    endpoint.reset();
    const panel = owner.getByRole('region', { name: 'Test call' });
    await poll(() => panel.getByLabel('Call as agent').locator('option').allTextContents()).toEqual(['Front desk']);
    await testCall(owner, '{"weightKg": 2.5, "country": "DE"}');
    await panel.getByText('Succeeded').waitFor();
    await panel.getByText('"currency": "EUR"').waitFor();
    expect(endpoint.requests).toHaveLength(1);
    const sent = endpoint.requests[0]!;
    expect(sent.headers.authorization).toBe(`Bearer ${TOKEN}`);
    const body = JSON.parse(sent.body.toString('utf8')) as Record<string, any>;
    expect(body).toMatchObject({ weightKg: 2.5, country: 'DE', _svc_context: { agentId: frontDesk, toolId } });
    expect(body._svc_context.callId).toMatch(/^call_/);
    await visited(owner, 'installation after a test call');

    // Arguments that do not fit: the code, the message and the details; nothing sent.
    await testCall(owner, '{"weightKg": "heavy"}');
    await panel.getByText('INVALID_ARGUMENTS').waitFor();
    await panel.getByRole('listitem').first().waitFor();
    // The refused call is in the log too, and the panel says under which id.
    await panel.getByText(/This call is in the call log as call_/).waitFor();
    // Not JSON at all: refused on the field before sending.
    await testCall(owner, '{"weightKg": ');
    await panel.getByText(/^This is not valid JSON/).waitFor();
    await poll(() => panel.getByLabel('Arguments (JSON)').getAttribute('aria-invalid')).toBe('true');
    expect(endpoint.requests).toHaveLength(1);
    await axe(owner, 'test call errors');

    // The calls show among the tool's recent calls (answered only once logged, so the list reloads at once).
    const recent = owner.getByRole('region', { name: 'Recent calls' });
    await poll(async () => recent.getByText('Arguments did not fit').count(), { timeout: 20_000 }).toBe(1);
    await recent.getByText('Succeeded').waitFor();

    // Replace the token: the next call sends the new one; neither shows anywhere.
    const credentials = owner.getByRole('region', { name: 'Credentials' });
    await credentials.getByRole('button', { name: 'Replace' }).click();
    await visited(owner, 'replace credentials');
    await credentials.getByLabel(/^Bearer token/).fill(NEW_TOKEN);
    await credentials.getByRole('button', { name: 'Save credentials' }).click();
    await credentials.getByText('Credentials are set').waitFor();
    await testCall(owner, '{"weightKg": 1, "country": "FR"}');
    await poll(() => endpoint.requests.length).toBe(2);
    expect(endpoint.requests[1]!.headers.authorization).toBe(`Bearer ${NEW_TOKEN}`);
    await visited(owner, 'installation after replacing credentials');
    // And not from the API either.
    const cookie = await cookieOf(ownerContext);
    for (const path of ['/api/org/installations', `/api/org/installations/${installationId}`]) {
      const text = await (await fetch(`${app}${path}`, { headers: { cookie } })).text();
      for (const secret of SECRETS) expect(text.includes(secret), path).toBe(false);
    }

    // The list: the name, Front desk only, credentials set, enabled.
    await nav(owner, 'Tools');
    // On the list, not the installation page still showing its recent calls (rows with the tool's name too).
    await owner.waitForURL(`${app}/app/tools`);
    await poll(() => h1(owner).textContent()).toBe('Tools');
    const row = owner.getByRole('row', { name: new RegExp(toolName) });
    await row.getByRole('cell', { name: 'Front desk' }).waitFor();
    await row.getByRole('cell', { name: 'Set', exact: true }).waitFor();
    await visited(owner, 'tools', 'tools');

    // The call log, filtered by outcome.
    await owner.getByRole('link', { name: 'Call log' }).click();
    await owner.waitForURL(`${app}/app/tool-calls`);
    await poll(() => owner.getByRole('region', { name: 'Tool calls' }).getByRole('row').count()).toBe(4);
    await visited(owner, 'tool calls', 'tool-calls');
    const filters = owner.getByRole('search', { name: 'Tool calls' });
    await filters.getByLabel('Outcome').selectOption('INVALID_ARGUMENTS');
    await filters.getByLabel('Agent').selectOption({ label: 'Front desk' });
    await filters.getByRole('button', { name: 'Show calls' }).click();
    await owner.waitForURL(/outcome=INVALID_ARGUMENTS/);
    await poll(() => owner.getByRole('region', { name: 'Tool calls' }).getByRole('row').count()).toBe(2);
    await owner.getByRole('cell', { name: /Arguments did not fit/ }).waitFor();
    await visited(owner, 'tool calls (filtered)');
    await filters.getByLabel('Agent').selectOption({ label: 'Sales bot' });
    await filters.getByRole('button', { name: 'Show calls' }).click();
    await owner.getByText('No calls match these filters.').waitFor();
    await filters.getByRole('button', { name: 'Clear filters' }).click();
    await owner.waitForURL(`${app}/app/tool-calls`);
    // By day, in the browser's days, the last one included: today shows every call, yesterday none.
    const day = (offset: number) => {
      const d = new Date();
      d.setDate(d.getDate() + offset);
      return `${d.getFullYear()}-${String(d.getMonth() + 1).padStart(2, '0')}-${String(d.getDate()).padStart(2, '0')}`;
    };
    await filters.getByLabel('From', { exact: true }).fill(day(0));
    await filters.getByLabel('To', { exact: true }).fill(day(0));
    await filters.getByRole('button', { name: 'Show calls' }).click();
    await owner.waitForURL(new RegExp(`from=${day(0)}&to=${day(0)}`));
    await poll(() => owner.getByRole('region', { name: 'Tool calls' }).getByRole('row').count()).toBe(4);
    await filters.getByLabel('From', { exact: true }).fill(day(-1));
    await filters.getByLabel('To', { exact: true }).fill(day(-1));
    await filters.getByRole('button', { name: 'Show calls' }).click();
    await owner.getByText('No calls match these filters.').waitFor();
    await filters.getByRole('button', { name: 'Clear filters' }).click();
    await owner.waitForURL(`${app}/app/tool-calls`);

    // The agent page: its tools, and an agent key for MCP, copied, then revoked.
    await nav(owner, 'Agents');
    await owner.getByRole('link', { name: 'Front desk' }).click();
    await owner.waitForURL(`${app}/app/agents/${frontDesk}/brand`);
    await owner.getByRole('navigation', { name: 'Agent sections' }).getByRole('link', { name: 'Tools and MCP' }).click();
    await owner.waitForURL(`${app}/app/agents/${frontDesk}/tools`);
    const section = owner.getByRole('region', { name: 'Tools and MCP' });
    await section.getByRole('list', { name: 'Tools this agent can call' }).getByText(toolName).waitFor();
    await visited(owner, 'agent with tools', 'agent-tools');
    await section.getByLabel('Where is it used?').fill('Claude Desktop');
    await section.getByRole('button', { name: 'Create agent key' }).click();
    const shown = (await section.getByLabel('The new agent key').textContent())!.trim();
    expect(shown).toMatch(/^svc_agt_/);
    await poll(() => section.getByLabel('MCP client configuration').inputValue()).toContain(`"url": "${app}/mcp"`);
    await section.getByRole('button', { name: 'Copy key' }).click();
    await section.getByRole('button', { name: 'Copied' }).waitFor();
    await poll(() => owner.evaluate<string>('navigator.clipboard.readText()')).toBe(shown);
    await visited(owner, 'agent key created');
    const mcp = () =>
      fetch(`${app}/mcp`, {
        method: 'POST',
        headers: { authorization: `Bearer ${shown}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} }),
      });
    expect((await mcp()).status).not.toBe(401);
    await section.getByRole('button', { name: 'I have stored it' }).click();
    const keyRow = section.getByRole('row', { name: /Claude Desktop/ });
    await keyRow.getByText(`…${shown.slice(-4)}`).waitFor();
    await keyRow.getByRole('button', { name: 'Revoke agent key Claude Desktop' }).click();
    const revoke = owner.getByRole('alertdialog', { name: 'Revoke “Claude Desktop”?' });
    // Open before axe looks at it (a click returns before the dialog is drawn).
    await revoke.waitFor();
    await axe(owner, 'revoke agent key dialog');
    checked.push('revoke agent key dialog');
    await revoke.getByRole('button', { name: 'Revoke key' }).click();
    await revoke.waitFor({ state: 'detached' });
    await section.getByText('No agent keys.').waitFor();
    expect((await mcp()).status).toBe(401);
  }, FLOW_TIMEOUT);

  it('another organization gets the not-found page for the installation', async () => {
    const otherContext = await newContext();
    const other = await newPage(otherContext);
    await signUp(other, app, OTHER);
    await other.goto(`${app}/app/tools/${installationId}`);
    await poll(() => h1(other).textContent()).toBe('Not found');
    await other.getByText('This tool does not exist, or it belongs to another organization.').waitFor();
    expect(await other.getByText(toolName).count()).toBe(0);
    await visited(other, 'installation of another organization');
    await nav(other, 'Tools');
    await other.getByRole('heading', { name: 'No tools yet' }).waitFor();
    await otherContext.close();
  }, FLOW_TIMEOUT);

  it('the operator removes the tool, with confirmation', async () => {
    await owner.goto(`${app}/app/tools/${installationId}`);
    await settled(owner);
    await owner.getByRole('button', { name: `Remove tool ${toolName}` }).click();
    const confirm = owner.getByRole('alertdialog', { name: `Remove “${toolName}”?` });
    await confirm.waitFor();
    await axe(owner, 'remove tool dialog');
    checked.push('remove tool dialog');
    await confirm.getByRole('button', { name: 'Remove tool' }).click();
    await owner.waitForURL(`${app}/app/tools`);
    await owner.getByRole('heading', { name: 'No tools yet' }).waitFor();
    // React Aria's pending button announced its progress bar, which left with the dialog; its announcer drops the stale entry after a few seconds.
    await poll(() => owner.locator('[role="log"] [role="img"]').count(), { timeout: 15_000 }).toBe(0);
    await visited(owner, 'tools after removal');
    await owner.goto(`${app}/app/tools/${installationId}`);
    await poll(() => h1(owner).textContent()).toBe('Not found');
    // Its calls stay in the log.
    await owner.goto(`${app}/app/tool-calls`);
    await poll(() => owner.getByRole('region', { name: 'Tool calls' }).getByRole('row').count()).toBe(4);
    await ownerContext.close();
    expect(pageErrors).toEqual([]);
  }, FLOW_TIMEOUT);

  it('checked every page and dialog visited with axe-core, and sent nothing off the machine', () => {
    expect(checked.length).toBeGreaterThan(15);
    expect(blocked, 'requests aborted for leaving loopback').toEqual([]);
  });
});
