import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createBrowserHarness, h1, poll } from '../../../../../../test/support/browser.js';
import { createServingTestContext, type TestContext } from '../../../../../../test/support/context.js';
import { createDeveloperWithApp, type DeveloperWithApp } from '../../../../../../test/support/factories.js';
import { json, startHttpsEndpoint, type HttpsEndpoint } from '../../../../../../test/support/https-endpoint.js';
import { createAgent, install, toolEndpointOptions } from '../../../../../../test/support/invocation-factories.js';
import { createOrgWithKey, orgCaller } from '../../../../../../test/support/org-factories.js';

const PASSWORD = 'correct horse battery';
const TEST_TOKEN = 'tok_browser_secret_4821';
/**
 * The whole flow is one test: four pages axe-checked and screenshotted at two widths, five dialogs, three
 * reloads, a dozen polls of up to 20 s each. Vitest's default 30 s (vitest.config.ts) leaves a loaded CI
 * machine no room for that, so the flow gets what the other console flows get.
 */
const FLOW_TIMEOUT = 240_000;

/**
 * The developer's tool page (docs/developer-portal.md, "The tool page: publish, test, calls") in Chromium,
 * by accessible names: publish with the diff shown, the history after two publishes, a test call against a
 * loopback HTTPS endpoint with the masked request, then businesses' calls in the table and the charts.
 * axe on the page and on each dialog, under the console's CSP.
 */
describe('the developer\'s tool page, in Chromium', () => {
  let t: TestContext;
  let app: string;
  let endpoint: HttpsEndpoint;
  let dev: DeveloperWithApp;
  const harness = createBrowserHarness({ artifacts: 'console-tool-page' });
  const { newContext, newPage, visited, axe, cookieOf, pageErrors, blocked } = harness;

  beforeAll(async () => {
    endpoint = await startHttpsEndpoint(json(200, { forecast: 'sunny', tempC: 21 }));
    const served = await createServingTestContext('sqlite', toolEndpointOptions(endpoint));
    t = served;
    app = served.url;
    t.clock.now = () => new Date();
    dev = await createDeveloperWithApp(t.database, t.clock, { name: 'Dana Tools' });
    await harness.start(app);
  }, 120_000);

  afterAll(async () => {
    await harness.close();
    await t?.close();
    await endpoint?.close();
  });

  async function signIn(page: Page) {
    await page.goto(`${app}/app/signin`);
    await page.getByLabel('Email').fill(dev.developer.email);
    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForURL((url) => !url.pathname.endsWith('/signin'));
  }

  it('publishes with the diff, lists the revisions, tests the tool, and shows its calls and charts', async () => {
    const context = await newContext();
    const page = await newPage(context);
    await signIn(page);

    // The tool, made with the same session through the Developer API (the editor is another page).
    const cookie = await cookieOf(context);
    const csrf = ((await (await fetch(`${app}/api/auth/session`, { headers: { cookie } })).json()) as { data: { csrfToken: string } }).data.csrfToken;
    const devApi = async (method: string, path: string, body?: unknown) => {
      const res = await fetch(`${app}${path}`, { method, headers: { cookie, 'x-csrf-token': csrf, 'content-type': 'application/json' }, ...(body ? { body: JSON.stringify(body) } : {}) });
      expect(res.status, `${method} ${path}`).toBeLessThan(300);
      return ((await res.json()) as { data: { id: string } }).data;
    };
    const tool = await devApi('POST', '/api/dev/tools', {
      name: 'weather_lookup',
      description: 'Looks up the weather for a city.',
      endpoint: `https://tool.test:${endpoint.port}/weather`,
      authType: 'bearer',
      parameters: [
        { name: 'city', type: 'string', required: true, description: 'City name' },
        { name: 'days', type: 'number' },
      ],
    });

    await page.goto(`${app}/app/developer/tools/${tool.id}`);
    await poll(() => h1(page).textContent()).toBe('weather_lookup');
    const publishing = page.getByRole('region', { name: 'Publishing' });
    await poll(() => publishing.getByText('Draft', { exact: true }).count()).toBe(1);
    await poll(() => page.getByText('Not published yet.', { exact: false }).count()).toBe(1);
    expect(await page.getByRole('link', { name: 'Edit definition' }).getAttribute('href')).toBe(`/app/developer/tools/${tool.id}/edit`);
    await visited(page, 'tool page, draft', 'tool-page-draft');

    // First publish: no diff, says what publishing does.
    await page.getByRole('button', { name: 'Publish', exact: true }).click();
    let dialog = page.getByRole('dialog', { name: 'Publish weather_lookup?' });
    await poll(() => dialog.getByText('This is the first version', { exact: false }).count()).toBe(1);
    await axe(page, 'publish dialog, first version');
    await dialog.getByRole('button', { name: 'Publish version 1' }).click();
    await poll(() => dialog.count()).toBe(0);
    await poll(() => publishing.getByText('Published', { exact: true }).count()).toBe(1);

    // An edit of the working copy, then the second publish shows the diff field by field.
    await devApi('PUT', `/api/dev/tools/${tool.id}`, {
      description: 'Looks up the forecast for a city.',
      parameters: [
        { name: 'city', type: 'string', required: true, description: 'City name' },
        { name: 'days', type: 'number', required: true },
        { name: 'units', type: 'string', description: 'metric or imperial' },
      ],
    });
    await page.reload();
    await poll(() => publishing.getByText('Published, with unpublished changes').count()).toBe(1);
    await page.getByRole('button', { name: 'Publish', exact: true }).click();
    dialog = page.getByRole('dialog', { name: 'Publish weather_lookup?' });
    const fields = dialog.getByRole('table', { name: 'Changed fields' });
    await poll(() => fields.getByRole('row', { name: 'Description Looks up the weather for a city. Looks up the forecast for a city.' }).count()).toBe(1);
    await poll(() => dialog.getByRole('listitem').filter({ hasText: /^Added units/ }).count()).toBe(1);
    await poll(() => dialog.getByRole('listitem').filter({ hasText: /^Changed days/ }).count()).toBe(1);
    await poll(() => dialog.getByText('Required: was no, now yes').count()).toBe(1);
    await axe(page, 'publish dialog with a diff');
    await page.screenshot({ path: 'test-artifacts/console-tool-page/publish-diff-1280.png' });
    await dialog.getByRole('button', { name: 'Publish version 2' }).click();
    await poll(() => dialog.count()).toBe(0);

    // The history: two versions, newest first, the live one marked, each with its changes and definition.
    const history = page.getByRole('region', { name: 'Revision history' });
    await poll(() => history.getByRole('heading', { level: 3 }).allTextContents()).toEqual(['Version 2 Live', 'Version 1']);
    await history.getByText('Changes from version 1').click();
    await poll(() => history.getByText('Required: was no, now yes').count()).toBe(1);
    await history.getByText('Definition of version 1').click();
    const definition = history.locator('details', { hasText: 'Definition of version 1' });
    await poll(() => definition.getByText('Looks up the weather for a city.').count()).toBe(1);
    await poll(() => definition.getByText('number, optional').count()).toBe(1);

    // A test call with the form: the exact request with the token masked, and the response.
    const test = page.getByRole('region', { name: 'Test' });
    await poll(() => test.getByText('never stored', { exact: false }).count()).toBe(1);
    await test.getByLabel('city (string)').fill('Lisbon');
    await test.getByLabel('days (number)').fill('3');
    await test.getByLabel('Bearer token').fill(TEST_TOKEN);
    await test.getByRole('button', { name: 'Send test call' }).click();
    await poll(() => test.getByRole('heading', { name: 'Request sent' }).count()).toBe(1);
    const headers = test.getByRole('table', { name: 'Headers (credentials masked)' });
    await poll(() => headers.getByRole('row', { name: /authorization Bearer \*{8}/i }).count()).toBe(1);
    await poll(() => headers.getByRole('row', { name: /x-svc-signature/i }).count()).toBe(0); // bearer: no HMAC signature
    const body = await test.getByRole('region', { name: 'Request body' }).textContent();
    expect(JSON.parse(body!)).toMatchObject({ city: 'Lisbon', days: 3, _svc_context: { agentId: 'agt_test', orgId: 'org_test' } });
    await poll(() => test.getByText('Succeeded').count()).toBe(1);
    expect(JSON.parse((await test.getByRole('region', { name: 'Response body' }).textContent())!)).toEqual({ forecast: 'sunny', tempC: 21 });
    // Masked everywhere the page shows the request (the password input alone holds it, to send again).
    expect(await test.locator('.tool-test-result').innerHTML()).not.toContain(TEST_TOKEN);
    expect(await test.locator('.tool-test-result').textContent()).not.toContain('tok_');
    // The endpoint did get the real token.
    expect(endpoint.requests.at(-1)!.headers.authorization).toBe(`Bearer ${TEST_TOKEN}`);
    await visited(page, 'tool page after a test call', 'tool-page-tested');

    // As JSON (seeded from the form): arguments that do not fit are refused before anything is sent.
    const sent = endpoint.requests.length;
    await test.getByLabel('JSON').check();
    const argumentsBox = test.getByLabel('Arguments (JSON)');
    expect(JSON.parse(await argumentsBox.inputValue())).toEqual({ city: 'Lisbon', days: 3 });
    await argumentsBox.fill('{"city": 5, "days": 3}');
    await test.getByRole('button', { name: 'Send test call' }).click();
    await poll(() => test.getByText('Arguments did not fit').count()).toBe(1);
    await poll(() => test.getByText('INVALID_ARGUMENTS', { exact: true }).count()).toBe(1);
    expect(endpoint.requests.length).toBe(sent);
    await axe(page, 'tool page, refused test call');

    // Businesses call it: three answers, one of them an error.
    const org = await createOrgWithKey(t.database, t.clock);
    await install(t.app, org, { toolId: tool.id, credentials: { token: 'tok_org' } });
    const agent = await createAgent(t.app, org);
    const call = orgCaller(t.app);
    for (const status of [200, 200, 500]) {
      endpoint.respond(json(status, { ok: status === 200 }));
      await call('POST', `/api/org/agents/${agent.id}/tool-calls`, org, { name: 'weather_lookup', arguments: { city: 'Porto', days: 1 } });
    }
    await page.reload();
    const calls = page.getByRole('region', { name: 'Calls of this tool' });
    await poll(() => calls.getByRole('row').count()).toBe(5); // header + 3 agents' calls + the test call
    await poll(() => calls.getByRole('row', { name: /Your test/ }).count()).toBe(1);
    const stats = page.getByRole('region', { name: 'Last 30 days' });
    const callsChart = stats.getByRole('img', { name: /^Calls per day by outcome/ });
    await poll(() => callsChart.count()).toBe(1);
    expect(await callsChart.getAttribute('aria-labelledby')).toBeTruthy();
    await poll(() => stats.getByRole('img', { name: /^Latency per day/ }).count()).toBe(1);
    await stats.getByText('Calls per day as a table').click();
    const perDay = stats.getByRole('table', { name: 'Calls per day by outcome' });
    // Today's row: 3 calls, 2 succeeded, 1 error (the test call is not counted).
    await poll(() => perDay.getByRole('row').nth(1).getByRole('cell').allTextContents()).toEqual(['3', '2', '1']);
    expect(await perDay.getByRole('columnheader').allTextContents()).toEqual(['Day', 'Calls', 'Succeeded', 'Tool answered an error']);
    await stats.getByText('Latency per day as a table').click();

    // Filter: only the failures.
    await page.getByRole('search', { name: 'Filter calls' }).getByLabel('Outcome').selectOption('TOOL_HTTP_ERROR');
    await page.getByRole('button', { name: 'Show calls' }).click();
    await poll(() => calls.getByRole('row').count()).toBe(2);
    await poll(() => calls.getByText('HTTP 500', { exact: false }).count()).toBe(1);
    await visited(page, 'tool page with calls and charts', 'tool-page-calls');

    // Unpublish and Delete each ask first, saying what happens to businesses.
    await page.getByRole('button', { name: 'Unpublish' }).click();
    const unpublish = page.getByRole('alertdialog', { name: 'Unpublish weather_lookup?' });
    await poll(() => unpublish.getByText('keep their installation', { exact: false }).count()).toBe(1);
    await axe(page, 'unpublish dialog');
    await unpublish.getByRole('button', { name: 'Cancel' }).click();
    await page.getByRole('button', { name: 'Delete' }).click();
    const remove = page.getByRole('alertdialog', { name: 'Delete weather_lookup?' });
    await poll(() => remove.getByText('loses its installation', { exact: false }).count()).toBe(1);
    await axe(page, 'delete dialog');
    await remove.getByRole('button', { name: 'Delete tool' }).click();
    await page.waitForURL(`${app}/app/developer/tools`);
    expect((await fetch(`${app}/api/dev/tools/${tool.id}`, { headers: { cookie } })).status).toBe(404);

    await context.close();
    expect(pageErrors).toEqual([]);
    expect(blocked).toEqual([]);
  }, FLOW_TIMEOUT);
});
