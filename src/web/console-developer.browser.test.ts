import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createBrowserHarness, h1, mainLinks, nav, poll } from '../../test/support/browser.js';
import { createServingTestContext, type TestContext } from '../../test/support/context.js';

const DEV = { name: 'Dana Tools', email: 'dana@tools.example', password: 'violet kettle marathon' };
const OPERATOR = { name: 'Olive Owner', email: 'olive@plumbing.example', password: 'amber lantern harbour', org: 'Olive Plumbing' };

/**
 * A person without an organization in the console (docs/accounts.md, "One person, one sign-in"), in
 * Chromium, by accessible names: a developer signs up, lands on the Developer page with their tools (read
 * through the Developer API with the session), and is kept off the operator pages; an operator becomes a
 * developer from the same page. Every page is axe-checked under the console's CSP.
 */
describe('the console for a developer, in Chromium', () => {
  let t: TestContext;
  let app: string;
  const harness = createBrowserHarness({ artifacts: 'console-developer' });
  const { newContext, newPage, visited, cookieOf, pageErrors, blocked } = harness;

  beforeAll(async () => {
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

  it('a developer signs up, sees their tools on the Developer page, and the operator pages send them back there', async () => {
    const context = await newContext();
    const page = await newPage(context);
    await page.goto(`${app}/app/signup`);
    await poll(() => h1(page).textContent()).toBe('Create your account');
    await page.getByLabel('Build tools (a developer account)').check();
    await poll(() => page.getByLabel('Organization name').count()).toBe(0);
    await page.getByLabel('Your name').fill(DEV.name);
    await page.getByLabel('Email').fill(DEV.email);
    await page.getByLabel('Password').fill(DEV.password);
    await page.getByRole('button', { name: 'Create account' }).click();

    await page.waitForURL(`${app}/app/developer`);
    await poll(() => h1(page).textContent()).toBe('Developer');
    await poll(() => page.getByRole('heading', { name: DEV.name, level: 2 }).count()).toBe(1);
    await poll(() => page.getByText(`Signed in as ${DEV.email}.`).count()).toBe(1);
    await poll(() => page.getByText(/^You have no tools yet\./).count()).toBe(1);
    await visited(page, 'developer, no tools', 'developer-empty');

    // A tool made with the same session through the Developer API (the CSRF token from the session).
    const cookie = await cookieOf(context);
    const session = (await (await fetch(`${app}/api/auth/session`, { headers: { cookie } })).json()) as { data: { csrfToken: string } };
    const created = await fetch(`${app}/api/dev/tools`, {
      method: 'POST',
      headers: { cookie, 'x-csrf-token': session.data.csrfToken, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'weather_lookup', description: 'Looks up the weather for a city.', endpoint: 'https://127.0.0.1:9/weather' }),
    });
    expect(created.status).toBe(201);
    await page.reload();
    const table = page.getByRole('table', { name: 'Your tools' });
    await poll(() => table.getByRole('row').count()).toBe(2);
    await poll(() => table.getByRole('row', { name: /weather_lookup Draft/ }).count()).toBe(1);
    await visited(page, 'developer, one tool', 'developer-tools');

    // The navigation offers the developer pages only; an operator page sends them back.
    await poll(() => mainLinks(page)).toEqual(['Overview', 'Apps', 'Tools', 'Audit log', 'Public catalog', 'Settings']);
    await page.goto(`${app}/app/forms`);
    await page.waitForURL(`${app}/app/developer`);
    await nav(page, 'Settings');
    await poll(() => h1(page).textContent()).toBe('Settings');
    await visited(page, 'settings without an organization');
    await context.close();
  });

  it('an operator becomes a developer from the Developer page, and then has both', async () => {
    const context = await newContext();
    const page = await newPage(context);
    await page.goto(`${app}/app/signup`);
    await page.getByLabel('Your name').fill(OPERATOR.name);
    await page.getByLabel('Email').fill(OPERATOR.email);
    await page.getByLabel('Organization name').fill(OPERATOR.org);
    await page.getByLabel('Password').fill(OPERATOR.password);
    await page.getByRole('button', { name: 'Create account' }).click();
    await page.waitForURL(`${app}/app/forms`);

    await page.goto(`${app}/app/developer`);
    await poll(() => page.getByRole('heading', { name: 'Become a developer' }).count()).toBe(1);
    await visited(page, 'developer, become one');
    await page.getByLabel('Developer name').fill('Olive Tools');
    await page.getByRole('button', { name: 'Become a developer' }).click();
    await poll(() => page.getByRole('heading', { name: 'Olive Tools', level: 2 }).count()).toBe(1);
    // Both now: the developer pages here, the operator pages one switch away (console-developer-apps.browser.test.ts).
    await poll(() => mainLinks(page)).toEqual(['Overview', 'Apps', 'Tools', 'Audit log', 'Public catalog', 'Settings']);
    await poll(() => page.getByRole('navigation', { name: 'Switch area' }).getByRole('link').allTextContents()).toEqual(['Business', 'Developer']);
    await context.close();
    expect(pageErrors).toEqual([]);
    expect(blocked).toEqual([]);
  });
});
