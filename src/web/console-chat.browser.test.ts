import type { BrowserContext, Locator, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { agentTab, createAgent, createBrowserHarness, nav, poll, settled, signUp } from '../../test/support/browser.js';
import { createServingTestContext, testDialects, type TestContext } from '../../test/support/context.js';

/**
 * The agent page's Chat widget section and widget conversations in Chromium, on every database the run
 * has (as the other console browser tests: a real server on loopback, nothing leaves it, axe-core on every
 * page under the console's CSP, pictures at 1280 and 375 px). An owner turns the widget on for one site
 * (a wrong address refused as it is typed), picks a lead form, saves, copies the snippet and reads the
 * settings back from the API; a visitor's widget session (the public API, from the allowed origin) then
 * shows under Conversations with its source, page and campaign.
 */
const FLOW_TIMEOUT = 240_000;
const OWNER = { name: 'Wendy Widget', email: 'wendy@brightsmile.example', password: 'amber lantern meadow', org: 'Bright Smile Dental' };
const SITE = 'https://www.brightsmile.example';
const WELCOME = 'Hi! Ask me anything about appointments.';
const CONSENT = 'I agree to be contacted about my request.';

describe.each(testDialects())('the agent page’s chat widget and widget conversations in Chromium (%s)', (dialect) => {
  let t: TestContext;
  let app: string;
  let publicUrl: string;
  const harness = createBrowserHarness({ artifacts: `console-chat-${dialect}` });
  const { newContext, newPage, visited, cookieOf, checked, pageErrors, blocked } = harness;
  let context: BrowserContext;
  let owner: Page;
  let agentId = '';
  let chatId = '';

  beforeAll(async () => {
    // The agent's model is a provider on loopback that is never called (no test reaches a model provider).
    // PUBLIC_URL names the same server by another host than the one the console is opened at: the
    // snippet must give the public address, not the console's own.
    const served = await createServingTestContext(dialect, { env: { MODEL_ALLOW_PRIVATE_ENDPOINTS: '1' }, publicUrl: (url) => url.replace('127.0.0.1', 'localhost') });
    t = served;
    app = served.url;
    publicUrl = t.config.publicUrl;
    t.clock.now = () => new Date();
    await harness.start(app);
    context = await newContext();
    // The snippet's copy button writes to the clipboard; the test reads it back from there.
    await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: app });
    owner = await newPage(context);
  }, 120_000);

  afterAll(async () => {
    await harness.close();
    await t?.close();
  });

  const isFocused = (locator: Locator) => locator.evaluate((e) => e === (globalThis as unknown as { document: { activeElement: unknown } }).document.activeElement);
  const section = () => owner.getByRole('region', { name: 'Chat widget' });
  const addSite = () => section().getByRole('textbox', { name: 'Add a site' });
  const sites = () => section().getByRole('list', { name: 'Allowed sites' }).getByRole('listitem');
  const readAgent = async () => {
    const cookie = await cookieOf(context);
    const res = await fetch(`${app}/api/org/agents/${agentId}`, { headers: { cookie } });
    expect(res.status).toBe(200);
    return ((await res.json()) as { data: { chat: Record<string, unknown> & { chatId: string } } }).data;
  };
  /** An Operator API change with the owner's session (cookie and CSRF token), as the console sends it. */
  const change = async (method: string, path: string, body?: unknown) => {
    const cookie = await cookieOf(context);
    const session = (await (await fetch(`${app}/api/auth/session`, { headers: { cookie } })).json()) as { data: { csrfToken: string } };
    return fetch(`${app}${path}`, {
      method,
      headers: { cookie, 'x-csrf-token': session.data.csrfToken, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
  };

  it('an owner turns the widget on for a site, picks a lead form, saves, copies the snippet, and the API has it all', async () => {
    await signUp(owner, app, OWNER);
    agentId = await createAgent(owner, 'Front desk');
    const made = await change('POST', '/api/org/forms', { slug: `visit-${dialect}`, title: 'Book a visit', consentText: CONSENT });
    expect(made.status).toBe(201);
    const formId = ((await made.json()) as { data: { id: string } }).data.id;
    // The agent page's Chat widget and hand-off sub-page, by its address (the new form in its lead form picker).
    await agentTab(owner, app, agentId, 'chat');

    // Off by default, with a chat id already (the snippet is there to copy) and no site.
    const before = await readAgent();
    expect(before.chat).toMatchObject({ enabled: false, allowedOrigins: [], leadFormId: null });
    chatId = before.chat.chatId;
    expect(chatId).toMatch(/^chat_[A-Za-z0-9]+$/);
    const toggle = section().getByRole('switch', { name: 'Show the chat widget on my sites' });
    await section().getByRole('status').filter({ hasText: 'Visitors see nothing until you turn it on and save.' }).waitFor();
    await poll(() => toggle.isChecked()).toBe(false);
    await visited(owner, 'agent page, chat widget off', 'chat-widget-off');

    // By keyboard: Space turns it on; Save without a site is refused on the sites' input, which takes focus.
    await toggle.focus();
    await owner.keyboard.press('Space');
    await poll(() => toggle.isChecked()).toBe(true);
    await section().getByRole('button', { name: 'Save chat widget' }).click();
    await section().getByText('Add the site the widget goes on: it works only on the sites listed here.').waitFor();
    await poll(() => isFocused(addSite())).toBe(true);
    expect((await readAgent()).chat).toMatchObject({ enabled: false });

    // An address with a path is refused as it is typed, before any button; Add site leaves the list empty.
    await addSite().fill(`${SITE}/contact`);
    await section().getByText('Only the site: scheme, host and port, without a path, like https://www.example.com.').waitFor();
    await poll(() => addSite().getAttribute('aria-invalid')).toBe('true');
    await section().getByRole('button', { name: 'Add site' }).click();
    expect(await sites().count()).toBe(0);
    // Typed as people paste it: Enter adds it as the browser's Origin writes it, and focus stays to add another.
    await addSite().fill('HTTPS://www.BrightSmile.example/');
    await addSite().press('Enter');
    await poll(() => sites().allTextContents()).toEqual([`${SITE}Remove`]);
    await poll(() => addSite().inputValue()).toBe('');
    await poll(() => isFocused(addSite())).toBe(true);
    await poll(() => addSite().getAttribute('aria-invalid')).toBeNull();
    // A second one, the same again (refused), then removed by its button.
    await owner.keyboard.type('https://*.brightsmile.example');
    await owner.keyboard.press('Enter');
    await addSite().fill(SITE);
    await section().getByText(`${SITE} is on the list already.`).waitFor();
    await addSite().fill('');
    await section().getByRole('button', { name: 'Remove https://*.brightsmile.example' }).click();
    await poll(() => sites().count()).toBe(1);

    // The welcome message and the lead form show in the preview as they are typed and picked.
    await section().getByLabel('Welcome message').fill(WELCOME);
    const preview = section().getByRole('figure');
    await preview.getByText(WELCOME).waitFor();
    expect(await preview.getByText(CONSENT).count()).toBe(0);
    await section().getByLabel('Lead form').selectOption({ label: 'Book a visit' });
    await preview.getByText('Share your details?').waitFor();
    await preview.getByText(CONSENT).waitFor();
    await section().getByRole('spinbutton', { name: 'Widget daily token budget (optional)' }).fill('20000');
    await section().getByRole('button', { name: 'Save chat widget' }).click();
    // On, but without a model the chat answers no one (the public side says not found): the section says so.
    await section().getByRole('status').filter({ hasText: 'On for 1 site. This agent has no model yet: visitors see nothing until you choose one in Model and playground.' }).waitFor();

    // The API has exactly what the page shows.
    expect((await readAgent()).chat).toEqual({ enabled: true, chatId, allowedOrigins: [SITE], welcomeMessage: WELCOME, leadFormId: formId, dailyTokenBudget: 20000 });

    // The snippet, copied by its button: this server's script and the public chat id, never the agent's id.
    await section().getByRole('button', { name: 'Copy snippet' }).click();
    const snippet = `<script async src="${publicUrl}/chat-embed.js" data-svc-chat="${chatId}"></script>`;
    expect(publicUrl).toMatch(/^http:\/\/localhost:\d+$/);
    await poll(() => owner.evaluate<string>('navigator.clipboard.readText()')).toBe(snippet);
    expect(await section().getByRole('textbox', { name: 'Snippet' }).inputValue()).toBe(snippet);
    expect(snippet).not.toContain(agentId);
    await visited(owner, 'agent page, chat widget on', 'chat-widget-on');

    // After a reload the page shows what was saved.
    await owner.reload();
    await settled(owner);
    await poll(() => section().getByRole('switch', { name: 'Show the chat widget on my sites' }).isChecked()).toBe(true);
    await poll(() => sites().allTextContents()).toEqual([`${SITE}Remove`]);
    await poll(() => section().getByLabel('Welcome message').inputValue()).toBe(WELCOME);
    await poll(() => section().getByLabel('Lead form').inputValue()).toBe(formId);

    // The form is deleted meanwhile (in another tab, say): the server's refusal lands on the Lead form field.
    expect((await change('DELETE', `/api/org/forms/${formId}`)).status).toBe(200);
    await section().getByLabel('Welcome message').fill(`${WELCOME} We reply within a day.`);
    await section().getByRole('button', { name: 'Save chat widget' }).click();
    const leadForm = section().getByLabel('Lead form');
    await section().getByText('No form of your organization has that id.').waitFor();
    await poll(() => leadForm.getAttribute('aria-invalid')).toBe('true');
    await poll(() => isFocused(leadForm)).toBe(true);
    expect((await readAgent()).chat).toMatchObject({ welcomeMessage: WELCOME, leadFormId: null });
    await leadForm.selectOption({ label: 'None: the agent collects no leads' });
    await section().getByRole('button', { name: 'Save chat widget' }).click();
    await poll(async () => (await readAgent()).chat.welcomeMessage).toBe(`${WELCOME} We reply within a day.`);
    // The server has it before the page has drawn its answer: wait for the field to be cleared.
    await poll(() => leadForm.getAttribute('aria-invalid')).toBeNull();
    expect(pageErrors).toEqual([]);
  }, FLOW_TIMEOUT);

  it('a visitor’s widget chat shows under Conversations with its source, page and campaign', async () => {
    // A model for the agent (through the Operator API): a chat without one is not found on the public side.
    const provider = await change('POST', '/api/org/model-providers', { name: 'Local', kind: 'openai-compatible', baseUrl: 'http://127.0.0.1:9/v1', apiKey: 'sk-never-called' });
    expect(provider.status).toBe(201);
    const providerId = ((await provider.json()) as { data: { id: string } }).data.id;
    expect((await change('PATCH', `/api/org/agents/${agentId}`, { model: { providerId, model: 'gpt-test', instructions: '' } })).status).toBe(200);
    // From a site not on the list: refused, and no conversation is made.
    const elsewhere = await fetch(`${app}/api/public/chats/${chatId}/sessions`, { method: 'POST', headers: { origin: 'https://elsewhere.example', 'content-type': 'application/json' }, body: '{}' });
    expect(elsewhere.status).toBe(403);

    const pageUrl = `${SITE}/pricing?utm_source=google&utm_medium=cpc&utm_campaign=spring`;
    const started = await fetch(`${app}/api/public/chats/${chatId}/sessions`, {
      method: 'POST',
      headers: { origin: SITE, 'content-type': 'application/json' },
      body: JSON.stringify({ pageUrl, utm: { source: 'google', medium: 'cpc', campaign: 'spring' } }),
    });
    expect(started.status).toBe(201);

    await nav(owner, 'Conversations');
    await settled(owner);
    // One conversation: the visitor's from the allowed site (the header row, and its row).
    await poll(() => owner.getByRole('region', { name: 'Conversations' }).getByRole('row').count()).toBe(2);
    const row = owner.getByRole('region', { name: 'Conversations' }).getByRole('row').filter({ hasText: 'Widget' });
    await row.getByText('www.brightsmile.example/pricing').waitFor();
    await row.getByText('UTM: source google · medium cpc · campaign spring').waitFor();
    await visited(owner, 'conversations with a widget one', 'conversations-widget');

    await row.getByRole('link').click();
    await owner.waitForURL(/\/app\/conversations\/conv_/);
    await settled(owner);
    await owner.getByText('in the chat widget', { exact: false }).waitFor();
    const link = owner.getByRole('link', { name: pageUrl });
    expect(await link.getAttribute('href')).toBe(pageUrl);
    expect(await link.getAttribute('rel')).toBe('noopener noreferrer nofollow');
    await owner.getByText('source google · medium cpc · campaign spring', { exact: true }).waitFor();
    await visited(owner, 'widget conversation transcript', 'conversation-widget');
    await context.close();
    expect(pageErrors).toEqual([]);
  }, FLOW_TIMEOUT);

  it('checked every page visited with axe-core, and sent nothing off the machine', () => {
    expect(checked.length).toBeGreaterThanOrEqual(4);
    expect(blocked, 'requests aborted for leaving loopback').toEqual([]);
  });
});
