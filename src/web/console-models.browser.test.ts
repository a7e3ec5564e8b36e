import type { BrowserContext, Locator, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { announcerQuiet, createAgent, createBrowserHarness, h1, mainLinks, nav, poll, settled, signUp } from '../../test/support/browser.js';
import { createServingTestContext, type TestContext } from '../../test/support/context.js';
import { fixedResolver } from '../../test/support/tools-factories.js';

/**
 * The console's model providers page and the agent page's Model section in real Chromium (as
 * console-tools.browser.test.ts: a real server on loopback, nothing leaves it, axe-core on each page and
 * dialog under the console's CSP). Base URLs resolve through a fixed table (the sandbox has no DNS): no
 * model is ever called here, the page only stores where the models are.
 */
const FLOW_TIMEOUT = 240_000;
const DNS = { 'api.example.com': ['93.184.215.14'], 'models.example.net': ['198.41.0.4'], 'internal.example.com': ['10.0.0.5'] };

const OWNER = { name: 'Mona Model', email: 'mona@brightsmile.example', password: 'amber lantern orchard', org: 'Bright Smile Dental' };
/** The keys the operator types: neither may ever come back in a page or an answer. */
const KEY = 'sk-first-key-7d3c9b1a2e4f';
const NEW_KEY = 'sk-second-key-5a6b7c8d9e0f';
const SECRETS = [KEY, NEW_KEY];

describe('the console’s model providers and agent model in Chromium', () => {
  let t: TestContext;
  let app: string;
  const harness = createBrowserHarness({ artifacts: 'console-models', checkPage: noSecrets });
  const { newContext, newPage, axe, visited, cookieOf, checked, pageErrors, blocked } = harness;
  let context: BrowserContext;
  let owner: Page;
  let agentId = '';

  beforeAll(async () => {
    const served = await createServingTestContext('sqlite', { deps: { resolveHost: fixedResolver(DNS) } });
    t = served;
    app = served.url;
    t.clock.now = () => new Date();
    await harness.start(app);
    context = await newContext();
    owner = await newPage(context);
  }, 120_000);

  afterAll(async () => {
    await harness.close();
    await t?.close();
  });

  /** No key the operator typed is anywhere in the page's HTML (inputs' values included): checked on every page visited. */
  async function noSecrets(page: Page, label: string): Promise<void> {
    const html = await page.evaluate<string>(
      "document.documentElement.outerHTML + [...document.querySelectorAll('input, textarea')].map((e) => e.value).join(' ')",
    );
    for (const secret of SECRETS) expect(html.includes(secret), `a key in the HTML of ${label}`).toBe(false);
  }

  /** Whether the element has the keyboard focus. */
  const isFocused = (locator: Locator) => locator.evaluate((e) => e === (globalThis as unknown as { document: { activeElement: unknown } }).document.activeElement);

  /**
   * React Aria's pending button (in a confirmation) announced its progress bar, which left with the dialog;
   * its announcer drops the stale entry after a few seconds (axe would call it an image without a name).
   */
  /** A page as it is now: axe-clean (at 1280 and 375 px with a screenshot), no key in it. */
  async function seen(label: string, screenshot?: string): Promise<void> {
    await announcerQuiet(owner);
    await visited(owner, label, screenshot);
  }

  /** A dialog open now: axe-clean, and counted. */
  async function dialogChecked(label: string): Promise<void> {
    await announcerQuiet(owner);
    await axe(owner, label);
    checked.push(label);
  }

  const providersPage = () => owner.goto(`${app}/app/settings/model-providers`).then(() => settled(owner));
  /** The agent page's Model and playground sub-page. */
  const agentPage = async () => {
    await owner.goto(`${app}/app/agents/${agentId}/model`);
    await settled(owner);
    return owner.getByRole('region', { name: 'Model' });
  };
  const row = (name: string) => owner.getByRole('region', { name: 'Model providers' }).getByRole('row', { name: new RegExp(`^${name}`) });

  it('an operator adds a provider with a key that never comes back, and the API’s refusal lands on its field', async () => {
    await signUp(owner, app, OWNER);
    // An agent to give a model to.
    agentId = await createAgent(owner, 'Front desk');

    // Without providers the agent's Model section points to the page that adds one.
    const section = await agentPage();
    await section.getByText('No model providers yet.').waitFor();
    expect(await section.getByRole('link', { name: 'Add a model provider' }).getAttribute('href')).toBe('/app/settings/model-providers');
    await seen('agent without providers');

    // Settings leads to the page; the main navigation stays as short as it was.
    await nav(owner, 'Settings');
    await owner.getByRole('link', { name: 'Manage model providers' }).click();
    await owner.waitForURL(`${app}/app/settings/model-providers`);
    await poll(() => h1(owner).textContent()).toBe('Model providers');
    // The navigation drawn (its Settings link), or the absence below would be of an empty navigation.
    await poll(() => mainLinks(owner)).toContain('Settings');
    expect(await owner.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Model providers' }).count()).toBe(0);
    await seen('model providers (empty)', 'model-providers-empty');

    // Opened from the keyboard: focus moves into the dialog, Escape closes it and gives focus back.
    const add = owner.getByRole('button', { name: 'Add a provider' });
    await add.focus();
    await owner.keyboard.press('Enter');
    const dialog = owner.getByRole('dialog', { name: 'Add a model provider' });
    await dialog.waitFor();
    await poll(() => owner.evaluate<boolean>("document.querySelector('[role=dialog]')?.contains(document.activeElement) === true")).toBe(true);
    await owner.keyboard.press('Escape');
    await dialog.waitFor({ state: 'detached' });
    await poll(() => isFocused(add)).toBe(true);
    await owner.keyboard.press('Enter');
    await dialog.waitFor();
    await dialogChecked('add provider dialog');

    // The base URL follows the kind; OpenAI-compatible has no default and needs one.
    expect(await dialog.getByLabel('Base URL').inputValue()).toBe('https://api.openai.com/v1');
    await dialog.getByLabel('Kind').selectOption({ label: 'Anthropic' });
    await poll(() => dialog.getByLabel('Base URL').inputValue()).toBe('https://api.anthropic.com/v1');
    await dialog.getByLabel('Kind').selectOption('openai-compatible');
    await poll(() => dialog.getByLabel('Base URL').inputValue()).toBe('');
    const key = dialog.getByLabel(/^API key/);
    expect(await key.getAttribute('type')).toBe('password');
    expect(await key.getAttribute('autocomplete')).toBe('new-password');
    await dialog.getByRole('button', { name: 'Add provider' }).click();
    await dialog.getByText('Give the provider a name, like “OpenAI (production)”.').waitFor();
    await dialog.getByText('Enter the server’s base URL, like https://openrouter.ai/api/v1.').waitFor();
    // The first invalid field takes the focus after the errors are drawn (an effect or the next frame).
    await poll(() => isFocused(dialog.getByLabel('Name'))).toBe(true);
    await dialogChecked('add provider dialog with errors');

    // Typed with the keyboard; the server refuses a private address, on the Base URL field; the key is cleared.
    await owner.keyboard.type('Example AI');
    await dialog.getByLabel('Base URL').fill('https://internal.example.com/v1');
    await key.fill(KEY);
    await key.press('Enter');
    const baseUrl = dialog.getByLabel('Base URL');
    await poll(() => baseUrl.getAttribute('aria-invalid')).toBe('true');
    const refusal = (await dialog.locator('.field-error').allTextContents()).join(' ');
    expect(refusal).toMatch(/public|private|not allowed/i);
    await poll(() => key.inputValue()).toBe('');
    await poll(() => isFocused(baseUrl)).toBe(true);
    await noSecrets(owner, 'add provider dialog after the refusal');
    expect(await t.database.db.selectFrom('model_providers').selectAll().execute()).toEqual([]);

    await baseUrl.fill('https://api.example.com/v1/');
    await key.fill(KEY);
    await dialog.getByRole('button', { name: 'Add provider' }).click();
    await dialog.waitFor({ state: 'detached' });
    const added = row('Example AI');
    await added.getByRole('cell', { name: 'OpenAI-compatible (Chat Completions)' }).waitFor();
    await added.getByRole('cell', { name: 'https://api.example.com/v1', exact: true }).waitFor();
    await added.getByRole('cell', { name: 'Key set' }).waitFor();
    await added.getByRole('cell', { name: 'No agent' }).waitFor();
    await seen('model providers', 'model-providers');
  }, FLOW_TIMEOUT);

  it('editing keeps the stored key unless the base URL changes, when it must be entered again', async () => {
    await row('Example AI').getByRole('button', { name: 'Edit provider Example AI' }).click();
    const dialog = owner.getByRole('dialog', { name: 'Edit “Example AI”' });
    await dialog.getByText('A key is stored. Leave this empty to keep it, or enter a new one to replace it.').waitFor();
    await dialogChecked('edit provider dialog');
    // A new name alone: the key stays.
    await dialog.getByLabel('Name').fill('Example AI (prod)');
    await dialog.getByRole('button', { name: 'Save provider' }).click();
    await dialog.waitFor({ state: 'detached' });
    await row('Example AI \\(prod\\)').getByRole('cell', { name: 'Key set' }).waitFor();

    // A new base URL: the dialog says the key must be entered again, and will not send without it.
    await row('Example AI \\(prod\\)').getByRole('button', { name: 'Edit provider Example AI (prod)' }).click();
    const edit = owner.getByRole('dialog', { name: 'Edit “Example AI (prod)”' });
    await edit.getByLabel('Base URL').fill('https://models.example.net/v1');
    await edit.getByText('The base URL changes, so enter the key again: the stored key is never sent to a new address.').waitFor();
    await edit.getByRole('button', { name: 'Save provider' }).click();
    await edit.getByText('A new base URL needs the key again: enter it, or remove the key.').waitFor();
    expect(await edit.getByLabel(/^API key/).getAttribute('aria-invalid')).toBe('true');
    await dialogChecked('edit provider dialog, key needed');
    const stored = await t.database.db.selectFrom('model_providers').select(['base_url', 'api_key_sealed']).executeTakeFirstOrThrow();
    expect(stored.base_url).toBe('https://api.example.com/v1');
    await edit.getByLabel(/^API key/).fill(NEW_KEY);
    await edit.getByRole('button', { name: 'Save provider' }).click();
    await edit.waitFor({ state: 'detached' });
    const moved = row('Example AI \\(prod\\)');
    await moved.getByRole('cell', { name: 'https://models.example.net/v1', exact: true }).waitFor();
    await moved.getByRole('cell', { name: 'Key set' }).waitFor();
    const after = await t.database.db.selectFrom('model_providers').select(['base_url', 'api_key_sealed']).executeTakeFirstOrThrow();
    expect(after.api_key_sealed).not.toBe(stored.api_key_sealed);
    await seen('model providers after edits');

    // Nor from the API.
    const cookie = await cookieOf(context);
    const { id } = (await t.database.db.selectFrom('model_providers').select('id').executeTakeFirstOrThrow()) as { id: string };
    for (const path of ['/api/org/model-providers', `/api/org/model-providers/${id}`]) {
      const text = await (await fetch(`${app}${path}`, { headers: { cookie } })).text();
      expect(text).toContain('"hasApiKey":true');
      for (const secret of SECRETS) expect(text.includes(secret), path).toBe(false);
    }
  }, FLOW_TIMEOUT);

  it('the operator sets the agent’s model, sees it after a reload, and may not delete its provider meanwhile', async () => {
    let section = await agentPage();
    await section.getByText('No model yet.', { exact: false }).waitFor();
    expect(await section.getByLabel('Provider').locator('option').allTextContents()).toEqual(['Example AI (prod)']);
    expect(await section.getByLabel('Max tool rounds').inputValue()).toBe('8');
    await seen('agent model (unset)');
    // Checked before sending, on the fields.
    await section.getByLabel('Max tool rounds').fill('40');
    await section.getByLabel('Temperature (optional)').fill('3');
    await section.getByRole('button', { name: 'Save model' }).click();
    await section.getByText('Enter the model’s id as the provider names it, like gpt-4.1-mini.').waitFor();
    await section.getByText('Use a number from 0 to 2, or leave it empty.').waitFor();
    await section.getByText('Use a whole number from 1 to 32.').waitFor();
    await dialogChecked('agent model errors');
    const cookie = await cookieOf(context);
    const readModel = async () => ((await (await fetch(`${app}/api/org/agents/${agentId}`, { headers: { cookie } })).json()) as { data: { model: Record<string, unknown> | null } }).data.model;
    expect(await readModel()).toBeNull();

    await section.getByLabel('Model (required)', { exact: true }).fill('gpt-4.1-mini');
    await section.getByLabel('Instructions').fill('You answer for Bright Smile Dental.\nBe brief.');
    await section.getByLabel('Temperature (optional)').fill('0.3');
    await section.getByLabel('Max tool rounds').fill('4');
    await section.getByRole('button', { name: 'Save model' }).click();
    await section.getByText('Now: gpt-4.1-mini on Example AI (prod), 4 tool rounds, temperature 0.3.').waitFor();

    await owner.reload();
    section = owner.getByRole('region', { name: 'Model' });
    await section.getByText('Now: gpt-4.1-mini on Example AI (prod), 4 tool rounds, temperature 0.3.').waitFor();
    expect(await section.getByLabel('Model (required)', { exact: true }).inputValue()).toBe('gpt-4.1-mini');
    expect(await section.getByLabel('Instructions').inputValue()).toBe('You answer for Bright Smile Dental.\nBe brief.');
    expect(await section.getByLabel('Temperature (optional)').inputValue()).toBe('0.3');
    expect(await section.getByLabel('Max tool rounds').inputValue()).toBe('4');
    await seen('agent model (set)', 'agent-model');
    expect(await readModel()).toMatchObject({ model: 'gpt-4.1-mini', temperature: 0.3, maxToolRounds: 4, instructions: 'You answer for Bright Smile Dental.\nBe brief.' });

    // The providers page says who uses it; deleting is refused kindly, and nothing is deleted.
    await providersPage();
    const used = row('Example AI \\(prod\\)');
    await used.getByRole('link', { name: 'Front desk' }).waitFor();
    await used.getByRole('button', { name: 'Delete provider Example AI (prod)' }).click();
    const confirm = owner.getByRole('alertdialog', { name: 'Delete “Example AI (prod)”?' });
    await confirm.getByText('Front desk uses it now: give that agent another provider or remove its model first.').waitFor();
    await dialogChecked('delete provider dialog (in use)');
    await confirm.getByRole('button', { name: 'Delete provider' }).click();
    await confirm
      .getByRole('alert')
      .getByText('“Example AI (prod)” is still in use by Front desk. Open each agent, choose another provider in its Model section or remove its model, then delete this provider.')
      .waitFor();
    await dialogChecked('delete provider dialog (refused)');
    await confirm.getByRole('button', { name: 'Cancel' }).click();
    await confirm.waitFor({ state: 'detached' });
    expect(await t.database.db.selectFrom('model_providers').selectAll().execute()).toHaveLength(1);
  }, FLOW_TIMEOUT);

  it('the owner sets the organization’s daily token budget and sees today’s usage against it', async () => {
    await owner.goto(`${app}/app/settings`);
    await settled(owner);
    const usage = owner.getByRole('region', { name: 'Model usage' });
    await usage.getByText('0 tokens used today (UTC), no daily limit.').waitFor();
    const field = usage.getByRole('textbox', { name: 'Daily token budget' }).or(usage.getByRole('spinbutton', { name: 'Daily token budget' }));
    await field.fill('0');
    await usage.getByRole('button', { name: 'Save budget' }).click();
    await usage.getByText('Enter a whole number from 1 to 1,000,000,000, or leave it empty for no limit.').waitFor();
    // Focused after the error is drawn (an effect or the next frame).
    await poll(() => isFocused(field)).toBe(true);
    await field.fill('50000');
    await usage.getByRole('button', { name: 'Save budget' }).click();
    await usage.getByText('0 of 50,000 tokens used today (UTC).').waitFor();
    expect((await t.database.db.selectFrom('orgs').select('daily_token_budget').executeTakeFirstOrThrow()).daily_token_budget).toBe(50000);
    await owner.reload();
    await settled(owner);
    await owner.getByRole('region', { name: 'Model usage' }).getByText('0 of 50,000 tokens used today (UTC).').waitFor();
    await seen('settings (token budget)');
    await field.fill('');
    await usage.getByRole('button', { name: 'Save budget' }).click();
    await usage.getByText('0 tokens used today (UTC), no daily limit.').waitFor();
    expect((await t.database.db.selectFrom('orgs').select('daily_token_budget').executeTakeFirstOrThrow()).daily_token_budget).toBeNull();
  }, FLOW_TIMEOUT);

  it('the operator removes the key, then the model, then deletes the provider', async () => {
    await providersPage();
    await row('Example AI \\(prod\\)').getByRole('button', { name: 'Remove key of Example AI (prod)' }).click();
    const removeKey = owner.getByRole('alertdialog', { name: 'Remove the key of “Example AI (prod)”?' });
    await dialogChecked('remove key dialog');
    await removeKey.getByRole('button', { name: 'Remove key' }).click();
    await removeKey.waitFor({ state: 'detached' });
    await row('Example AI \\(prod\\)').getByRole('cell', { name: 'No key' }).waitFor();
    expect((await t.database.db.selectFrom('model_providers').select('api_key_sealed').executeTakeFirstOrThrow()).api_key_sealed).toBeNull();

    let section = await agentPage();
    await section.getByText(/Its provider has no key\./).waitFor();
    await section.getByRole('button', { name: 'Remove model' }).click();
    const removeModel = owner.getByRole('alertdialog', { name: 'Remove the model of “Front desk”?' });
    await dialogChecked('remove model dialog');
    await removeModel.getByRole('button', { name: 'Remove model' }).click();
    await removeModel.waitFor({ state: 'detached' });
    await section.getByText('No model yet. Choose one below so this agent can hold conversations.').waitFor();
    await owner.reload();
    section = owner.getByRole('region', { name: 'Model' });
    await section.getByText('No model yet. Choose one below so this agent can hold conversations.').waitFor();
    await seen('agent model (removed)');

    await providersPage();
    await row('Example AI \\(prod\\)').getByRole('cell', { name: 'No agent' }).waitFor();
    await row('Example AI \\(prod\\)').getByRole('button', { name: 'Delete provider Example AI (prod)' }).click();
    const confirm = owner.getByRole('alertdialog', { name: 'Delete “Example AI (prod)”?' });
    await confirm.getByText('Its stored key is deleted too. This cannot be undone.').waitFor();
    await confirm.getByRole('button', { name: 'Delete provider' }).click();
    await confirm.waitFor({ state: 'detached' });
    await owner.getByText('No model providers yet. Add one to give your agents a model.').waitFor();
    expect(await t.database.db.selectFrom('model_providers').selectAll().execute()).toEqual([]);
    await seen('model providers (all deleted)');
    await context.close();
    expect(pageErrors).toEqual([]);
  }, FLOW_TIMEOUT);

  it('checked every page and dialog visited with axe-core, and sent nothing off the machine', () => {
    expect(checked.length).toBeGreaterThan(12);
    expect(blocked, 'requests aborted for leaving loopback').toEqual([]);
  });
});
