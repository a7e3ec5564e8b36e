import type { BrowserContext, Locator, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createBrowserHarness, nav, poll, settled, signUp } from '../../test/support/browser.js';
import { createServingTestContext, type TestContext } from '../../test/support/context.js';
import { limitsOn } from '../../test/support/org-factories.js';

/**
 * The console near and at a limit (issue 32), in Chromium: from 80 % of a limit a list page says how much is used;
 * at the limit its create action is unavailable (aria-disabled, still focusable) and described by what to do. One
 * component (LimitNotice) on every limited list; here the Agents page (a link) and the API keys page (a form).
 * axe-core on each state under the console's CSP; nothing leaves loopback.
 */
const OWNER = { name: 'Lena Limit', email: 'lena@brightsmile.example', password: 'amber lantern quarry', org: 'Bright Smile Dental' };

describe('the console near and at a limit in Chromium', () => {
  let t: TestContext;
  let app: string;
  const harness = createBrowserHarness({ artifacts: 'console-limits' });
  const { newContext, newPage, visited, pageErrors, blocked } = harness;
  let context: BrowserContext;
  let owner: Page;

  beforeAll(async () => {
    const served = await createServingTestContext('sqlite');
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

  /** The text of what describes an element (aria-describedby). */
  async function descriptionOf(locator: Locator): Promise<string> {
    const id = await locator.getAttribute('aria-describedby');
    expect(id, 'aria-describedby').toBeTruthy();
    return (await owner.locator(`[id="${id}"]`).textContent()) ?? '';
  }

  it('says how much of a limit is used from 80 %, and at the limit makes the create action unavailable and says what to do', async () => {
    await signUp(owner, app, OWNER);
    const { org_id: orgId } = await t.database.db.selectFrom('users').select('org_id').where('email', '=', OWNER.email).executeTakeFirstOrThrow();
    const limits = limitsOn(t.database, t.clock).orgLimits;
    await limits.set(orgId!, { agents: 5 });
    // Four agents through the Operator API, with the console's own session.
    const made = await owner.evaluate(async () => {
      const session = (await (await fetch('/api/auth/session')).json()) as { data: { csrfToken: string } };
      const branding = { name: 'Bright Smile', primaryColor: '#1a73e8', backgroundColor: '#ffffff', textColor: '#202124', logoUrl: 'https://127.0.0.1:1/logo.png' };
      const statuses: number[] = [];
      for (let i = 1; i <= 4; i++) {
        const res = await fetch('/api/org/agents', { method: 'POST', headers: { 'X-CSRF-Token': session.data.csrfToken, 'Content-Type': 'application/json' }, body: JSON.stringify({ name: `Desk ${i}`, branding }) });
        statuses.push(res.status);
      }
      return statuses;
    });
    expect(made).toEqual([201, 201, 201, 201]);

    await nav(owner, 'Agents');
    await settled(owner);
    await poll(() => owner.getByText('4 of 5 agents: your organization may have 5 at most.').count()).toBe(1);
    // The link needs the agents' list too, a query of its own that may answer after the limits' (the notice above).
    await poll(() => owner.getByRole('link', { name: 'New agent' }).count()).toBe(1);
    await visited(owner, 'agents near the limit', 'agents-near-limit');

    await limits.set(orgId!, { agents: 4 });
    await owner.reload();
    await settled(owner);
    const unavailable = owner.getByRole('button', { name: 'New agent' });
    await unavailable.waitFor();
    expect(await unavailable.getAttribute('aria-disabled')).toBe('true');
    expect(await descriptionOf(unavailable)).toBe('4 of 4 agents, the most your organization may have. Delete an agent you no longer use, or ask your Switchboard operator to raise the limit.');
    // Still reachable by keyboard, and does nothing.
    await unavailable.focus();
    await owner.keyboard.press('Enter');
    await visited(owner, 'agents at the limit', 'agents-at-limit');
    // Read after the page's checks and pictures (seconds of work), not right after the key: a navigation it started
    // changes the address only once the lazy route has loaded, so an immediate read would pass whatever the key did.
    expect(new URL(owner.url()).pathname).toBe('/app/agents');

    // A form's submit button: the organization's first API key would pass a limit of none.
    await limits.set(orgId!, { apiKeys: 0 });
    await nav(owner, 'API keys');
    await settled(owner);
    const create = owner.getByRole('button', { name: 'Create key' });
    await poll(() => create.getAttribute('aria-disabled')).toBe('true');
    expect(await descriptionOf(create)).toContain('0 of 0 active keys, the most your organization may have. Revoke a key you no longer use');
    await owner.getByLabel('What is it for?').fill('Zapier');
    await create.focus();
    await owner.keyboard.press('Enter');
    await visited(owner, 'API keys at the limit');
    // Read after the page's checks (as above), not right after the key: a request it sent would still be on its way then.
    expect(await t.database.db.selectFrom('org_api_keys').select('id').where('org_id', '=', orgId!).execute()).toEqual([]);

    expect(pageErrors).toEqual([]);
    expect(blocked, 'requests aborted for leaving loopback').toEqual([]);
  }, 240_000);
});
