import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAgent, createBrowserHarness, h1, nav, poll, signUp, signUpDeveloper } from '../../test/support/browser.js';
import { createServingTestContext, testDialects, type TestContext } from '../../test/support/context.js';
import { json, startHttpsEndpoint, type HttpsEndpoint } from '../../test/support/https-endpoint.js';
import { toolEndpointOptions } from '../../test/support/invocation-factories.js';

const DEV = { name: 'Dana Tools', email: 'dana@weather.example', password: 'violet kettle marathon' };
const OWNER = { name: 'Olive Owner', email: 'olive@brightsmile.example', password: 'amber lantern harbour', org: 'Bright Smile Dental' };
const TOOL = 'weather_lookup';
/** The bearer tokens typed in the browser: the developer's test token and the business's own. */
const TEST_TOKEN = 'dev-test-token-5f4e3d';
const BUSINESS_TOKEN = 'business-token-a1b2c3';

/**
 * The developer portal's whole loop, in Chromium, by accessible names, on every database the run has
 * (SQLite always; PostgreSQL under `npm run test:all`): a developer signs up, registers an app, creates
 * a tool with two parameters, tests it against a real HTTPS endpoint on loopback, and publishes it; an
 * operator, in another browser profile, finds it in the catalog, enables it for an agent with a bearer
 * token and calls it; the developer then sees that call in the tool's calls. The endpoint records what
 * it received, so each step is checked at the far end too: the arguments, `_svc_context` and the token.
 */
describe.each(testDialects())('the developer portal’s loop in Chromium (%s)', (dialect) => {
  let t: TestContext;
  let endpoint: HttpsEndpoint;
  let app: string;
  const harness = createBrowserHarness({ artifacts: `portal-loop-${dialect}` });
  const { newContext, newPage, visited, pageErrors, blocked } = harness;

  beforeAll(async () => {
    endpoint = await startHttpsEndpoint(json(200, { forecast: 'sunny', tempC: 21 }));
    const served = await createServingTestContext(dialect, toolEndpointOptions(endpoint));
    t = served;
    app = served.url;
    t.clock.now = () => new Date();
    await harness.start(app);
  }, 120_000);

  afterAll(async () => {
    await harness.close();
    await t?.close();
    await endpoint?.close();
  });

  const bodyOf = (i: number) => JSON.parse(endpoint.requests[i]!.body.toString('utf8')) as Record<string, any>;

  it('sign-up → app → tool with two parameters → test call → publish; an operator enables and calls it; the developer sees the call', async () => {
    // ── The developer ──
    const devContext = await newContext();
    const dev = await newPage(devContext);
    await signUpDeveloper(dev, app, DEV);
    await visited(dev, 'developer overview');

    // An app: its secret is shown once, and the token request it comes with works.
    await nav(dev, 'Apps');
    await dev.getByRole('button', { name: 'Register an app' }).click();
    const register = dev.getByRole('dialog', { name: 'Register an app' });
    await register.getByLabel('App name').fill('Weather bot');
    await register.getByRole('button', { name: 'Register app' }).click();
    const secret = (await register.getByLabel('The new client secret').textContent())!.trim();
    expect(secret).toMatch(/^svc_cs_/);
    await register.getByRole('button', { name: 'I have stored it' }).click();
    const card = dev.getByRole('region', { name: 'Weather bot' });
    const curl = await card.getByLabel('Token request (curl)').inputValue();
    const clientId = /app_[0-9A-Za-z]+/.exec(curl)?.[0];
    expect(clientId, curl).toBeDefined();
    const token = await fetch(`${app}/api/dev/oauth/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ grant_type: 'client_credentials', client_id: clientId!, client_secret: secret }).toString(),
    });
    expect(token.status).toBe(200);
    await visited(dev, 'apps');

    // A tool with two parameters, its endpoint the local HTTPS server, sent a bearer token.
    await nav(dev, 'Tools');
    await dev.getByRole('link', { name: 'New tool' }).click();
    await dev.waitForURL(`${app}/app/developer/tools/new`);
    await dev.getByLabel('Tool name').fill(TOOL);
    await dev.getByLabel(/^Description/).fill('Looks up the weather forecast for a city.');
    await dev.getByLabel('Endpoint URL').fill(`https://tool.test:${endpoint.port}/weather`);
    await dev.getByLabel('Authentication').selectOption('bearer');
    await dev.getByRole('button', { name: 'Add parameter' }).click();
    const first = dev.getByRole('group', { name: 'Parameter 1' });
    await first.getByLabel('Parameter name').fill('city');
    await first.getByLabel('Parameter description').fill('City name, e.g. Lisbon.');
    await first.getByLabel('Required', { exact: true }).check();
    await dev.getByRole('button', { name: 'Add parameter' }).click();
    const second = dev.getByRole('group', { name: 'Parameter 2' });
    await second.getByLabel('Parameter name').fill('days');
    await second.getByLabel('Type', { exact: true }).selectOption('number');
    await second.getByLabel('Parameter description').fill('How many days ahead.');
    // The preview is what an OpenAI Chat Completions model receives: both parameters, city required.
    await poll(async () => JSON.parse((await dev.getByRole('region', { name: 'OpenAI Chat Completions definition' }).textContent()) ?? '{}')).toMatchObject({
      type: 'function',
      function: { name: TOOL, parameters: { properties: { city: { type: 'string' }, days: { type: 'number' } }, required: ['city'] } },
    });
    await visited(dev, 'tool editor');
    await dev.getByRole('button', { name: 'Create tool' }).click();
    await dev.waitForURL(new RegExp(`${app}/app/developer/tools/tool_[0-9A-Za-z]+$`));
    const toolId = new URL(dev.url()).pathname.split('/').pop()!;
    await poll(() => h1(dev).textContent()).toBe(TOOL);

    // A test call of the draft: the exact request, the token masked, and what came back.
    endpoint.reset();
    const test = dev.getByRole('region', { name: 'Test' });
    await test.getByLabel('city (string)').fill('Lisbon');
    await test.getByLabel('days (number)').fill('3');
    await test.getByLabel('Bearer token').fill(TEST_TOKEN);
    await test.getByRole('button', { name: 'Send test call' }).click();
    await poll(() => test.getByRole('heading', { name: 'Request sent' }).count()).toBe(1);
    await poll(() => test.getByRole('table', { name: 'Headers (credentials masked)' }).getByRole('row', { name: /authorization Bearer \*{8}/i }).count()).toBe(1);
    expect(JSON.parse((await test.getByRole('region', { name: 'Response body' }).textContent())!)).toEqual({ forecast: 'sunny', tempC: 21 });
    expect(endpoint.requests).toHaveLength(1);
    expect(endpoint.requests[0]!.headers.authorization).toBe(`Bearer ${TEST_TOKEN}`);
    expect(bodyOf(0)).toMatchObject({ city: 'Lisbon', days: 3, _svc_context: { toolId } });
    await visited(dev, 'tool page after a test call');

    // Publish: the dialog shows what goes live, then the tool is live as version 1.
    await dev.getByRole('button', { name: 'Publish', exact: true }).click();
    const publish = dev.getByRole('dialog', { name: `Publish ${TOOL}?` });
    await publish.getByRole('button', { name: 'Publish version 1' }).click();
    const history = dev.getByRole('region', { name: 'Revision history' });
    await poll(() => history.getByRole('heading', { level: 3 }).allTextContents()).toEqual(['Version 1 Live']);

    // ── The operator, in another browser profile ──
    const ownerContext = await newContext();
    const owner = await newPage(ownerContext);
    await signUp(owner, app, OWNER);
    const agentId = await createAgent(owner, 'Front desk');

    // The tool is in the catalog; enabled for Front desk with the business's own token.
    await nav(owner, 'Tools');
    await owner.getByRole('link', { name: 'Browse the catalog' }).click();
    await owner.waitForURL(`${app}/app/tools/catalog`);
    const search = owner.getByRole('search', { name: 'Catalog' });
    await search.getByLabel('Search').fill('weather');
    await search.getByRole('button', { name: 'Search', exact: true }).click();
    const listing = owner.getByRole('article', { name: TOOL });
    await listing.getByText(DEV.name).waitFor();
    await listing.getByRole('button', { name: `Enable ${TOOL}` }).click();
    const enable = owner.getByRole('dialog', { name: `Enable “${TOOL}”` });
    await enable.getByLabel('Only the agents I choose').check();
    await enable.getByLabel('Front desk').check();
    await enable.getByLabel(/^Bearer token/).fill(BUSINESS_TOKEN);
    await enable.getByRole('button', { name: 'Enable tool' }).click();
    await owner.waitForURL(/\/app\/tools\/inst_/);
    await poll(() => h1(owner).textContent()).toBe(TOOL);

    // A call as the agent reaches the endpoint with the business's token and the agent's context.
    const panel = owner.getByRole('region', { name: 'Test call' });
    await panel.getByLabel('Arguments (JSON)').fill('{"city": "Porto", "days": 1}');
    await panel.getByRole('button', { name: 'Run test call' }).click();
    await panel.getByText('Succeeded').waitFor();
    expect(endpoint.requests).toHaveLength(2);
    expect(endpoint.requests[1]!.headers.authorization).toBe(`Bearer ${BUSINESS_TOKEN}`);
    expect(bodyOf(1)).toMatchObject({ city: 'Porto', days: 1, _svc_context: { agentId, toolId } });
    await visited(owner, 'installation after a call');

    // ── The developer sees the business's call among the tool's calls ──
    await dev.reload();
    const calls = dev.getByRole('region', { name: 'Calls of this tool' });
    // The header row, the developer's test call and the agent's call.
    await poll(() => calls.getByRole('row').count()).toBe(3);
    await poll(() => calls.getByRole('row', { name: /Your test/ }).count()).toBe(1);
    await visited(dev, 'tool page with the business’s call');

    expect(pageErrors).toEqual([]);
    expect(blocked).toEqual([]);
  }, 240_000);

});
