import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createBrowserHarness, h1, mainLinks, nav, poll, signUp, signUpDeveloper } from '../../test/support/browser.js';
import { createServingTestContext, type TestContext } from '../../test/support/context.js';

const DEV = { name: 'Dana Tools', email: 'dana@apps.example', password: 'violet kettle marathon' };
const BOTH = { name: 'Olive Owner', email: 'olive@both.example', password: 'amber lantern harbour', org: 'Olive Plumbing' };

/**
 * The developer portal's Apps page and the console's two areas, in Chromium, by accessible names (the
 * names the whole-loop test relies on): a developer registers an app and sees its secret once, gets a
 * token with the curl the page shows, rotates the secret with an hour's grace (the old one works until
 * then, and not after), narrows the scopes, and deletes the app (its token refused at once). A person
 * who is both switches between the operator and the developer pages. Every page and dialog is axe-checked.
 */
describe('the developer portal’s apps and areas, in Chromium', () => {
  let t: TestContext;
  let app: string;
  const harness = createBrowserHarness({ artifacts: 'console-developer-apps' });
  const { newContext, newPage, visited, axe, pageErrors, blocked } = harness;

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

  /** The token endpoint, as the page's curl calls it (client_credentials, HTTP Basic). */
  async function tokenStatus(clientId: string, secret: string): Promise<{ status: number; token?: string }> {
    const res = await fetch(`${app}/api/dev/oauth/token`, {
      method: 'POST',
      headers: { authorization: `Basic ${Buffer.from(`${clientId}:${secret}`).toString('base64')}`, 'content-type': 'application/x-www-form-urlencoded' },
      body: 'grant_type=client_credentials',
    });
    const body = (await res.json()) as { access_token?: string };
    return { status: res.status, ...(body.access_token ? { token: body.access_token } : {}) };
  }

  const toolsStatus = async (token: string) => (await fetch(`${app}/api/dev/tools`, { headers: { authorization: `Bearer ${token}` } })).status;

  it('registers an app with its secret shown once, rotates it with grace, narrows its scopes and deletes it', async () => {
    const context = await newContext();
    await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: app });
    const page = await newPage(context);
    await signUpDeveloper(page, app, DEV);

    // A newcomer's Overview says the next step; the developer navigation has the portal's pages.
    const steps = page.getByRole('region', { name: 'Get started' });
    await poll(() => steps.getByRole('link', { name: 'Go to Apps' }).count()).toBe(1);
    await poll(() => mainLinks(page)).toEqual(['Overview', 'Apps', 'Tools', 'Audit log', 'Public catalog', 'Settings']);
    expect(await page.getByRole('navigation', { name: 'Switch area' }).count()).toBe(0);
    await visited(page, 'developer overview, newcomer', 'overview-newcomer');
    await nav(page, 'Apps');
    await poll(() => h1(page).textContent()).toBe('Apps');
    await poll(() => page.getByText('You have no apps yet.').count()).toBe(1);
    await visited(page, 'apps, none', 'apps-empty');

    // Register: a name is required (said in place), then the secret is shown once with the curl.
    await page.getByRole('button', { name: 'Register an app' }).click();
    const register = page.getByRole('dialog', { name: 'Register an app' });
    await register.waitFor();
    await axe(page, 'register dialog');
    await register.getByRole('button', { name: 'Register app' }).click();
    await poll(() => register.getByText('Name the app, like “Quote bot”.').count()).toBe(1);
    await register.getByLabel('App name').fill('Quote bot');
    await register.getByRole('button', { name: 'Register app' }).click();
    const secretBox = register.getByLabel('The new client secret');
    await secretBox.waitFor();
    const secret = (await secretBox.textContent())!;
    expect(secret).toMatch(/^svc_cs_/);
    await poll(() => register.getByText('Copy it now: it is shown only this once.').count()).toBe(1);
    const [created] = (await (await page.request.get(`${app}/api/dev/apps`)).json()).data.items as { clientId: string; scopes: string[] }[];
    expect(created!.scopes).toEqual(['tools:read', 'tools:write', 'tools:publish']);
    const clientId = created!.clientId;
    const curl = `CLIENT_SECRET='${secret}'\ncurl -s ${app}/api/dev/oauth/token \\\n  -u "${clientId}:$CLIENT_SECRET" \\\n  -d grant_type=client_credentials`;
    await poll(() => register.getByLabel('Token request (curl)').inputValue()).toBe(curl);
    await axe(page, 'register dialog, secret shown');
    await register.getByRole('button', { name: 'Copy secret' }).click();
    await register.getByRole('button', { name: 'Copied' }).waitFor();
    await poll(() => page.evaluate<string>('navigator.clipboard.readText()')).toBe(secret);
    await register.getByRole('button', { name: 'Copy curl command' }).click();
    await poll(() => page.evaluate<string>('navigator.clipboard.readText()')).toBe(curl);
    await register.getByRole('button', { name: 'I have stored it' }).click();
    await poll(() => register.count()).toBe(0);

    const card = page.getByRole('region', { name: 'Quote bot' });
    await poll(() => card.getByText('Never').count()).toBe(1);
    await poll(() => card.locator('dd code').textContent()).toBe(clientId);
    await card.getByText('Get an access token').click();
    expect(await card.getByLabel('Token request (curl)').inputValue()).not.toContain('svc_cs_');
    await visited(page, 'apps, one', 'apps-one');

    // The secret works at the token endpoint; a reload shows the time of that token, never the secret again.
    const first = await tokenStatus(clientId, secret);
    expect(first.status).toBe(200);
    await page.reload();
    await card.waitFor();
    await poll(() => card.getByText('Never').count()).toBe(0);
    expect(await page.content()).not.toContain(secret);

    // Rotate with an hour's grace: the dialog says until when; the old secret still gets tokens, the new one too.
    await page.getByRole('button', { name: 'Rotate secret of Quote bot' }).click();
    const rotate = page.getByRole('dialog', { name: 'Rotate the secret of “Quote bot”' });
    await rotate.waitFor();
    await rotate.getByLabel(/^Keep it working for 1 hour, until /).check();
    await axe(page, 'rotate dialog');
    await rotate.getByRole('button', { name: 'Rotate secret' }).click();
    const newSecret = (await rotate.getByLabel('The new client secret').textContent())!;
    expect(newSecret).not.toBe(secret);
    await poll(() => rotate.getByText(/^The old secret keeps working until /).count()).toBe(1);
    await axe(page, 'rotate dialog, secret shown');
    expect((await tokenStatus(clientId, secret)).status).toBe(200);
    const second = await tokenStatus(clientId, newSecret);
    expect(second.status).toBe(200);
    await rotate.getByRole('button', { name: 'I have stored it' }).click();
    await poll(() => card.getByText(/the old secret works until /).count()).toBe(1);
    // An hour and a second later (the server's clock) the old secret is refused; the new one still works.
    t.clock.now = () => new Date(Date.now() + 3_601_000);
    try {
      expect((await tokenStatus(clientId, secret)).status).toBe(401);
      expect((await tokenStatus(clientId, newSecret)).status).toBe(200);
    } finally {
      t.clock.now = () => new Date();
    }

    // Narrowing the scopes warns, then ends the tokens that had the scope taken away.
    expect(await toolsStatus(second.token!)).toBe(200);
    await page.getByRole('button', { name: 'Edit Quote bot' }).click();
    const edit = page.getByRole('dialog', { name: 'Edit “Quote bot”' });
    await edit.waitFor();
    await edit.getByLabel('tools:publish').uncheck();
    await poll(() => edit.getByText(/^Removing tools:publish ends at once the app’s access tokens that have it\./).count()).toBe(1);
    await axe(page, 'edit dialog, narrowing');
    await edit.getByRole('button', { name: 'Save changes' }).click();
    await poll(() => edit.count()).toBe(0);
    await poll(() => card.getByText('tools:read, tools:write', { exact: true }).count()).toBe(1);
    expect(await toolsStatus(second.token!)).toBe(401);

    // Delete, after a confirmation that says its tokens stop at once: its token and its secret are refused.
    const third = await tokenStatus(clientId, newSecret);
    expect(await toolsStatus(third.token!)).toBe(200);
    await page.getByRole('button', { name: 'Delete Quote bot' }).click();
    const confirm = page.getByRole('alertdialog', { name: 'Delete “Quote bot”?' });
    await confirm.waitFor();
    await poll(() => confirm.getByText(/^Its access tokens stop working at once/).count()).toBe(1);
    await axe(page, 'delete dialog');
    await confirm.getByRole('button', { name: 'Delete app' }).click();
    await poll(() => page.getByText('You have no apps yet.').count()).toBe(1);
    await poll(() => page.getByText('“Quote bot” is deleted.').count()).toBe(1);
    expect(await toolsStatus(third.token!)).toBe(401);
    expect((await tokenStatus(clientId, newSecret)).status).toBe(401);
    await context.close();
  });

  it('an operator does not see the developer pages until they become a developer, then switches between the two areas', async () => {
    const context = await newContext();
    const page = await newPage(context);
    await signUp(page, app, BOTH);
    await poll(() => mainLinks(page)).toEqual(['Forms', 'Contacts', 'Pipelines', 'Custom fields', 'Agents', 'Tools', 'Inbox', 'Conversations', 'API keys', 'Members', 'Webhooks', 'Audit log', 'Settings']);
    expect(await page.getByRole('navigation', { name: 'Switch area' }).count()).toBe(0);

    // The account menu leads to the Developer page, where they become one.
    await page.getByRole('button', { name: `Account: ${BOTH.name}` }).click();
    await page.getByRole('menuitem', { name: 'Become a developer' }).click();
    await page.waitForURL(`${app}/app/developer`);
    await poll(() => page.getByRole('heading', { name: 'Become a developer' }).count()).toBe(1);
    // Not a developer yet: the operator navigation (drawn first: a read of none would prove nothing), without Apps.
    await poll(() => mainLinks(page)).toContain('Forms');
    expect(await mainLinks(page)).not.toContain('Apps');
    await visited(page, 'developer, become one');
    await page.getByLabel('Developer name').fill('Olive Tools');
    await page.getByRole('button', { name: 'Become a developer' }).click();
    await poll(() => page.getByRole('heading', { name: 'Olive Tools', level: 2 }).count()).toBe(1);

    // Both: the switch shows the area they are in; each area has its own navigation.
    const area = page.getByRole('navigation', { name: 'Switch area' });
    await poll(() => area.getByRole('link').allTextContents()).toEqual(['Business', 'Developer']);
    await poll(() => area.getByRole('link', { name: 'Developer' }).getAttribute('aria-current')).toBe('true');
    await poll(() => mainLinks(page)).toEqual(['Overview', 'Apps', 'Tools', 'Audit log', 'Public catalog', 'Settings']);
    await visited(page, 'developer overview, both', 'overview-both');

    // By keyboard: focus the switch's Business link and press Enter.
    await area.getByRole('link', { name: 'Business' }).focus();
    await page.keyboard.press('Enter');
    await page.waitForURL(`${app}/app/forms`);
    await poll(() => mainLinks(page)).toContain('Forms');
    await poll(() => area.getByRole('link', { name: 'Business' }).getAttribute('aria-current')).toBe('true');
    // Settings belongs to both: it keeps the area last chosen.
    await nav(page, 'Settings');
    await poll(() => h1(page).textContent()).toBe('Settings');
    await poll(() => mainLinks(page)).toContain('Forms');

    await area.getByRole('link', { name: 'Developer' }).click();
    await page.waitForURL(`${app}/app/developer`);
    await nav(page, 'Settings');
    await poll(() => h1(page).textContent()).toBe('Settings');
    await poll(() => mainLinks(page)).toEqual(['Overview', 'Apps', 'Tools', 'Audit log', 'Public catalog', 'Settings']);
    // The choice is remembered in this browser: the console's start page is the developer area now.
    await page.goto(`${app}/app/`);
    await page.waitForURL(`${app}/app/developer`);
    await context.close();
    expect(pageErrors).toEqual([]);
    expect(blocked).toEqual([]);
  });
});
