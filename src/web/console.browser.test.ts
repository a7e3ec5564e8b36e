import { createServer, type Server } from 'node:http';
import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { announcerQuiet, createBrowserHarness, h1, mainLinks, nav, poll, settled } from '../../test/support/browser.js';
import { createServingTestContext, type TestContext } from '../../test/support/context.js';
import { mailBody, startSmtp, type TestSmtp } from '../../test/support/smtp.js';

/**
 * The operator console in real Chromium (Debian's /usr/bin/chromium through playwright-core),
 * driven through its pages only, against a real server on loopback (SQLite, the console built into
 * dist/web/console by the global setup), a real SMTP server on loopback, and a second origin (another
 * loopback port) for the operator's own site and for a hostile page. Every request that would leave
 * loopback is aborted. Each page visited is checked with axe-core (WCAG 2.2 AA) under the console's
 * own CSP; the main pages are screenshotted at 1280 and 375 px into test-artifacts/console/.
 *
 * The flows run in order and build on each other: the operator of the first flow invites the
 * member of the second; the third checks the first one's records from another organization.
 */
const FLOW_TIMEOUT = 240_000;

const OWNER = { name: 'Olive Owner', email: 'olive@brightsmile.example', password: 'violet kettle marathon', org: 'Bright Smile Dental' };
const MEMBER = { name: 'Mia Member', email: 'mia@brightsmile.example', password: 'orange harbor lantern' };
const OTHER = { name: 'Otto Other', email: 'otto@elsewhere.example', password: 'granite puzzle meadow', org: 'Elsewhere Plumbing' };
const VISITOR = { name: 'Ada Lovelace', email: 'ada@example.com', message: 'Please call me about a checkup next week.', insurer: 'Aetna' };

describe('the operator console in Chromium', () => {
  let t: TestContext;
  let smtp: TestSmtp;
  let app: string;
  let site: string;
  let siteServer: Server;
  const harness = createBrowserHarness({ artifacts: 'console' });
  const { newContext, newPage, axe, visited, cookieOf, checked, pageErrors, blocked } = harness;
  /** The HTML the operator pastes into their own site (the second origin's /site page). */
  let pastedSnippet = '';
  /** What the first flow made, for the isolation flow. */
  const first: { formId?: string; contactId?: string; opportunityId?: string; pipelineId?: string } = {};

  beforeAll(async () => {
    smtp = await startSmtp();
    // PUBLIC_URL is the server's real address (snippets, invitation links, the Origin check).
    const served = await createServingTestContext('sqlite', { env: { SMTP_URL: smtp.url, MAIL_FROM: 'Switchboard <hello@brightsmile.example>' } });
    t = served;
    app = served.url;
    // A server as people use it: records stamped with the real time (the test clock stands still otherwise).
    t.clock.now = () => new Date();

    siteServer = createServer((req, res) => {
      const url = new URL(req.url ?? '/', 'http://site');
      res.setHeader('content-type', 'text/html; charset=utf-8');
      if (url.pathname === '/site') {
        return res.end(`<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Bright Smile Dental</title></head><body><main><h1>Book a checkup</h1>${pastedSnippet}</main></body></html>`);
      }
      if (url.pathname === '/attack') {
        // A page of another origin that posts a form to the console's API as soon as it opens.
        const action = url.searchParams.get('action') ?? '';
        const fields = [...url.searchParams].filter(([name]) => name !== 'action');
        const inputs = fields.map(([name, value]) => `<input type="hidden" name="${escapeHtml(name)}" value="${escapeHtml(value)}">`).join('');
        return res.end(`<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Win a prize</title></head><body><form method="post" action="${escapeHtml(action)}">${inputs}</form><script>document.forms[0].submit()</script></body></html>`);
      }
      res.statusCode = 404;
      res.end('not found');
    });
    await new Promise<void>((done) => siteServer.listen(0, '127.0.0.1', done));
    site = `http://127.0.0.1:${(siteServer.address() as { port: number }).port}`;

    await harness.start(app);
  }, 120_000);

  afterAll(async () => {
    await harness.close();
    await new Promise((done) => siteServer?.close(done));
    await t?.close();
    await smtp?.close();
  });

  function escapeHtml(value: string): string {
    return value.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
  }

  /** A raw request to the server, outside any browser. */
  async function raw(path: string, cookie: string): Promise<{ status: number; body: any }> {
    const res = await fetch(`${app}${path}`, { headers: { cookie } });
    return { status: res.status, body: await res.json().catch(() => null) };
  }

  async function signOut(page: Page, who: { name: string }): Promise<void> {
    await page.getByRole('button', { name: `Account: ${who.name}` }).click();
    await page.getByRole('menuitem', { name: 'Sign out' }).click();
    await page.waitForURL(`${app}/app/signin`);
  }


  let ownerContext: BrowserContext;
  let owner: Page;

  it('an operator signs up, builds a branded form, embeds it on their site, and works the lead it brings', async () => {
    ownerContext = await newContext();
    // The Embed dialog's copy button writes to the clipboard; the test reads it back from there.
    await ownerContext.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: app });
    owner = await newPage(ownerContext);

    // A fresh server and a new browser: / leads to the console, and the console to sign-up.
    await owner.goto(`${app}/`);
    await owner.waitForURL(`${app}/app/signup`);
    await poll(() => h1(owner).textContent()).toBe('Create your account');
    await visited(owner, 'sign-up', 'signup');
    await owner.getByLabel('Your name').fill(OWNER.name);
    await owner.getByLabel('Email').fill(OWNER.email);
    await owner.getByLabel('Organization name').fill(OWNER.org);
    await owner.getByLabel('Password').fill(OWNER.password);
    await owner.getByRole('button', { name: 'Create account' }).click();
    await owner.waitForURL(`${app}/app/forms`);
    await poll(() => h1(owner).textContent()).toBe('Forms');
    await visited(owner, 'forms (empty)');

    // A branded agent.
    await nav(owner, 'Agents');
    await visited(owner, 'agents (empty)');
    await owner.getByRole('link', { name: 'Create an agent' }).click();
    await visited(owner, 'new agent');
    await owner.getByLabel('Agent name').fill('Front desk');
    await owner.getByLabel('Brand name').fill('Bright Smile');
    await owner.getByLabel('Primary color', { exact: true }).fill('#0b6e4f');
    // A logo on loopback (no connection made): nothing leaves the machine.
    await owner.getByLabel('Logo address').fill('https://127.0.0.1:1/logo.png');
    await owner.getByRole('button', { name: 'Create agent' }).click();
    await owner.waitForURL(/\/app\/agents\/agt_/);
    await poll(() => h1(owner).textContent()).toBe('Front desk');
    await visited(owner, 'agent editor');
    await nav(owner, 'Agents');
    await owner.getByRole('link', { name: 'Front desk' }).waitFor();
    await visited(owner, 'agents', 'agents');

    // A form: the editor says the organization has no custom field yet and links to where one is made.
    await nav(owner, 'Forms');
    await owner.getByRole('link', { name: 'Create your first form' }).click();
    await owner.waitForURL(`${app}/app/forms/new`);
    await visited(owner, 'new form');
    await owner.getByText('Your organization has no custom fields yet.').waitFor();
    await owner.getByRole('link', { name: 'Create one' }).click();

    // A custom select field, then back to the form.
    await owner.waitForURL(`${app}/app/custom-fields`);
    await visited(owner, 'custom fields (empty)');
    await owner.getByRole('button', { name: /^(Create a custom field|New custom field)$/ }).first().click();
    await owner.getByLabel('Label').fill('Insurance provider');
    await owner.getByLabel('Type').selectOption('select');
    await owner.getByLabel('Choices').fill('Delta Dental\nAetna\nCigna');
    await visited(owner, 'new custom field');
    await owner.getByRole('button', { name: 'Create field' }).click();
    await owner.getByRole('rowheader', { name: 'Insurance provider' }).waitFor();
    await visited(owner, 'custom fields');
    await owner.goBack();
    await owner.waitForURL(`${app}/app/forms/new`);
    await settled(owner);

    // The form uses both, and opens an opportunity for each lead.
    const settings = owner.getByRole('form', { name: 'Form settings' });
    await settings.getByLabel(/^Title/).fill('Book a checkup');
    const combo = settings.getByRole('combobox', { name: 'Add a custom field' });
    await combo.fill('Insur');
    await owner.getByRole('option', { name: /Insurance provider/ }).click();
    await settings.getByRole('list', { name: 'Custom fields on this form' }).getByText('Insurance provider', { exact: true }).waitFor();
    await settings.getByLabel(/^Consent text/).fill('I agree that Bright Smile Dental contacts me about my request.');
    await settings.getByRole('button', { name: /Style the form with the brand of/ }).click();
    await owner.getByRole('option', { name: /Bright Smile/ }).click();
    expect(await settings.getByLabel('Open an opportunity for every lead').isChecked()).toBe(true);
    await owner.getByRole('button', { name: 'Create form' }).click();
    await owner.waitForURL(/\/app\/forms\/frm_/);
    first.formId = new URL(owner.url()).pathname.split('/').pop()!;
    await poll(() => h1(owner).textContent()).toBe('Book a checkup');
    await visited(owner, 'form editor', 'form-editor');

    // The Embed dialog: the iframe snippet through its copy button, read back from the clipboard.
    await owner.getByRole('button', { name: 'Embed' }).click();
    const dialog = owner.getByRole('dialog');
    await dialog.getByRole('heading', { name: 'Embed “Book a checkup”' }).waitFor();
    // The snippets load, the direct link first; the iframe one may sit behind a tab.
    await dialog.getByLabel('Direct link').waitFor();
    const iframeTab = dialog.getByRole('tab', { name: 'Iframe' });
    if (await iframeTab.count()) await iframeTab.click();
    const shown = await dialog.getByLabel('Iframe snippet').inputValue();
    await visited(owner, 'embed dialog');
    await dialog.getByRole('button', { name: 'Copy iframe snippet' }).click();
    await dialog.getByRole('button', { name: 'Copied' }).waitFor();
    await poll(() => owner.evaluate<string>('navigator.clipboard.readText()')).toBe(shown);
    const copied = shown;
    expect(copied).toContain(`${app}/f/`);
    await dialog.getByRole('button', { name: 'Close' }).click();
    await dialog.waitFor({ state: 'detached' });

    // The operator pastes it into their own site, on another origin; a visitor submits there.
    pastedSnippet = copied;
    const visitorContext = await newContext();
    const visitor = await newPage(visitorContext);
    await visitor.goto(`${site}/site`);
    const frame = visitor.frameLocator('iframe');
    await frame.getByLabel(/^Name/).fill(VISITOR.name);
    await frame.getByLabel(/^Email/).fill(VISITOR.email);
    await frame.getByLabel(/^Message/).fill(VISITOR.message);
    await frame.getByLabel(/^Insurance provider/).selectOption(VISITOR.insurer);
    await frame.getByLabel(/I agree that Bright Smile Dental/).check();
    await frame.getByRole('button', { name: 'Submit' }).click();
    await poll(() => frame.getByRole('status').first().textContent(), { timeout: 20_000 }).toMatch(/Thank you/);
    await visitorContext.close();

    // The forms list counts it; its submissions page shows it.
    await nav(owner, 'Forms');
    await owner.getByRole('link', { name: 'Book a checkup', exact: true }).waitFor();
    await visited(owner, 'forms', 'forms');
    await owner.getByRole('link', { name: 'Submissions of Book a checkup' }).click();
    await owner.getByText(VISITOR.email).first().waitFor();
    // The last 30 days: the visit and the submission are counted, and the day-by-day table opens.
    const stats = owner.getByRole('region', { name: 'Last 30 days' });
    // poll(), not expect.poll: vitest's default gives up after a second, short for a loaded machine.
    await poll(() => stats.getByRole('definition').nth(1).textContent()).toBe('1');
    expect(Number(await stats.getByRole('definition').first().textContent())).toBeGreaterThanOrEqual(1);
    await poll(() => stats.getByRole('img').getAttribute('aria-label')).toMatch(/1 submission from/);
    await stats.getByText('Day by day').click();
    await stats.getByRole('table').waitFor();
    await visited(owner, 'submissions', 'submissions');

    // The operator finds the contact by searching, with its note and its opportunity.
    await nav(owner, 'Contacts');
    await visited(owner, 'contacts', 'contacts');
    await owner.getByRole('search', { name: 'Contacts' }).getByLabel('Search').fill('Lovelace');
    await owner.getByRole('button', { name: 'Search', exact: true }).click();
    await owner.waitForURL(/[?&]q=Lovelace/);
    await owner.getByRole('link', { name: VISITOR.name }).click();
    await owner.waitForURL(/\/app\/contacts\/ct_/);
    first.contactId = new URL(owner.url()).pathname.split('/').pop()!;
    await poll(() => h1(owner).textContent()).toBe(VISITOR.name);
    const notes = owner.getByRole('region', { name: 'Notes' });
    await notes.getByText(VISITOR.message).waitFor();
    await owner.getByRole('region', { name: 'Details' }).getByText(VISITOR.insurer).waitFor();
    // The operator adds a note of their own.
    await notes.getByLabel('New note').fill('Called back: booked for Tuesday 10:00.');
    await notes.getByRole('button', { name: 'Add note' }).click();
    await notes.getByText('Called back: booked for Tuesday 10:00.').waitFor();
    const ownerCookie = await cookieOf(ownerContext);
    // Newest first.
    await poll(async () => ((await raw(`/api/org/contacts/${first.contactId}`, ownerCookie)).body.data.notes as { body: string }[]).map((n) => n.body)).toEqual([
      'Called back: booked for Tuesday 10:00.',
      VISITOR.message,
    ]);
    await poll(() => notes.getByRole('listitem').first().textContent()).toContain('Called back: booked for Tuesday 10:00.');
    const opportunityLink = owner.getByRole('region', { name: 'Opportunities' }).getByRole('link').first();
    await opportunityLink.waitFor();
    const opportunityTitle = (await opportunityLink.textContent())!.trim();
    const href = new URL((await opportunityLink.getAttribute('href'))!, app);
    first.pipelineId = href.pathname.split('/').pop()!;
    first.opportunityId = href.searchParams.get('opportunity')!;
    expect(first.opportunityId).toMatch(/^opp_/);
    await visited(owner, 'contact', 'contact');

    // The opportunity's link opens it on the pipeline board, in its first stage.
    await opportunityLink.click();
    await owner.waitForURL(`${app}/app/pipelines/${first.pipelineId}?opportunity=${first.opportunityId}`);
    const opportunityDialog = owner.getByRole('dialog');
    await opportunityDialog.getByRole('heading', { name: opportunityTitle }).waitFor();
    await opportunityDialog.getByRole('link', { name: VISITOR.name }).waitFor();
    await settled(owner);
    await axe(owner, 'opportunity dialog');
    const column = (stage: string) => owner.getByRole('region', { name: new RegExp(`^${stage} \\(\\d+\\)$`) });
    await column('New').getByRole('button', { name: opportunityTitle, exact: true }).waitFor();

    // The operator closes it and moves the opportunity to another stage, by keyboard only.
    await owner.keyboard.press('Escape');
    await opportunityDialog.waitFor({ state: 'detached' });
    await visited(owner, 'pipeline board', 'pipeline-board');
    const moveButton = `Move to stage: ${opportunityTitle}`;
    // From wherever the console left focus, Tab until the card's move button has it.
    let presses = 0;
    while ((await owner.evaluate<string | null>("document.activeElement && document.activeElement.getAttribute('aria-label')")) !== moveButton) {
      expect(++presses, 'Tab presses to reach the move button').toBeLessThan(40);
      await owner.keyboard.press('Tab');
    }
    await owner.keyboard.press('Enter');
    await owner.getByRole('menu').waitFor();
    await axe(owner, 'pipeline board, move menu open');
    // The menu lists the other stages in order (Qualified, Proposal, …): down once from the first.
    await poll(() => owner.evaluate<string | null>('document.activeElement && document.activeElement.textContent')).toBe('Qualified');
    await owner.keyboard.press('ArrowDown');
    await poll(() => owner.evaluate<string | null>('document.activeElement && document.activeElement.textContent')).toBe('Proposal');
    await owner.keyboard.press('Enter');
    await column('Proposal').getByRole('button', { name: opportunityTitle, exact: true }).waitFor();
    await poll(() => column('New').getByRole('button', { name: opportunityTitle, exact: true }).count()).toBe(0);
    // Focus followed the card to its new column.
    await poll(() => owner.evaluate<string | null>("document.activeElement && document.activeElement.getAttribute('aria-label')")).toBe(moveButton);

    // Confirmed by the Operator API (with the operator's session) and by reloading the board.
    const pipeline = await raw(`/api/org/pipelines/${first.pipelineId}`, ownerCookie);
    const proposal = (pipeline.body.data.stages as { id: string; name: string }[]).find((s) => s.name === 'Proposal')!;
    await poll(async () => (await raw(`/api/org/opportunities/${first.opportunityId}`, ownerCookie)).body.data.stageId).toBe(proposal.id);
    await owner.reload();
    await column('Proposal').getByRole('button', { name: opportunityTitle, exact: true }).waitFor();
    await poll(() => column('New').getByRole('button', { name: opportunityTitle, exact: true }).count()).toBe(0);

    // The owner's remaining pages.
    await nav(owner, 'Pipelines');
    await owner.getByRole('link', { name: 'Sales' }).first().waitFor();
    await visited(owner, 'pipelines');
    await nav(owner, 'API keys');
    await visited(owner, 'API keys', 'api-keys');
    await nav(owner, 'Members');
    await visited(owner, 'members', 'members');

    expect(pageErrors).toEqual([]);
  }, FLOW_TIMEOUT);

  it('an owner invites a member by email; the member joins, signs in, has no API keys until made an owner, and is a member again', async () => {
    expect(owner, 'the first flow signed the owner in').toBeDefined();
    await nav(owner, 'Members');
    await settled(owner);
    await owner.getByRole('region', { name: 'Invite someone' }).getByLabel('Email').fill(MEMBER.email);
    await owner.getByRole('button', { name: 'Send invitation' }).click();
    await owner.getByRole('cell', { name: MEMBER.email, exact: true }).waitFor();
    // With SMTP_URL set the link goes by email only: the console shows none to copy.
    expect(await owner.getByLabel('Invitation link').count()).toBe(0);
    await visited(owner, 'members with a pending invitation');

    const mail = await smtp.next();
    expect(mail.to).toEqual([MEMBER.email]);
    const link = /^(http:\/\/127\.0\.0\.1:\d+\/app\/invitations\/svc_inv_[0-9A-Za-z]+)\s*$/m.exec(mailBody(mail.raw))?.[1];
    expect(link, 'the invitation link in the email').toBeDefined();
    expect(link!.startsWith(`${app}/app/invitations/`)).toBe(true);

    const memberContext = await newContext();
    const member = await newPage(memberContext);
    await member.goto(link!);
    await poll(() => h1(member).textContent()).toBe(`Join ${OWNER.org}`);
    await poll(() => member.getByLabel('Email').inputValue()).toBe(MEMBER.email);
    await visited(member, 'accept invitation');
    await member.getByLabel('Your name').fill(MEMBER.name);
    await member.getByLabel('Password').fill(MEMBER.password);
    await member.getByRole('button', { name: 'Join' }).click();
    await member.waitForURL(`${app}/app/forms`);
    await member.getByRole('link', { name: 'Book a checkup', exact: true }).waitFor();

    // Out and back in with the new password.
    await signOut(member, MEMBER);
    await visited(member, 'sign-in', 'signin');
    await member.getByLabel('Email').fill(MEMBER.email);
    await member.getByLabel('Password').fill(MEMBER.password);
    await member.getByRole('button', { name: 'Sign in' }).click();
    await member.waitForURL(`${app}/app/forms`);
    await poll(() => h1(member).textContent()).toBe('Forms');

    // The member's navigation has no API keys (nor members); the page says it is not for them; the API refuses.
    await poll(() => mainLinks(member)).toContain('Forms');
    const links = await mainLinks(member);
    expect(links).not.toContain('API keys');
    expect(links).not.toContain('Members');
    await member.goto(`${app}/app/api-keys`);
    await poll(() => h1(member).textContent()).toBe('Owners only');
    await member.getByText(`Only an owner of ${OWNER.org} can manage this.`).waitFor();
    expect(await member.getByRole('heading', { name: 'API keys' }).count()).toBe(0);
    await visited(member, 'API keys as a member');
    const memberCookie = await cookieOf(memberContext);
    expect((await raw('/api/org/api-keys', memberCookie)).status).toBe(403);
    expect((await raw('/api/org/members', memberCookie)).status).toBe(403);
    expect((await raw('/api/org/forms', memberCookie)).status).toBe(200);

    // The link worked once.
    const again = await newPage(memberContext);
    await again.goto(link!);
    await poll(() => h1(again).textContent()).toBe('This invitation cannot be used');
    await again.close();

    // The owner sees the member joined, then removes them: the member's next step in the console lands on sign-in.
    await owner.reload();
    await owner.getByRole('cell', { name: MEMBER.email, exact: true }).waitFor();
    await poll(() => owner.getByText('No pending invitations').count()).toBe(1);

    // The owner makes the member an owner: after a reload the member's navigation has the owner's pages.
    const memberRow = owner.getByRole('row').filter({ has: owner.getByRole('cell', { name: MEMBER.email, exact: true }) });
    await owner.getByRole('button', { name: `Make owner: ${MEMBER.name}` }).click();
    const promote = owner.getByRole('alertdialog');
    await promote.getByRole('heading', { name: `Make ${MEMBER.name} an owner?` }).waitFor();
    await axe(owner, 'members, make owner confirmation');
    await promote.getByRole('button', { name: 'Make owner' }).click();
    await promote.waitFor({ state: 'detached' });
    await memberRow.getByRole('cell', { name: 'Owner', exact: true }).waitFor();
    await owner.getByText(`${MEMBER.name} is an owner now.`).waitFor();
    // Focus is back on the row's button, which now offers the way back.
    await poll(() => owner.evaluate<string | null>("document.activeElement?.getAttribute('aria-label') ?? null")).toBe(`Make member: ${MEMBER.name}`);
    await member.reload();
    await poll(() => h1(member).textContent()).toBe('API keys');
    await poll(() => mainLinks(member)).toContain('API keys');
    expect(await mainLinks(member)).toContain('Members');

    // And back to member, after a confirmation: the owner's pages are gone from the member's navigation.
    await owner.getByRole('button', { name: `Make member: ${MEMBER.name}` }).click();
    const demote = owner.getByRole('alertdialog');
    await demote.getByRole('heading', { name: `Make ${MEMBER.name} a member?` }).waitFor();
    await demote.getByRole('button', { name: 'Make member' }).click();
    await demote.waitFor({ state: 'detached' });
    await memberRow.getByRole('cell', { name: 'Member', exact: true }).waitFor();
    await member.reload();
    await poll(() => h1(member).textContent()).toBe('Owners only');
    await poll(() => mainLinks(member)).toContain('Forms');
    expect(await mainLinks(member)).not.toContain('API keys');

    // The last owner cannot make themselves a member: the dialog says why, in the server's words.
    await owner.getByRole('button', { name: `Make member: ${OWNER.name} (you)` }).click();
    const self = owner.getByRole('alertdialog');
    await self.getByRole('heading', { name: 'Make yourself a member?' }).waitFor();
    await self.getByRole('button', { name: 'Make member' }).click();
    await self.getByRole('alert').filter({ hasText: 'last owner: an organization always keeps one. Make someone else an owner first.' }).waitFor();
    await announcerQuiet(owner);
    await axe(owner, 'members, last owner refused');
    await self.getByRole('button', { name: 'Cancel' }).click();
    await self.waitFor({ state: 'detached' });
    await memberRow.getByRole('cell', { name: 'Member', exact: true }).waitFor();
    const ownerRow = owner.getByRole('row').filter({ has: owner.getByRole('cell', { name: OWNER.email, exact: true }) });
    await ownerRow.getByRole('cell', { name: 'Owner', exact: true }).waitFor();

    await owner.getByRole('button', { name: `Remove ${MEMBER.name}` }).click();
    const confirm = owner.getByRole('alertdialog');
    await confirm.getByRole('heading', { name: `Remove ${MEMBER.name}?` }).waitFor();
    await axe(owner, 'members, remove confirmation');
    await confirm.getByRole('button', { name: 'Remove member' }).click();
    await poll(() => owner.getByRole('cell', { name: MEMBER.email, exact: true }).count()).toBe(0);
    expect((await raw('/api/auth/session', memberCookie)).body).toEqual({ success: true, data: null });
    // Not nav(): the Forms link is gone with the session as the page turns to sign-in, so its aria-current cannot be awaited.
    await member.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Forms', exact: true }).click();
    await member.waitForURL(/\/app\/signin/);
    await memberContext.close();
    expect(pageErrors).toEqual([]);
  }, FLOW_TIMEOUT);

  it('another organization sees none of it; a cross-site form post with the cookie is refused; sign-out ends the session on the server', async () => {
    expect(first.formId && first.contactId && first.opportunityId && first.pipelineId, 'the first flow made its records').toBeTruthy();
    const otherContext = await newContext();
    const other = await newPage(otherContext);
    // Another person, another browser: the sign-in page offers sign-up.
    await other.goto(`${app}/app/signin`);
    await visited(other, 'sign-in (new browser)');
    await other.getByRole('link', { name: 'Create an account' }).click();
    await other.waitForURL(`${app}/app/signup`);
    await other.getByLabel('Your name').fill(OTHER.name);
    await other.getByLabel('Email').fill(OTHER.email);
    await other.getByLabel('Organization name').fill(OTHER.org);
    await other.getByLabel('Password').fill(OTHER.password);
    await other.getByRole('button', { name: 'Create account' }).click();
    await other.waitForURL(`${app}/app/forms`);

    // The first organization's records, by their URLs: the not-found page each time.
    const notFound = async (path: string, what: string) => {
      await other.goto(`${app}/app${path}`);
      await poll(() => h1(other).textContent(), { message: path }).toBe('Not found');
      await other.getByText(`This ${what} does not exist, or it belongs to another organization.`).waitFor();
      await visited(other, `not found: ${what}`);
    };
    await notFound(`/forms/${first.formId}`, 'form');
    expect(await other.getByText('Book a checkup').count()).toBe(0);
    await notFound(`/forms/${first.formId}/submissions`, 'form');
    await notFound(`/contacts/${first.contactId}`, 'contact');
    expect(await other.getByText(VISITOR.name).count()).toBe(0);
    await notFound(`/pipelines/${first.pipelineId}?opportunity=${first.opportunityId}`, 'pipeline');
    // The opportunity's URL on this organization's own board: the dialog says not found.
    await nav(other, 'Pipelines');
    await other.getByRole('link', { name: 'Sales' }).first().click();
    await other.waitForURL(/\/app\/pipelines\/pipe_/);
    await settled(other);
    await other.goto(`${other.url()}?opportunity=${first.opportunityId}`);
    const dialog = other.getByRole('dialog');
    await dialog.getByRole('heading', { name: 'Not found' }).waitFor();
    await dialog.getByText('This opportunity does not exist, or it belongs to another organization.').waitFor();
    expect(await other.getByText(VISITOR.name).count()).toBe(0);
    await axe(other, 'opportunity not found');
    await other.keyboard.press('Escape');
    await dialog.waitFor({ state: 'detached' });

    // A page on another origin posts forms to the API; the browser sends the session cookie along (same site, other port).
    const cookie = await cookieOf(otherContext);
    const attack = async (action: string, fields: Record<string, string>) => {
      const attacker = await newPage(otherContext);
      const response = attacker.waitForResponse((r) => r.url() === `${app}${action}` && r.request().method() === 'POST');
      await attacker.goto(`${site}/attack?${new URLSearchParams({ action: `${app}${action}`, ...fields })}`);
      const answer = await response;
      const sent = await answer.request().allHeaders();
      expect(sent.cookie ?? '', 'the cross-site post carried the session cookie').toContain(cookie);
      expect(sent.origin).toBe(site);
      const status = answer.status();
      await attacker.close();
      return status;
    };
    expect(await attack('/api/org/forms', { title: 'Planted form', slug: 'planted', consentText: 'Yes' })).toBe(403);
    const forms = await raw('/api/org/forms', cookie);
    expect(forms.status).toBe(200);
    expect(forms.body.data.items).toEqual([]);
    expect(await attack('/api/auth/signout', {})).toBe(403);
    expect((await raw('/api/auth/session', cookie)).body.data).not.toBeNull();
    await other.goto(`${app}/app/forms`);
    await poll(() => h1(other).textContent()).toBe('Forms');

    // Signing out ends the session on the server: the old cookie, replayed, is refused.
    await signOut(other, OTHER);
    expect((await raw('/api/auth/session', cookie)).body).toEqual({ success: true, data: null });
    expect((await raw('/api/org/forms', cookie)).status).toBe(401);
    await other.goto(`${app}/app/forms`);
    await other.waitForURL(/\/app\/signin/);
    await otherContext.close();
    expect(pageErrors).toEqual([]);
  }, FLOW_TIMEOUT);

  it('"Sign out everywhere" in Settings ends every session of the person: this browser lands on sign-in, and so does their other one', async () => {
    expect(owner, 'the first flow signed the owner in').toBeDefined();
    // The owner signs in in a second browser too.
    const secondContext = await newContext();
    const second = await newPage(secondContext);
    await second.goto(`${app}/app/signin`);
    await poll(() => h1(second).textContent()).toBe('Sign in');
    await second.getByLabel('Email').fill(OWNER.email);
    await second.getByLabel('Password').fill(OWNER.password);
    await second.getByRole('button', { name: 'Sign in' }).click();
    await second.waitForURL(`${app}/app/forms`);
    await poll(() => h1(second).textContent()).toBe('Forms');
    const secondCookie = await cookieOf(secondContext);

    await nav(owner, 'Settings');
    await settled(owner);
    await owner.getByRole('region', { name: 'Sessions' }).getByRole('button', { name: 'Sign out everywhere' }).click();
    const confirm = owner.getByRole('alertdialog');
    await confirm.getByRole('heading', { name: 'Sign out everywhere?' }).waitFor();
    await axe(owner, 'settings, sign out everywhere confirmation');
    await confirm.getByRole('button', { name: 'Sign out everywhere' }).click();
    await owner.waitForURL(`${app}/app/signin`);
    await poll(() => h1(owner).textContent()).toBe('Sign in');
    await owner.getByText('You are signed out on every device.').waitFor();
    await announcerQuiet(owner);
    await visited(owner, 'sign-in after signing out everywhere');

    // The other browser's session ended on the server: its next page load goes to sign-in.
    expect((await raw('/api/auth/session', secondCookie)).body).toEqual({ success: true, data: null });
    await second.reload();
    await second.waitForURL(/\/app\/signin/);
    await poll(() => h1(second).textContent()).toBe('Sign in');
    await secondContext.close();
    expect(pageErrors).toEqual([]);
  }, FLOW_TIMEOUT);

  it('checked every page visited with axe-core, screenshotted the main pages, and sent nothing off the machine', () => {
    expect(checked.length).toBeGreaterThan(20);
    expect(blocked, 'requests aborted for leaving loopback').toEqual([]);
  });
});
