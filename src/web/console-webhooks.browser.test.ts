import { createHmac } from 'node:crypto';
import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { announcerQuiet, createBrowserHarness, h1, mainLinks, nav, poll, settled, signUp } from '../../test/support/browser.js';
import { createServingTestContext, testDialects, type TestContext } from '../../test/support/context.js';
import { startHttpsEndpoint, type HttpsEndpoint, type RecordedRequest } from '../../test/support/https-endpoint.js';
import { toolEndpointOptions } from '../../test/support/invocation-factories.js';

/**
 * The console's Webhooks page in Chromium, on every database the run has: an owner adds an endpoint whose URL is
 * a real HTTPS receiver on loopback (the app with TOOL_ALLOW_PRIVATE_ENDPOINTS=1 and the receiver's test CA),
 * sees the signing secret once, sends a test ping the receiver gets signed with it, reads the delivery log with
 * the bodies, redelivers, rotates the secret, pauses and deletes the endpoint; a member is told the page is for
 * owners. axe-core on every page and dialog under the console's CSP; nothing leaves loopback.
 * The serving test app runs no delivery worker (createTestContext: webhookDelivery false), so a redelivery stays
 * pending here: what the log shows of a queued delivery.
 */
const FLOW_TIMEOUT = 240_000;
const OWNER = { name: 'Wanda Webhook', email: 'wanda@brightsmile.example', password: 'amber lantern signal', org: 'Bright Smile Dental' };
const MEMBER = { name: 'Milo Member', email: 'milo@brightsmile.example', password: 'quiet harbour lantern' };
const NAME = 'Zapier: new leads';

/** The receiver's check, as docs/webhooks.md tells it: HMAC-SHA256(secret, "<timestamp>.<body>") in X-Svc-Signature. */
function signedWith(request: RecordedRequest, secret: string): boolean {
  const expected = createHmac('sha256', secret).update(`${String(request.headers['x-svc-timestamp'])}.`).update(request.body).digest('hex');
  return request.headers['x-svc-signature'] === `sha256=${expected}`;
}

describe.each(testDialects())('the console’s Webhooks page in Chromium (%s)', (dialect) => {
  let t: TestContext;
  let receiver: HttpsEndpoint;
  let app: string;
  const secrets: string[] = [];
  const harness = createBrowserHarness({ artifacts: `console-webhooks-${dialect}`, checkPage: noSecret });
  const { newContext, newPage, axe, visited, cookieOf, checked, pageErrors, blocked } = harness;
  let context: BrowserContext;
  let owner: Page;

  beforeAll(async () => {
    receiver = await startHttpsEndpoint();
    const served = await createServingTestContext(dialect, toolEndpointOptions(receiver));
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
    await receiver?.close();
  });

  /** A secret is shown once, in its card: on no page visited afterwards. */
  async function noSecret(page: Page, label: string): Promise<void> {
    const html = await page.content();
    for (const secret of secrets) expect(html.includes(secret), `a signing secret in ${label}`).toBe(false);
  }

  /** React Aria's announcer entry of a pending button (a confirmation's) fades a few seconds after the dialog left; axe would call it an unnamed image. */
  async function dialogChecked(page: Page, label: string): Promise<void> {
    await announcerQuiet(page);
    await axe(page, label);
    checked.push(label);
  }

  const endpointRows = () => t.database.db.selectFrom('webhook_endpoints').select(['url', 'enabled']).execute();
  const card = () => owner.getByRole('region', { name: NAME });
  const notice = (text: string | RegExp) => owner.getByText(text);

  it('an owner adds an endpoint, keeps its secret, sends a signed test ping and reads it in the delivery log', async () => {
    await signUp(owner, app, OWNER);
    await nav(owner, 'Webhooks');
    await poll(() => h1(owner).textContent()).toBe('Webhooks');
    await owner.getByText('No endpoints yet.').waitFor();
    await visited(owner, 'webhooks (empty)', 'webhooks-empty');

    // From the keyboard: the dialog takes focus.
    await owner.getByRole('button', { name: 'Add endpoint' }).focus();
    await owner.keyboard.press('Enter');
    const dialog = owner.getByRole('dialog', { name: 'Add an endpoint' });
    await dialog.waitFor();
    await poll(() => owner.evaluate<boolean>("document.querySelector('[role=dialog]')?.contains(document.activeElement) === true")).toBe(true);
    await dialogChecked(owner, 'add endpoint dialog');

    // The endpoint policy's refusal lands on the URL field, which takes focus; nothing is saved.
    const url = dialog.getByLabel('Endpoint URL');
    await url.fill('https://hooks.example.com/in#top');
    await dialog.getByRole('button', { name: 'Add endpoint' }).click();
    await dialog.getByText('The webhook URL must not contain a fragment').waitFor();
    await poll(() => url.getAttribute('aria-invalid')).toBe('true');
    await poll(() => url.evaluate((e) => e === (globalThis as unknown as { document: { activeElement: unknown } }).document.activeElement)).toBe(true);
    expect(await endpointRows()).toEqual([]);
    await dialogChecked(owner, 'add endpoint dialog with a refused URL');

    await url.fill(receiver.url('/hook'));
    await dialog.getByRole('checkbox', { name: 'contact.created' }).check();
    await dialog.getByLabel('Description').fill(NAME);
    await dialog.getByRole('button', { name: 'Add endpoint' }).click();
    const secretCard = dialog.getByRole('region', { name: 'Signing secret of your new webhook' });
    await secretCard.waitFor();
    const secret = (await dialog.getByLabel('The signing secret').textContent())!.trim();
    expect(secret).toMatch(/^whsec_/);
    await secretCard.getByText('it is shown only this once').waitFor();
    await secretCard.getByRole('button', { name: 'Copy secret' }).waitFor();
    await dialogChecked(owner, 'new webhook secret');
    secrets.push(secret);
    await dialog.getByRole('button', { name: 'I have stored it' }).click();
    await dialog.waitFor({ state: 'detached' });
    expect(await endpointRows()).toEqual([{ url: receiver.url('/hook'), enabled: expect.anything() }]);

    await card().getByText('submission.created, contact.created').waitFor();
    await card().getByText('None yet').waitFor();
    await visited(owner, 'webhooks', 'webhooks');

    // A test ping: the receiver gets it signed with that secret; the card and a notice say it was delivered.
    await owner.getByRole('button', { name: `Send test to ${NAME}` }).click();
    await notice(/^Test ping delivered: HTTP 200 in \d+ ms\.$/).waitFor();
    expect(receiver.requests).toHaveLength(1);
    const ping = receiver.requests[0]!;
    expect(ping.headers['x-svc-event']).toBe('ping');
    expect(signedWith(ping, secret)).toBe(true);
    await card().getByText('Delivered').waitFor();

    // The delivery log: the ping, what was sent and what came back, as text.
    await owner.getByRole('link', { name: `Delivery log of ${NAME}` }).click();
    await poll(() => h1(owner).textContent()).toBe('Delivery log');
    const log = owner.getByRole('region', { name: 'Deliveries' });
    const row = log.getByRole('row').filter({ hasText: 'ping' });
    await row.getByText('Delivered').waitFor();
    await row.getByText(/^HTTP 200 in \d+ ms$/).waitFor();
    await row.getByText('Bodies').click();
    const bodies = row.locator('pre');
    await poll(() => bodies.count()).toBe(2);
    expect(JSON.parse((await bodies.nth(0).textContent())!)).toMatchObject({ type: 'ping' });
    expect(JSON.parse((await bodies.nth(0).textContent())!).id).toBe(JSON.parse(ping.body.toString()).id);
    expect(JSON.parse((await bodies.nth(1).textContent())!)).toEqual({ ok: true });
    await visited(owner, 'delivery log', 'webhook-deliveries');

    // Redeliver: a new delivery of the same event, queued (no worker runs in this test app).
    await row.getByRole('button', { name: /^Redeliver ping/ }).click();
    await notice('ping is queued again, as a new delivery.').waitFor();
    await poll(() => log.getByRole('row').count()).toBe(3);
    await log.getByRole('row').filter({ hasText: 'Pending' }).getByText('Not tried yet').waitFor();
    await visited(owner, 'delivery log with a redelivery');

    // Paging: 24 more redeliveries (through the API, with the session's CSRF token) make 26, one more than a page.
    const webhookId = new URL(owner.url()).pathname.split('/').pop()!;
    const made = await owner.evaluate(async (id: string) => {
      const session = (await (await fetch('/api/auth/session')).json()) as { data: { csrfToken: string } };
      const list = (await (await fetch(`/api/org/webhooks/${id}/deliveries?limit=100`)).json()) as { data: { items: { id: string }[] } };
      const first = list.data.items[list.data.items.length - 1]!.id;
      let created = 0;
      for (let i = 0; i < 24; i++) {
        const res = await fetch(`/api/org/webhooks/${id}/deliveries/${first}/redeliver`, { method: 'POST', headers: { 'X-CSRF-Token': session.data.csrfToken, 'Content-Type': 'application/json' }, body: '{}' });
        if (res.status === 201) created++;
      }
      return created;
    }, webhookId);
    expect(made).toBe(24);
    await owner.reload();
    await settled(owner);
    await poll(() => log.getByRole('row').count()).toBe(1 + 25);
    const more = owner.getByRole('button', { name: 'Show more deliveries' });
    await more.click();
    await poll(() => log.getByRole('row').count()).toBe(1 + 26);
    await more.waitFor({ state: 'detached' });
    // The button went away with the last page: focus goes to the table, where the new row is.
    await poll(() => log.evaluate((e) => e === (globalThis as unknown as { document: { activeElement: unknown } }).document.activeElement)).toBe(true);
    expect(pageErrors).toEqual([]);
  }, FLOW_TIMEOUT);

  it('rotating shows the new secret once and the next ping is signed with it; edit pauses the endpoint; delete removes it', async () => {
    await owner.goto(`${app}/app/webhooks`);
    await settled(owner);

    await owner.getByRole('button', { name: `Rotate secret of ${NAME}` }).click();
    const rotate = owner.getByRole('dialog', { name: 'Rotate the signing secret' });
    await rotate.getByText('The current secret stops at once.').waitFor();
    await dialogChecked(owner, 'rotate secret dialog');
    await rotate.getByRole('button', { name: 'Rotate secret' }).click();
    await rotate.getByRole('region', { name: 'New signing secret' }).waitFor();
    const rotated = (await rotate.getByLabel('The signing secret').textContent())!.trim();
    expect(rotated).toMatch(/^whsec_/);
    expect(rotated).not.toBe(secrets[0]);
    await dialogChecked(owner, 'new secret after rotation');
    secrets.push(rotated);
    await rotate.getByRole('button', { name: 'I have stored it' }).click();
    await rotate.waitFor({ state: 'detached' });

    receiver.reset();
    await owner.getByRole('button', { name: `Send test to ${NAME}` }).click();
    await notice(/^Test ping delivered/).waitFor();
    expect(receiver.requests).toHaveLength(1);
    expect(signedWith(receiver.requests[0]!, rotated)).toBe(true);
    expect(signedWith(receiver.requests[0]!, secrets[0]!)).toBe(false);

    // Edit: pause it (the URL and events stay).
    await owner.getByRole('button', { name: `Edit ${NAME}` }).click();
    const edit = owner.getByRole('dialog', { name: 'Edit webhook' });
    await edit.waitFor();
    await poll(() => edit.getByLabel('Endpoint URL').inputValue()).toBe(receiver.url('/hook'));
    await poll(() => edit.getByRole('checkbox', { name: 'contact.created' }).isChecked()).toBe(true);
    await dialogChecked(owner, 'edit webhook dialog');
    await edit.getByRole('checkbox', { name: 'Enabled' }).uncheck();
    await edit.getByRole('button', { name: 'Save changes' }).click();
    await edit.waitFor({ state: 'detached' });
    await card().getByText('Paused by an owner.').waitFor();
    expect(await endpointRows()).toMatchObject([{ enabled: expect.anything() }]);
    expect(Boolean((await endpointRows())[0]!.enabled)).toBe(false);
    await visited(owner, 'webhooks with a paused endpoint');

    // Delete, after a confirmation.
    await owner.getByRole('button', { name: `Delete ${NAME}` }).click();
    const confirm = owner.getByRole('alertdialog', { name: 'Delete this webhook?' });
    await confirm.waitFor();
    await dialogChecked(owner, 'delete webhook confirmation');
    await confirm.getByRole('button', { name: 'Delete webhook' }).click();
    await owner.getByText('No endpoints yet.').waitFor();
    expect(await endpointRows()).toEqual([]);
    await announcerQuiet(owner);
    await visited(owner, 'webhooks after delete');
    expect(pageErrors).toEqual([]);
  }, FLOW_TIMEOUT);

  it('a member has no Webhooks in the menu, and a direct visit says the page is for owners', async () => {
    await nav(owner, 'Members');
    await settled(owner);
    await owner.getByRole('region', { name: 'Invite someone' }).getByLabel('Email').fill(MEMBER.email);
    await owner.getByRole('button', { name: 'Send invitation' }).click();
    const link = (await owner.getByLabel('Invitation link').textContent())!.trim();

    const memberContext = await newContext();
    const member = await newPage(memberContext);
    await member.goto(link);
    await member.getByLabel('Your name').fill(MEMBER.name);
    await member.getByLabel('Password').fill(MEMBER.password);
    await member.getByRole('button', { name: 'Join' }).click();
    await member.waitForURL(`${app}/app/forms`);
    await poll(() => mainLinks(member)).toContain('Forms');
    expect(await mainLinks(member)).not.toContain('Webhooks');

    await member.goto(`${app}/app/webhooks`);
    await poll(() => h1(member).textContent()).toBe('Owners only');
    await member.getByText(`Only an owner of ${OWNER.org} can manage this.`).waitFor();
    await visited(member, 'webhooks as a member');
    const res = await fetch(`${app}/api/org/webhooks`, { headers: { cookie: await cookieOf(memberContext) } });
    expect(res.status).toBe(403);
    await memberContext.close();

    expect(pageErrors).toEqual([]);
    expect(blocked).toEqual([]);
  }, FLOW_TIMEOUT);
});

/**
 * The whole path with the delivery worker running (polling every 100 ms): an owner adds an endpoint for new leads
 * in the console, a visitor submits a form, and the owner sees `submission.created` delivered, signed, in the log.
 */
describe.each(testDialects())('a form submission reaches the owner’s webhook, in Chromium (%s)', (dialect) => {
  let t: TestContext;
  let receiver: HttpsEndpoint;
  let app: string;
  const harness = createBrowserHarness({ artifacts: `console-webhooks-delivery-${dialect}` });
  const { newContext, newPage, visited, pageErrors, blocked } = harness;

  beforeAll(async () => {
    receiver = await startHttpsEndpoint();
    const options = toolEndpointOptions(receiver);
    const served = await createServingTestContext(dialect, { ...options, deps: { ...options.deps, webhookDelivery: { pollMs: 100 } } });
    t = served;
    app = served.url;
    t.clock.now = () => new Date();
    await harness.start(app);
  }, 120_000);

  afterAll(async () => {
    await harness.close();
    await t?.close();
    await receiver?.close();
  });

  it('an owner adds an endpoint, a visitor submits a form, and the log shows submission.created delivered', async () => {
    const owner = await newPage(await newContext());
    await signUp(owner, app, { ...OWNER, email: `leads-${dialect}@brightsmile.example` });
    await nav(owner, 'Webhooks');
    await owner.getByRole('button', { name: 'Add endpoint' }).click();
    const dialog = owner.getByRole('dialog', { name: 'Add an endpoint' });
    await dialog.getByLabel('Endpoint URL').fill(receiver.url('/leads'));
    await dialog.getByLabel('Description').fill('New leads');
    expect(await dialog.getByRole('checkbox', { name: 'submission.created' }).isChecked()).toBe(true);
    await dialog.getByRole('button', { name: 'Add endpoint' }).click();
    const secret = (await dialog.getByLabel('The signing secret').textContent())!.trim();
    await dialog.getByRole('button', { name: 'I have stored it' }).click();
    await dialog.waitFor({ state: 'detached' });

    // A form (through the Operator API, with the session's CSRF token), and a visitor's submission through the public API.
    const slug = `visit-${dialect}`;
    const status = await owner.evaluate(async (formSlug: string) => {
      const session = (await (await fetch('/api/auth/session')).json()) as { data: { csrfToken: string } };
      const res = await fetch('/api/org/forms', {
        method: 'POST', headers: { 'X-CSRF-Token': session.data.csrfToken, 'Content-Type': 'application/json' },
        body: JSON.stringify({ slug: formSlug, title: 'Book a visit', consentText: 'I agree to be contacted about my request.' }),
      });
      return res.status;
    }, slug);
    expect(status).toBe(201);
    const submitted = await fetch(`${app}/api/public/forms/${slug}/submit`, {
      method: 'POST', headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ consentVersion: '1', name: 'Ada Visitor', email: 'ada.visitor@example.com' }),
    });
    expect(submitted.status).toBe(200);

    // The worker delivers it, signed with the secret the owner was shown.
    await poll(() => receiver.requests.filter((r) => r.headers['x-svc-event'] === 'submission.created').length, { timeout: 15_000 }).toBe(1);
    const delivery = receiver.requests.find((r) => r.headers['x-svc-event'] === 'submission.created')!;
    expect(signedWith(delivery, secret)).toBe(true);
    const event = JSON.parse(delivery.body.toString('utf8')) as { type: string; data: Record<string, any> };
    expect(event).toMatchObject({ type: 'submission.created', data: { form: { slug, title: 'Book a visit' } } });

    await owner.getByRole('link', { name: 'Delivery log of New leads' }).click();
    const row = owner.getByRole('region', { name: 'Deliveries' }).getByRole('row').filter({ hasText: 'submission.created' });
    await row.getByText('Delivered').waitFor();
    await visited(owner, 'delivery log (submission.created)');
    expect(pageErrors).toEqual([]);
    expect(blocked).toEqual([]);
  }, FLOW_TIMEOUT);
});
