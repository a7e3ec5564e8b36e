import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createBrowserHarness, h1, poll } from '../../test/support/browser.js';
import { createServingTestContext, type TestContext } from '../../test/support/context.js';

/**
 * A signed-out visit to the console, in Chromium: the console asks `GET /api/auth/session` on every
 * first load, and the server answers 200 with `data: null` (docs/accounts.md), so nothing the visit
 * does shows in the browser's console as an error: no console error or warning, no failed request,
 * no 4xx/5xx answer. Also with the cookie of a session that has ended.
 */
describe('the console, signed out, in Chromium', () => {
  let t: TestContext;
  let app: string;
  const harness = createBrowserHarness({ artifacts: 'console-signed-out' });
  const { newContext, newPage, pageErrors, blocked } = harness;

  beforeAll(async () => {
    const served = await createServingTestContext('sqlite');
    t = served;
    app = served.url;
    await harness.start(app);
  }, 120_000);

  afterAll(async () => {
    await harness.close();
    await t?.close();
  });

  /** Everything the browser would show as a problem, and the session answers, from the first request on. */
  function watch(page: Page) {
    const problems: string[] = [];
    const sessions: { status: number; body: unknown }[] = [];
    page.on('console', (message) => {
      if (message.type() === 'error' || message.type() === 'warning') problems.push(`console ${message.type()}: ${message.text()}`);
    });
    page.on('requestfailed', (request) => problems.push(`failed: ${request.method()} ${request.url()} ${request.failure()?.errorText}`));
    page.on('response', (response) => {
      if (response.status() >= 400) problems.push(`${response.status()}: ${response.request().method()} ${response.url()}`);
      if (new URL(response.url()).pathname === '/api/auth/session') void response.json().then((body) => sessions.push({ status: response.status(), body }), () => undefined);
    });
    return { problems, sessions };
  }

  it('a first visit, a returning browser and a protected page: sent to sign-up or sign-in, with nothing reported', async () => {
    const context = await newContext();
    const page = await newPage(context);
    const { problems, sessions } = watch(page);

    await page.goto(`${app}/`);
    await page.waitForURL(`${app}/app/signup`);
    await poll(() => h1(page).textContent()).toBe('Create your account');

    await page.goto(`${app}/app/forms`);
    await page.waitForURL(/\/app\/(signin|signup)/);
    await h1(page).first().waitFor();

    await page.goto(`${app}/app/signin`);
    await poll(() => h1(page).textContent()).not.toBe('');

    await poll(() => sessions.length).toBeGreaterThanOrEqual(3);
    expect(problems).toEqual([]);
    expect(sessions.every((s) => s.status === 200 && JSON.stringify(s.body) === '{"success":true,"data":null}'), JSON.stringify(sessions)).toBe(true);
    await context.close();
  });

  it('with the cookie of a session that has ended: sent to sign-in, with nothing reported', async () => {
    const context = await newContext();
    await context.addCookies([{ name: 'svc_session', value: `svc_ses_${'x'.repeat(40)}`, url: app, httpOnly: true, sameSite: 'Lax' }]);
    const page = await newPage(context);
    const { problems, sessions } = watch(page);
    await page.goto(`${app}/app/forms`);
    await page.waitForURL(/\/app\/(signin|signup)/);
    await h1(page).first().waitFor();
    await poll(() => sessions.length).toBeGreaterThanOrEqual(1);
    expect(problems).toEqual([]);
    expect(sessions[0]).toEqual({ status: 200, body: { success: true, data: null } });
    await context.close();
  });

  it('reached nothing outside loopback and met no page error', () => {
    expect(blocked).toEqual([]);
    expect(pageErrors).toEqual([]);
  });
});
