import { createServer, type Server } from 'node:http';
import { createServer as createHttpsServer, type Server as HttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createBrowserHarness, poll } from '../../test/support/browser.js';
import { widgetAgent } from '../../test/support/chat-factories.js';
import { createServingTestContext, testDialects, type TestContext } from '../../test/support/context.js';
import { publishedTool } from '../../test/support/conversation-factories.js';
import { countWrites, createForm } from '../../test/support/form-factories.js';
import { delayed, json, startHttpsEndpoint, testCertificates, type HttpsEndpoint } from '../../test/support/https-endpoint.js';
import { toolEndpointOptions } from '../../test/support/invocation-factories.js';
import { createOrgWithKey, orgCaller, type OrgWithKey } from '../../test/support/org-factories.js';
import { startScriptedModel, type ScriptedModel } from '../../test/support/scripted-model.js';

/**
 * chat-embed.js in Chromium, on every database the run has: the snippet pasted into a host page on another
 * loopback origin whose CSP allows only the service's origin for scripts and connections (and the logo's for
 * images; no `style-src` at all), against the real server and a scripted model. The widget opens, an answer
 * streams after a tool call ("Looking that up…" while the tool runs) and is announced once; the model's
 * `<img onerror>` and `javascript:` link render inert; a reload resumes; axe is clean with the panel open, at
 * 1280 and 375 px (full screen); the keyboard alone opens, moves within and closes it; hostile host CSS changes
 * nothing; a refusal (the widget budget) is said kindly and a lost session is replaced; lead capture with consent
 * creates the contact with the transcript note, declining creates nothing; and a page whose origin is not on the list
 * gets nothing drawn and stores nothing.
 */
const QUOTE = { price: 12.5, currency: 'EUR', carrier: 'Posti' };
const ANSWER = 'A 2 kg parcel to Finland costs **12.50 EUR** with Posti.\n\n- Delivery in 3 days\n- Tracking included';
const ANSWER_TEXT = 'A 2 kg parcel to Finland costs 12.50 EUR with Posti.';
const WELCOME = 'Hi! Ask me about shipping.';
const CONSENT = 'I agree that Acme may contact me about my request.';
const PAGE = '/prices?utm_source=newsletter&utm_campaign=spring';
const LOGO_SVG = '<svg xmlns="http://www.w3.org/2000/svg" width="64" height="64" viewBox="0 0 64 64"><rect width="64" height="64" rx="8" fill="#1a73e8"/></svg>';

/** Adopted by a host page whose URL asks for it, before the widget draws: every inherited property and then some. */
const HOSTILE_INIT = `
  if (location.search.includes('hostile')) {
    const sheet = new CSSStyleSheet();
    sheet.replaceSync(${JSON.stringify(`
      html { font-size: 40px !important; --sc-bg: #000; --sc-fg: #0f0; --sc-font: "Comic Sans MS", cursive }
      * { letter-spacing: 3px !important; line-height: 3 !important; word-spacing: 9px !important; box-sizing: content-box !important }
      body { font: italic small-caps 900 31px/4 "Comic Sans MS", cursive !important; color: red !important; text-decoration: underline overline !important; text-transform: uppercase !important }
      body > * { display: none !important; visibility: hidden !important; direction: rtl !important; opacity: .2 !important }
      button, textarea, div, p, h2 { padding: 30px !important; margin: 20px !important; border: 5px dotted red !important; background: yellow !important }
      svc-chat { position: absolute !important; left: -9999px !important; font-size: 62.5% !important; color: red !important }
    `)});
    document.adoptedStyleSheets = [sheet];
  }
`;

/** Boxes and computed styles of the widget's parts (inside its shadow root). */
const MEASURE = `(() => {
  const root = document.querySelector('svc-chat').shadowRoot;
  const parts = [...root.querySelectorAll('.sc-launch, .sc-panel, .sc-title, .sc-x, .sc-log, .sc-bot, .sc-in, .sc-btn')].filter((el) => el.getClientRects().length);
  return parts.map((el) => {
    const box = el.getBoundingClientRect();
    const style = getComputedStyle(el);
    return { part: el.className, box: [box.x, box.y, box.width, box.height], style: ['font-family', 'font-size', 'font-style', 'font-weight', 'line-height', 'letter-spacing', 'word-spacing', 'text-transform', 'color', 'background-color', 'padding-top', 'margin-top', 'border-top-width', 'direction', 'visibility', 'opacity', 'text-decoration-line'].map((p) => style.getPropertyValue(p)) };
  });
})()`;

describe.each(testDialects())('chat-embed.js on a host page (%s)', (dialect) => {
  let t: TestContext;
  let app: string;
  let model: ScriptedModel;
  let endpoint: HttpsEndpoint;
  let org: OrgWithKey;
  let chatId = '';
  let agentId = '';
  let toolName = '';
  let allowedHost = '';
  let otherHost = '';
  let logoOrigin = '';
  const servers: Array<Server | HttpsServer> = [];
  const harness = createBrowserHarness({ artifacts: `chat-widget-${dialect}` });
  const { newContext, newPage, pageErrors, blocked } = harness;
  let context: BrowserContext;
  let page: Page;

  const listen = async (server: Server | HttpsServer, scheme: string) => {
    servers.push(server);
    await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
    return `${scheme}://127.0.0.1:${(server.address() as AddressInfo).port}`;
  };
  /** A host page with the snippet as the docs give it, under the CSP a strict site would have. */
  const hostPage = (snippet: () => string) =>
    createServer((req, res) => {
      if (!req.url?.startsWith('/')) return res.writeHead(404).end();
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'content-security-policy': `default-src 'none'; script-src ${app}; connect-src ${app}; img-src ${logoOrigin}` });
      res.end(`<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Shop</title></head><body><main><h1>Parcel shop</h1><p>We ship everywhere.</p></main>${snippet()}</body></html>`);
    });
  const snippet = () => `<script async src="${app}/chat-embed.js" data-svc-chat="${chatId}"></script>`;

  beforeAll(async () => {
    endpoint = await startHttpsEndpoint(delayed(1000, json(200, QUOTE)));
    model = await startScriptedModel();
    const served = await createServingTestContext(dialect, toolEndpointOptions(endpoint, { MODEL_ALLOW_PRIVATE_ENDPOINTS: '1' }));
    t = served;
    app = served.url;
    t.clock.now = () => new Date();
    const { key, cert } = testCertificates();
    logoOrigin = await listen(createHttpsServer({ key, cert }, (_req, res) => res.writeHead(200, { 'content-type': 'image/svg+xml' }).end(LOGO_SVG)), 'https');
    allowedHost = await listen(hostPage(snippet), 'http');
    otherHost = await listen(hostPage(snippet), 'http');

    org = await createOrgWithKey(t.database, t.clock);
    const tool = await publishedTool(t, endpoint);
    const form = await createForm(t.app, org, { title: 'Call me back', consentText: CONSENT, createOpportunity: true, fields: { name: { enabled: true, required: true }, phone: { enabled: true, required: false } } });
    ({ chatId, agentId, toolName } = await widgetAgent(t, model, org, tool.id, { allowedOrigins: [allowedHost], welcomeMessage: WELCOME, leadFormId: form.id }));
    const logo = await orgCaller(t.app)('PATCH', `/api/org/agents/${agentId}`, org, { branding: { logoUrl: `${logoOrigin}/logo.svg` } });
    expect(logo.statusCode, logo.body).toBe(200);

    await harness.start(app);
    context = await newContext({ ignoreHTTPSErrors: true });
    await context.addInitScript(HOSTILE_INIT);
    page = await newPage(context);
  }, 120_000);

  afterAll(async () => {
    await harness.close();
    for (const server of servers) await new Promise((done) => server.close(done));
    await t?.close();
    await endpoint?.close();
    await model?.close();
  });

  const launcher = (p: Page = page) => p.getByRole('button', { name: 'Chat with Acme' });
  const dialog = (p: Page = page) => p.getByRole('dialog', { name: 'Acme' });
  const transcript = (p: Page = page) => dialog(p).getByRole('log', { name: 'Conversation' });
  const message = (p: Page = page) => dialog(p).getByLabel('Your message');
  const shadow = (p: Page, selector: string) => p.evaluate<number>(`document.querySelector('svc-chat')?.shadowRoot?.querySelectorAll(${JSON.stringify(selector)}).length ?? -1`);
  /** Every text the polite status region was given, recorded from now on. */
  const recordAnnouncements = (p: Page) =>
    p.evaluate(`(() => {
      window.__said = [];
      const status = document.querySelector('svc-chat').shadowRoot.querySelector('[role=status]');
      new MutationObserver(() => status.textContent && window.__said.push(status.textContent)).observe(status, { childList: true, characterData: true, subtree: true });
    })()`);
  const said = (p: Page = page) => p.evaluate<string[]>('window.__said');
  const violations = (p: Page = page) => p.evaluate<string[]>('window.__violations');
  const conversationsOf = () => t.database.db.selectFrom('conversations').selectAll().where('agent_id', '=', agentId).execute();

  it('opens, streams an answer after a tool call, announces it once, and stores the page it was asked on', async () => {
    const before = (await conversationsOf()).length;
    await page.goto(`${allowedHost}${PAGE}#top`);
    await launcher().click();
    await poll(() => dialog().isVisible()).toBe(true);
    await transcript().getByText(WELCOME).waitFor();
    // Opening asks nothing of the server: the session starts with the first message.
    expect((await conversationsOf()).length).toBe(before);
    expect(await page.evaluate<boolean>("document.querySelector('svc-chat').shadowRoot.activeElement?.tagName === 'TEXTAREA'")).toBe(true);

    model.script({ toolCalls: [{ id: 'call_fi', name: toolName, arguments: '{"weightKg":2,"country":"FI"}' }] }, { text: ANSWER });
    await recordAnnouncements(page);
    await message().fill('What does a 2 kg parcel to Finland cost?');
    await message().press('Enter');
    await transcript().getByText('What does a 2 kg parcel to Finland cost?').waitFor();
    // The tool answers after 1 s: meanwhile the widget says it is looking.
    await transcript().getByText('Looking that up…').waitFor();
    const bold = transcript().locator('strong', { hasText: '12.50 EUR' });
    await bold.waitFor();
    await transcript().getByRole('listitem').filter({ hasText: 'Tracking included' }).waitFor();
    await poll(() => transcript().getByText('Looking that up…').count()).toBe(0);
    await poll(() => said()).toEqual([`${ANSWER_TEXT}\nDelivery in 3 days\nTracking included`]);
    expect(await message().inputValue()).toBe('');

    const token = await page.evaluate<string | null>(`localStorage.getItem('svc-chat:${chatId}')`);
    expect(token).toMatch(/^chs_/);
    const created = (await conversationsOf()).filter((row: any) => row.source === 'widget');
    expect(created).toHaveLength(1);
    const stored = created[0] as any;
    expect(stored.page_url).toBe(`${allowedHost}${PAGE}`);
    expect(JSON.parse(stored.utm)).toEqual({ source: 'newsletter', campaign: 'spring' });
    expect(await violations()).toEqual([]);
  });

  it('renders the model\'s HTML and javascript: links inert, and real links safe', async () => {
    model.script({ text: 'Look: <img src=x onerror="window.__pwned=1"> and [click me](javascript:window.__pwned=2) or [our site](https://example.com/terms).' });
    await message().fill('Show me something');
    await message().press('Enter');
    await transcript().getByText('click me').waitFor();
    await transcript().getByText('<img src=x onerror="window.__pwned=1">', { exact: false }).waitFor();
    // The answer streams four characters at a time: its last link drawn, the whole answer is (none of it is only half-parsed).
    const link = transcript().getByRole('link', { name: 'our site' });
    await link.waitFor();
    expect(await shadow(page, 'img:not(.sc-logo)')).toBe(0);
    expect(await shadow(page, 'a[href^="javascript"], [onerror], script')).toBe(0);
    expect(await link.getAttribute('href')).toBe('https://example.com/terms');
    expect(await link.getAttribute('rel')).toBe('noopener noreferrer nofollow');
    expect(await link.getAttribute('target')).toBe('_blank');
    await transcript().getByText('click me').click();
    expect(await page.evaluate<unknown>('window.__pwned')).toBeUndefined();
  });

  it('resumes after a reload, without a new session', async () => {
    const sessionsBefore = (await conversationsOf()).length;
    await page.reload();
    await launcher().click();
    await transcript().getByText('What does a 2 kg parcel to Finland cost?').waitFor();
    await transcript().locator('strong', { hasText: '12.50 EUR' }).waitFor();
    await transcript().getByText('click me').waitFor();
    expect(await shadow(page, 'img:not(.sc-logo)')).toBe(0);
    expect((await conversationsOf()).length).toBe(sessionsBefore);
  });

  it('draws an answer once when the live stream brings it before the answer\'s own stream', async () => {
    // Two connections have no order between them: here the answer's response is held back until it has ended,
    // so the live stream's copy (sent when the answer is saved) reaches the widget first.
    const streamed = page.waitForRequest((request) => request.url().includes('/session/events'));
    await page.reload();
    await launcher().click();
    await streamed;
    let released = false;
    await page.route('**/session/messages', async (route) => {
      const response = await route.fetch();
      await route.fulfill({ response });
      released = true;
    });
    try {
      model.script({ text: 'Opening hours are 9 to 17.' });
      await message().fill('When are you open?');
      await message().press('Enter');
      await poll(() => released).toBe(true);
      await poll(() => dialog().getByRole('button', { name: 'Send' }).getAttribute('aria-disabled')).toBeNull();
      await transcript().getByText('Opening hours are 9 to 17.').waitFor();
      expect(await transcript().getByText('Opening hours are 9 to 17.').count()).toBe(1);
    } finally {
      await page.unroute('**/session/messages');
    }
  });

  it('is axe-clean with the panel open, and fills a 375 px window', async () => {
    await harness.axe(page, 'host page, chat open');
    await page.setViewportSize({ width: 375, height: 700 });
    try {
      await poll(() => dialog().boundingBox()).toEqual({ x: 0, y: 0, width: 375, height: 700 });
      await harness.axe(page, 'host page, chat open at 375 px');
      await page.screenshot({ path: `test-artifacts/chat-widget-${dialect}/open-375.png` });
    } finally {
      await page.setViewportSize({ width: 1280, height: 900 });
    }
    await page.screenshot({ path: `test-artifacts/chat-widget-${dialect}/open-1280.png` });
  });

  const card = () => transcript().getByRole('group', { name: 'Your contact details' }).last();
  /** The model proposes a lead (the turn ends at its capture_lead call): the card appears with its values. */
  async function proposeLead(id: string, visitorSays: string, values: Record<string, string>) {
    model.script({ text: 'I can pass your details on.', toolCalls: [{ id, name: 'capture_lead', arguments: JSON.stringify(values) }] });
    await message().fill(visitorSays);
    await message().press('Enter');
    await card().getByLabel(/^Name/).waitFor();
  }

  it('lead capture: a card with the model\'s values and an unticked consent box; only the visitor\'s confirm creates the contact with the transcript note', async () => {
    const before = await countWrites(t.database, org.orgId);
    await proposeLead('call_lead', 'Please call me back. I am Ada Lovelace, +358 40 123 4567.', { name: 'Ada Lovelace', phone: '+358 40 123' });
    expect(await card().getByLabel(/^Name/).inputValue()).toBe('Ada Lovelace');
    expect(await card().getByLabel('Phone').inputValue()).toBe('+358 40 123');
    const consent = card().getByLabel(CONSENT);
    expect(await consent.isChecked()).toBe(false);
    // The model's call alone wrote nothing.
    expect(await countWrites(t.database, org.orgId)).toEqual(before);
    await harness.axe(page, 'host page, chat open with a lead card');

    // Without the box ticked: said next to it, nothing sent.
    await card().getByRole('button', { name: 'Send my details' }).click();
    await card().getByText('Please tick the box to agree.').waitFor();
    expect(await consent.getAttribute('aria-invalid')).toBe('true');
    // Ticked, with a phone number the form refuses: the server's message next to the field, the card still open.
    await consent.check();
    await card().getByLabel('Phone').fill('12');
    await card().getByRole('button', { name: 'Send my details' }).click();
    await poll(() => card().getByLabel('Phone').getAttribute('aria-invalid')).toBe('true');
    expect(await card().locator('.sc-err:not([hidden])').count()).toBe(1);
    expect(await countWrites(t.database, org.orgId)).toEqual(before);

    // Corrected and sent: the card closes, the model's thanks stream in, the lead is in the CRM.
    model.script({ text: 'Thank you, Ada! We will call you back today.' });
    await card().getByLabel('Phone').fill('+358 40 123 4567');
    await card().getByRole('button', { name: 'Send my details' }).click();
    await card().getByText('Thanks, your details were sent.').waitFor();
    await transcript().getByText('Thank you, Ada! We will call you back today.').waitFor();
    expect(await countWrites(t.database, org.orgId)).toMatchObject({ contacts: before.contacts + 1, notes: before.notes + 1, opportunities: before.opportunities + 1, submissions: before.submissions + 1 });
    const contact = await t.database.db.selectFrom('contacts').selectAll().where('org_id', '=', org.orgId).where('name', '=', 'Ada Lovelace').executeTakeFirstOrThrow();
    const note = await t.database.db.selectFrom('notes').select('body').where('contact_id', '=', contact.id).executeTakeFirstOrThrow();
    expect(note.body).toContain(`Lead from the chat widget on ${allowedHost}${PAGE}.`);
    expect(note.body).toContain('Visitor: Please call me back. I am Ada Lovelace, +358 40 123 4567.');
  });

  it('lead capture: declining creates nothing, and the model answers', async () => {
    const before = await countWrites(t.database, org.orgId);
    await proposeLead('call_decline', 'Maybe call me? I am Grace Hopper.', { name: 'Grace Hopper' });
    model.script({ text: 'No problem, ask me anything else.' });
    await card().getByRole('button', { name: 'No thanks' }).click();
    await card().getByText('You chose not to share your details.').waitFor();
    await transcript().getByText('No problem, ask me anything else.').waitFor();
    expect(await countWrites(t.database, org.orgId)).toEqual(before);
    // After a reload the cards show as they ended.
    await page.reload();
    await launcher().click();
    await transcript().getByText('You chose not to share your details.').waitFor();
    await transcript().getByText('Thanks, your details were sent.').waitFor();
    expect(await transcript().getByRole('button', { name: 'Send my details' }).count()).toBe(0);
  });

  it('works by keyboard alone: Tab reaches the launcher, Enter opens, Tab stays inside, Escape closes and focus returns', async () => {
    await page.reload();
    await launcher().waitFor();
    const focused = () => page.evaluate<string>("(() => { const a = document.activeElement; const inner = a?.shadowRoot?.activeElement; return inner ? (inner.getAttribute('aria-label') || inner.textContent || inner.tagName).trim().slice(0, 40) : a?.tagName ?? ''; })()");
    await page.keyboard.press('Tab');
    expect(await focused()).toBe('Chat with Acme');
    await page.keyboard.press('Enter');
    await poll(() => dialog().isVisible()).toBe(true);
    expect(await focused()).toBe('TEXTAREA');
    const seen = new Set<string>();
    for (let i = 0; i < 12; i++) {
      await page.keyboard.press('Tab');
      seen.add(await focused());
    }
    // Around and around inside the panel: the close button, the transcript, the message box, Send, links in answers.
    expect([...seen]).toEqual(expect.arrayContaining(['Close chat', 'TEXTAREA', 'Send']));
    expect([...seen]).not.toContain('BODY');
    expect([...seen]).not.toContain('Chat with Acme');
    await page.keyboard.press('Shift+Tab');
    expect(await focused()).not.toBe('BODY');
    await page.keyboard.press('Escape');
    await poll(() => dialog().isVisible()).toBe(false);
    expect(await focused()).toBe('Chat with Acme');
    await page.keyboard.press('Enter');
    await poll(() => dialog().isVisible()).toBe(true);
    await dialog().getByRole('button', { name: 'Close chat' }).press('Enter');
    expect(await focused()).toBe('Chat with Acme');
  });

  it('says a refusal kindly and keeps the words to send again; a session the server no longer knows gives way to a new one', async () => {
    const budget = async (dailyTokenBudget: number | null) => {
      const res = await orgCaller(t.app)('PATCH', `/api/org/agents/${agentId}`, org, { chat: { dailyTokenBudget } });
      expect(res.statusCode, res.body).toBe(200);
    };
    // The agent's widget budget is spent: the server's kind message, as is; the message back in the box.
    await budget(1);
    await page.reload();
    await launcher().click();
    await message().fill('One more question?');
    await message().press('Enter');
    await transcript().getByText('This assistant has answered all the questions it can for today. Please come back tomorrow.').waitFor();
    // The words go back to the box once the refusal is handled (the bubble is removed just before): then they are no longer in the transcript.
    await poll(() => message().inputValue()).toBe('One more question?');
    expect(await transcript().getByText('One more question?').count()).toBe(0);
    await budget(null);

    // The session is gone on the server (expired and purged): a new one starts and takes the same message.
    const oldToken = await page.evaluate<string | null>(`localStorage.getItem('svc-chat:${chatId}')`);
    await t.database.db.deleteFrom('chat_sessions').where('agent_id', '=', agentId).execute();
    const sessions = (await conversationsOf()).length;
    model.script({ text: 'Happy to help again.' });
    await message().press('Enter');
    await transcript().getByText('Your earlier chat has ended, so we started a new one.').waitFor();
    await transcript().getByText('Happy to help again.').waitFor();
    await transcript().getByText('One more question?').waitFor();
    const newToken = await page.evaluate<string | null>(`localStorage.getItem('svc-chat:${chatId}')`);
    expect(newToken).toMatch(/^chs_/);
    expect(newToken).not.toBe(oldToken);
    expect((await conversationsOf()).length).toBe(sessions + 1);
  });

  it('says so beside the launcher when the panel cannot load, and opens on the next click once it can', async () => {
    const ctx = await newContext({ ignoreHTTPSErrors: true });
    const p = await newPage(ctx);
    // Routing turns the browser's cache off, so the panel's module is asked of the network each time.
    await p.route('**/assets/chat-panel*', (route) => route.abort('internetdisconnected'));
    await p.goto(`${allowedHost}/`);
    const alert = p.getByRole('alert');
    await launcher(p).click();
    await poll(() => alert.textContent()).toBe('The chat could not load. Check your connection, then try again.');
    expect(await dialog(p).count()).toBe(0);
    await harness.axe(p, 'host page, chat panel not loaded');

    await p.unroute('**/assets/chat-panel*');
    await launcher(p).click();
    await poll(() => dialog(p).isVisible()).toBe(true);
    expect(await alert.count()).toBe(0);
    await ctx.close();
  });

  it('hostile host CSS changes nothing of the widget', async () => {
    const measure = async (url: string) => {
      // A visitor of their own each time (no token): the same welcome in both.
      const ctx = await newContext({ ignoreHTTPSErrors: true });
      await ctx.addInitScript(HOSTILE_INIT);
      const p = await newPage(ctx);
      await p.goto(url);
      if (url.includes('hostile')) {
        // The hostile sheet really applies to the host page.
        expect(await p.evaluate<string>('getComputedStyle(document.documentElement).fontSize')).toBe('40px');
        expect(await p.evaluate<string>("getComputedStyle(document.querySelector('main')).display")).toBe('none');
      }
      await launcher(p).waitFor();
      const closed = await p.evaluate<unknown>(MEASURE);
      await launcher(p).click();
      await transcript(p).getByText(WELCOME).waitFor();
      await p.evaluate('document.fonts.ready.then(() => true)');
      // The panel (and its logo) is drawn on the first open: measured once the logo is in.
      // Polled from here, not with waitForFunction: that re-evaluates its string with eval() on the page's own frames,
      // which the host's CSP (no 'unsafe-eval') refuses whenever the logo is not in at the first look (a page error).
      await poll(() => p.evaluate<boolean>("[...document.querySelector('svc-chat').shadowRoot.querySelectorAll('img')].every((img) => img.complete)")).toBe(true);
      const open = await p.evaluate<unknown>(MEASURE);
      expect(await violations(p), `CSP violations on ${url}`).toEqual([]);
      await ctx.close();
      return { closed, open };
    };
    const plain = await measure(`${allowedHost}/`);
    const hostile = await measure(`${allowedHost}/?hostile`);
    expect(hostile).toEqual(plain);
  });

  it('draws nothing and stores nothing on a page whose origin is not on the list', async () => {
    const before = (await conversationsOf()).length;
    const other = await newPage(context);
    // A task after the config's answer (and its body) settled, after every step chat-embed.js takes on it: the sign that it has decided.
    await other.addInitScript(`(() => {
      const fetch = window.fetch;
      window.__fetched = 0;
      window.fetch = function (...args) {
        const answer = fetch.apply(this, args);
        const after = () => void setTimeout(() => window.__fetched++, 0);
        answer.then((res) => res.clone().text().then(after, after), after);
        return answer;
      };
    })()`);
    // Refused without CORS headers: Chromium reports the answer, the failed request, or both.
    const isConfig = (url: string) => url.endsWith(`/api/public/chats/${chatId}`);
    const config = Promise.race([
      other.waitForEvent('requestfailed', (request) => isConfig(request.url())),
      other.waitForEvent('response', (response) => isConfig(response.url())),
    ]);
    await other.goto(`${otherHost}/`);
    await config;
    // The script has done all it would with the config's answer.
    await poll(() => other.evaluate<number>('window.__fetched')).toBeGreaterThan(0);
    expect(await other.locator('svc-chat').count()).toBe(0);
    expect(await launcher(other).count()).toBe(0);
    expect(await other.evaluate<string | null>(`localStorage.getItem('svc-chat:${chatId}')`)).toBeNull();
    expect((await conversationsOf()).length).toBe(before);
    await other.close();
  });

  it('reached nothing outside loopback and met no page error', () => {
    expect(blocked).toEqual([]);
    expect(pageErrors).toEqual([]);
  });
});

