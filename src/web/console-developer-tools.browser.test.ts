import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createBrowserHarness, h1, poll, signUpDeveloper } from '../../test/support/browser.js';
import { createServingTestContext, type TestContext } from '../../test/support/context.js';

const DEV = { name: 'Tess Tools', email: 'tess@tools.example', password: 'copper meadow lantern' };
/** One flow: sign-up, three pages axe-checked at two widths, the editor sent three times; more than Vitest's default 30 s on a loaded CI machine. */
const FLOW_TIMEOUT = 240_000;

/**
 * The developer portal's tools pages (web/console/src/pages/developer/tools), in Chromium, by accessible
 * names: the empty list says what a tool is; a tool is made with two parameters (one moved by keyboard,
 * focus kept on the moved row), the export preview follows the form, the reserved parameter name is
 * refused as typed, an internal endpoint is named internal with its reason, and the saved tool is listed.
 * List and editor are axe-checked under the console's CSP.
 */
describe('the developer portal: tools list and editor, in Chromium', () => {
  let t: TestContext;
  let app: string;
  const harness = createBrowserHarness({ artifacts: 'console-developer-tools' });
  const { newContext, newPage, visited, pageErrors, blocked } = harness;

  beforeAll(async () => {
    // Local development: the endpoint may be on this machine, and the check still calls it internal.
    const served = await createServingTestContext('sqlite', { env: { TOOL_ALLOW_PRIVATE_ENDPOINTS: '1' } });
    t = served;
    app = served.url;
    t.clock.now = () => new Date();
    await harness.start(app);
  }, 120_000);

  afterAll(async () => {
    await harness.close();
    await t?.close();
  });

  it('creates a tool with two parameters, reordered by keyboard, previews it, checks its endpoint and lists it', async () => {
    const context = await newContext();
    const page = await newPage(context);
    await signUpDeveloper(page, app, DEV);

    // The empty list: what a tool is, and the way to start.
    await page.goto(`${app}/app/developer/tools`);
    await poll(() => h1(page).textContent()).toBe('Your tools');
    await poll(() => page.getByRole('heading', { name: 'No tools yet' }).count()).toBe(1);
    await visited(page, 'developer tools, empty', 'developer-tools-empty');
    await page.getByRole('link', { name: 'New tool' }).click();
    await page.waitForURL(`${app}/app/developer/tools/new`);
    await poll(() => h1(page).textContent()).toBe('New tool');

    await page.getByLabel('Tool name').fill('weather_lookup');
    await page.getByLabel(/^Description/).fill('Looks up the weather for a city.');
    const openai = page.getByRole('region', { name: 'OpenAI Chat Completions definition' });
    await poll(() => openai.textContent()).toContain('"name": "weather_lookup"');

    // A public address: said public. An internal one: named internal with its reason, allowed only by the local setting.
    const endpoint = page.getByLabel('Endpoint URL');
    await endpoint.fill('https://93.184.215.14/weather');
    const verdict = page.getByRole('status').filter({ hasText: '93.184.215.14' });
    await poll(() => verdict.textContent()).toBe('93.184.215.14 is public. Saving and publishing would accept it.');
    await endpoint.fill('https://127.0.0.1:9/weather');
    await poll(() => page.getByRole('status').filter({ hasText: '127.0.0.1' }).textContent()).toBe(
      '127.0.0.1 is internal: a loopback address. Allowed here only because this server allows private endpoints (local development).',
    );
    await poll(() => page.getByText('127.0.0.1: internal, a loopback address').count()).toBe(1);

    // Two parameters: days, then city; the reserved name is refused as typed.
    await page.getByRole('button', { name: 'Add parameter' }).click();
    const first = page.getByRole('group', { name: 'Parameter 1' });
    await poll(() => page.evaluate<string | null>("document.activeElement?.getAttribute('data-focus') ?? null")).toBe('name');
    await first.getByLabel('Parameter name').fill('_svc_context');
    await poll(() => first.getByText('The name cannot be _svc_context: the service uses that key for call context.').count()).toBe(1);
    await first.getByLabel('Parameter name').fill('days');
    await first.getByLabel('Type', { exact: true }).selectOption('number');
    await first.getByLabel('Parameter description').fill('How many days ahead.');
    await page.getByRole('button', { name: 'Add parameter' }).click();
    const second = page.getByRole('group', { name: 'Parameter 2' });
    await second.getByLabel('Parameter name').fill('city');
    await second.getByLabel('Parameter description').fill('City name, e.g. Lisbon.');
    await second.getByLabel('Required', { exact: true }).check();
    await poll(() => openai.textContent()).toMatch(/"days"[\s\S]*"city"/);

    // days moves down by keyboard (React re-inserts that row's element, which drops the focus unless the
    // editor puts it back): the focus stays on its Move down button, now in the second row.
    await page.getByRole('button', { name: 'Move down: days' }).focus();
    await page.keyboard.press('Enter');
    await poll(() => page.getByRole('group', { name: 'Parameter 1' }).getByLabel('Parameter name').inputValue()).toBe('city');
    await poll(() => page.evaluate<string | null>("document.activeElement?.getAttribute('aria-label') ?? null")).toBe('Move down: days');
    await poll(() => page.getByText('days moved to position 2 of 2.').count()).toBe(1);
    // And by mouse: up and back down again.
    await page.getByRole('button', { name: 'Move up: days' }).click();
    await poll(() => page.getByRole('group', { name: 'Parameter 1' }).getByLabel('Parameter name').inputValue()).toBe('days');
    await page.getByRole('button', { name: 'Move down: days' }).click();
    await poll(() => page.getByRole('group', { name: 'Parameter 2' }).getByLabel('Parameter name').inputValue()).toBe('days');
    await poll(() => openai.textContent()).toMatch(/"city"[\s\S]*"days"[\s\S]*"required": \[\s*"city"\s*\]/);
    // The other APIs' shapes, from the same export. Responses: flat, and not strict while days is optional.
    await page.getByRole('tab', { name: 'OpenAI Responses' }).click();
    await poll(async () => JSON.parse((await page.getByRole('region', { name: 'OpenAI Responses definition' }).textContent()) ?? '{}')).toMatchObject({
      type: 'function', name: 'weather_lookup', parameters: { required: ['city'] }, strict: false,
    });
    await page.getByRole('tab', { name: 'Anthropic' }).click();
    await poll(() => page.getByRole('region', { name: 'Anthropic definition' }).textContent()).toContain('"input_schema"');
    await page.getByRole('tab', { name: 'MCP' }).click();
    await poll(() => page.getByRole('region', { name: 'MCP definition' }).textContent()).toContain('"inputSchema"');
    await visited(page, 'developer tool editor', 'developer-tool-editor');

    await page.getByRole('button', { name: 'Create tool' }).click();
    await page.waitForURL(new RegExp(`${app}/app/developer/tools/tool_[0-9A-Za-z]+$`));

    await page.goto(`${app}/app/developer/tools`);
    const table = page.getByRole('table', { name: 'Your tools' });
    await poll(() => table.getByRole('row', { name: /weather_lookup Draft/ }).count()).toBe(1);
    await visited(page, 'developer tools, one tool', 'developer-tools-list');

    // Saved as edited: the parameters in the order chosen.
    const cookie = (await context.cookies()).map((c) => `${c.name}=${c.value}`).join('; ');
    const listed = (await (await fetch(`${app}/api/dev/tools`, { headers: { cookie } })).json()) as { data: { items: Array<{ id: string; parameters: Array<{ name: string; required: boolean }> }> } };
    expect(listed.data.items[0]?.parameters.map((p) => [p.name, p.required])).toEqual([['city', true], ['days', false]]);

    // The API's refusal beside the field it names, with the focus there: a name already taken.
    await page.goto(`${app}/app/developer/tools/new`);
    await page.getByLabel('Tool name').fill('weather_lookup');
    await page.getByLabel(/^Description/).fill('Another weather tool.');
    await page.getByLabel('Endpoint URL').fill('https://127.0.0.1:9/other');
    await page.getByRole('button', { name: 'Create tool' }).click();
    const nameInput = page.getByLabel('Tool name');
    await poll(() => nameInput.getAttribute('aria-invalid')).toBe('true');
    await poll(() => page.getByText(/You already have a tool named "weather_lookup"/).count()).toBe(1);
    const nameId = await nameInput.getAttribute('id');
    await poll(() => page.evaluate<string | null>('document.activeElement?.id ?? null')).toBe(nameId);
    await page.getByRole('link', { name: 'Cancel' }).click();
    await page.getByRole('button', { name: 'Leave and lose changes' }).click();
    await page.waitForURL(`${app}/app/developer/tools`);
    // The address changes before the list replaces the editor (a router transition); until it does, the editor's
    // "unsaved changes" beforeunload question is still on and would cancel the goto below (seen under load: net::ERR_ABORTED).
    await poll(() => h1(page).textContent()).toBe('Your tools');

    // The editor of a saved tool, and its warning before leaving with unsaved changes.
    await page.goto(`${app}/app/developer/tools/${listed.data.items[0]?.id}/edit`);
    await poll(() => h1(page).textContent()).toBe('Edit weather_lookup');
    await page.getByLabel(/^Description/).fill('Looks up the weather for any city.');
    await page.getByRole('link', { name: 'Cancel' }).click();
    await poll(() => page.getByRole('alertdialog', { name: 'Leave without saving?' }).count()).toBe(1);
    await page.getByRole('button', { name: 'Stay and keep editing' }).click();
    await page.getByRole('button', { name: 'Save changes' }).click();
    await page.waitForURL(new RegExp(`${app}/app/developer/tools/tool_[0-9A-Za-z]+$`));
    await context.close();
    expect(pageErrors).toEqual([]);
    expect(blocked).toEqual([]);
  }, FLOW_TIMEOUT);
});
