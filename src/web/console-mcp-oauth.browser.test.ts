import { randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Client, StreamableHTTPClientTransport, UnauthorizedError, type OAuthClientProvider, type OAuthDiscoveryState } from '@modelcontextprotocol/client';
import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createBrowserHarness, h1, poll, settled } from '../../test/support/browser.js';
import { signUpPerson, type ConsolePerson } from '../../test/support/connection-factories.js';
import { createServingTestContext, type TestContext } from '../../test/support/context.js';
import { developerSession } from '../../test/support/factories.js';
import { json, startHttpsEndpoint, type HttpsEndpoint, type Responder } from '../../test/support/https-endpoint.js';
import { BRAND, toolEndpointOptions } from '../../test/support/invocation-factories.js';
import { createTool, publishTool } from '../../test/support/tools-factories.js';

/**
 * OAuth 2.1 for `/mcp` (issue 34) with the person's part in Chromium: the official MCP TypeScript SDK client, with an
 * OAuth client provider of its own, against the running server (PUBLIC_URL its own loopback address). The SDK meets a
 * 401, discovers the metadata, registers (Dynamic Client Registration) and hands over the authorization URL; a fresh,
 * signed-out browser opens it, is sent to the console's sign-in page, signs in and lands on the consent page with the
 * request intact; it shows the app (marked unverified) and where the tab goes back; the person picks one of two agents
 * by its accessible name and clicks Approve; the tab arrives at the app's loopback redirect URI (a tiny HTTP server
 * here, as a desktop host listens), whose query the SDK finishes with; a new client lists the chosen agent's tool only
 * and calls it through to the tool endpoint. Deny sends the tab back with `error=access_denied` and the `state`. The
 * agent page lists the connected app under Connected apps with the MCP URL; Revoke (confirmed) makes the SDK's next
 * call fail, a 401 naming the resource metadata. axe-core on the consent page (1280 and 375 px), the agent page and
 * the Revoke dialog, under the console's CSP. Loopback only.
 */
const FLOW_TIMEOUT = 60_000;
const WAIT = 15_000;

const OWNER = { email: 'olive@brightsmile.example', password: 'violet kettle marathon', org: 'Bright Smile Dental' };
const APP_NAME = 'Chromium test host';
const DENIED_NAME = 'Another test host';
const CHOSEN = 'Front desk';
const OTHER = 'Billing';

type OAuthTokens = NonNullable<Awaited<ReturnType<OAuthClientProvider['tokens']>>>;

/** An MCP host's OAuth client state, in memory: what a desktop host keeps between its launches. */
class HostProvider implements OAuthClientProvider {
  information: Awaited<ReturnType<OAuthClientProvider['clientInformation']>>;
  stored: OAuthTokens | undefined;
  verifier = '';
  discovery: OAuthDiscoveryState | undefined;
  authorizationUrl: URL | undefined;
  /** The `state` of each authorization request, as a host checks it when the tab comes back. */
  states: string[] = [];
  constructor(readonly redirect: string, readonly name: string) {}
  get redirectUrl() { return this.redirect; }
  get clientMetadata() {
    return { client_name: this.name, redirect_uris: [this.redirect], grant_types: ['authorization_code', 'refresh_token'], response_types: ['code'], token_endpoint_auth_method: 'none' };
  }
  state() {
    const state = randomBytes(16).toString('base64url');
    this.states.push(state);
    return state;
  }
  clientInformation() { return this.information; }
  saveClientInformation(info: NonNullable<HostProvider['information']>) { this.information = info; }
  tokens() { return this.stored; }
  saveTokens(tokens: OAuthTokens) { this.stored = tokens; }
  redirectToAuthorization(url: URL) { this.authorizationUrl = url; }
  saveCodeVerifier(verifier: string) { this.verifier = verifier; }
  codeVerifier() { return this.verifier; }
  saveDiscoveryState(state: OAuthDiscoveryState) { this.discovery = state; }
  discoveryState() { return this.discovery; }
  invalidateCredentials(scope: 'all' | 'client' | 'tokens' | 'verifier' | 'discovery') {
    if (scope === 'all' || scope === 'tokens') this.stored = undefined;
    if (scope === 'all' || scope === 'client') this.information = undefined;
    if (scope === 'all' || scope === 'verifier') this.verifier = '';
    if (scope === 'all' || scope === 'discovery') this.discovery = undefined;
  }
}

/** The app's loopback redirect URI (RFC 8252 §7.3), as a desktop host listens on it: records each request's path and query. */
async function startCallbackServer(): Promise<{ origin: string; requests: string[]; close(): Promise<void> }> {
  const requests: string[] = [];
  const server: Server = createServer((request, response) => {
    requests.push(request.url ?? '');
    response.writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store' });
    response.end('<!doctype html><html lang="en"><title>Done</title><h1>You can close this tab</h1></html>');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    origin: `http://127.0.0.1:${port}`,
    requests,
    close: () => new Promise<void>((resolve) => { server.closeAllConnections(); server.close(() => resolve()); }),
  };
}

describe('an MCP host connects to an agent through the console’s consent page, in Chromium', () => {
  let t: TestContext;
  let app: string;
  let endpoint: HttpsEndpoint;
  let callback: Awaited<ReturnType<typeof startCallbackServer>>;
  let owner: ConsolePerson;
  const agents: Record<string, string> = {};
  const harness = createBrowserHarness({ artifacts: 'console-mcp-oauth' });
  const { newContext, newPage, visited, axe, checked, pageErrors, blocked } = harness;
  let context: BrowserContext;
  let page: Page;
  let host: HostProvider;
  let client: Client | undefined;

  /** Each tool's endpoint path answers for itself, so a call shows which tool it reached. */
  const responder: Responder = (request, response) =>
    (request.path.startsWith('/invoice') ? json(200, { total: 80 }) : json(200, { price: 12.5 }))(request, response);
  const callbacks = () => callback.requests.filter((path) => path.startsWith('/callback'));

  beforeAll(async () => {
    endpoint = await startHttpsEndpoint(responder);
    const served = await createServingTestContext('sqlite', toolEndpointOptions(endpoint));
    t = served;
    app = served.url;
    t.clock.now = () => new Date();
    callback = await startCallbackServer();
    host = new HostProvider(`${callback.origin}/callback`, APP_NAME);

    // Two published tools; an owner (signed up through the API, a known password) with two agents, one tool each.
    const dev = await developerSession(t.database, t.clock, t.app);
    const quote = await createTool(t.app, dev.auth, { name: 'quote', endpoint: `https://tool.test:${endpoint.port}/quote`, parameters: [] });
    const invoice = await createTool(t.app, dev.auth, { name: 'invoice_total', endpoint: `https://tool.test:${endpoint.port}/invoice`, parameters: [] });
    await publishTool(t.app, dev.auth, quote.id);
    await publishTool(t.app, dev.auth, invoice.id);
    owner = await signUpPerson(t.app, { email: OWNER.email, organizationName: OWNER.org, origin: app });
    for (const name of [CHOSEN, OTHER]) {
      const created = await owner.send('POST', '/api/org/agents', { name, branding: { ...BRAND, logoUrl: 'https://127.0.0.1:1/logo.png' } });
      expect(created.statusCode, created.body).toBe(201);
      agents[name] = created.json().data.id as string;
    }
    for (const [toolId, agent] of [[quote.id, CHOSEN], [invoice.id, OTHER]] as const) {
      const installed = await owner.send('POST', '/api/org/installations', { toolId, agentIds: [agents[agent]] });
      expect(installed.statusCode, installed.body).toBe(201);
    }

    await harness.start(app);
    context = await newContext();
    page = await newPage(context);
    page.setDefaultTimeout(WAIT);
  }, 120_000);

  afterAll(async () => {
    await client?.close().catch(() => undefined);
    await context?.close();
    await harness.close();
    await t?.close();
    await callback?.close();
    await endpoint?.close();
  });

  /** A new SDK client of `provider`'s host on `/mcp`, connected (its tokens from the provider). */
  async function connect(provider: HostProvider): Promise<Client> {
    const connected = new Client({ name: 'browser-test-host', version: '1.0.0' });
    await connected.connect(new StreamableHTTPClientTransport(new URL(`${app}/mcp`), { authProvider: provider }));
    return connected;
  }

  /** The SDK's first connection: 401, discovery, registration; resolves to the transport (to finish with) and the authorization URL. */
  async function startAuthorization(provider: HostProvider): Promise<{ transport: StreamableHTTPClientTransport; url: URL }> {
    const transport = new StreamableHTTPClientTransport(new URL(`${app}/mcp`), { authProvider: provider });
    await expect(new Client({ name: 'browser-test-host', version: '1.0.0' }).connect(transport)).rejects.toBeInstanceOf(UnauthorizedError);
    expect(provider.information?.client_id).toMatch(/^mcpc_/);
    const url = provider.authorizationUrl!;
    expect(url.origin + url.pathname).toBe(`${app}/oauth/authorize`);
    expect(Object.fromEntries(url.searchParams)).toMatchObject({
      response_type: 'code', code_challenge_method: 'S256', resource: `${app}/mcp`, redirect_uri: provider.redirect, state: provider.states.at(-1),
    });
    return { transport, url };
  }

  /** The tab's arrival at the app's redirect URI (the `count`-th one): its query, as the app's listener got it. */
  async function arrivedAtCallback(count: number): Promise<URLSearchParams> {
    await poll(() => callbacks().length, { timeout: WAIT, message: 'the tab reached the redirect URI' }).toBe(count);
    await page.waitForURL((url) => url.origin === callback.origin && url.pathname === '/callback');
    return new URL(callbacks()[count - 1]!, callback.origin).searchParams;
  }

  /** The consent page, drawn for this request: the query as the app made it. */
  async function onConsentPage(url: URL): Promise<void> {
    await page.waitForURL((at) => at.origin === app && at.pathname === '/app/authorize');
    expect(Object.fromEntries(new URL(page.url()).searchParams)).toEqual(Object.fromEntries(url.searchParams));
    await poll(() => h1(page).textContent()).toBe('Connect an app to an agent');
    await settled(page);
  }

  it('signs in from the app’s link, picks the agent on the consent page and approves; the SDK finishes and reaches that agent’s tool only', async () => {
    const { transport, url } = await startAuthorization(host);

    // Signed out: the authorization endpoint sends the tab to the consent page, which sends it to sign in first.
    await page.goto(url.href);
    await page.waitForURL((at) => at.origin === app && at.pathname === '/app/signin');
    expect(new URL(page.url()).searchParams.get('next')).toMatch(/^\/authorize\?/);
    await poll(() => h1(page).textContent()).toBe('Sign in');
    await page.getByLabel('Email').fill(OWNER.email);
    await page.getByLabel('Password').fill(OWNER.password);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await onConsentPage(url);

    // Who asks (marked unverified: its own words), where the tab goes back, the organization, the two agents.
    await page.getByText(APP_NAME, { exact: true }).waitFor();
    await page.getByText('Unverified app:').waitFor();
    await poll(() => page.locator('.consent-host').textContent()).toBe(new URL(callback.origin).host);
    await page.getByText(OWNER.org, { exact: true }).waitFor();
    const choice = page.getByRole('group', { name: 'Which agent may it use?' });
    expect(await choice.getByRole('radio').count()).toBe(2);
    for (const name of [CHOSEN, OTHER]) expect(await choice.getByRole('radio', { name, exact: true }).isChecked()).toBe(false);
    await visited(page, 'consent page', 'mcp-consent');

    // Approve without an agent: the page asks for one, on the radios, and nothing is sent.
    await page.getByRole('button', { name: 'Approve', exact: true }).click();
    await page.getByText('Choose the agent it may use.').waitFor();
    await poll(() => choice.getByRole('radio', { name: CHOSEN, exact: true }).getAttribute('aria-invalid')).toBe('true');
    expect(callbacks()).toEqual([]);

    await choice.getByRole('radio', { name: CHOSEN, exact: true }).check();
    await page.getByRole('button', { name: 'Approve', exact: true }).click();
    const back = await arrivedAtCallback(1);
    expect(back.get('state')).toBe(host.states.at(-1));
    expect(back.get('iss')).toBe(app);
    expect(back.get('code')).toBeTruthy();
    expect(back.get('error')).toBeNull();

    // The SDK finishes with what the tab brought back, and a new client reaches the chosen agent's tool only.
    await transport.finishAuth(back);
    expect(host.stored?.access_token).toMatch(/^svc_mat_/);
    client = await connect(host);
    expect((await client.listTools()).tools.map((tool) => tool.name)).toEqual(['quote']);
    const called = await client.callTool({ name: 'quote', arguments: {} });
    expect(called.structuredContent).toEqual({ price: 12.5 });
    expect(endpoint.requests.map((request) => request.path)).toEqual(['/quote']);
  }, FLOW_TIMEOUT);

  it('Deny sends the tab back to the app with error=access_denied and the state, and grants nothing', async () => {
    const denied = new HostProvider(`${callback.origin}/callback`, DENIED_NAME);
    const { url } = await startAuthorization(denied);

    // Signed in already: straight to the consent page.
    await page.goto(url.href);
    await onConsentPage(url);
    await page.getByText(DENIED_NAME, { exact: true }).waitFor();
    await page.getByRole('button', { name: 'Deny', exact: true }).click();
    const back = await arrivedAtCallback(2);
    expect(Object.fromEntries(back)).toMatchObject({ error: 'access_denied', state: denied.states.at(-1), iss: app });
    expect(back.get('code')).toBeNull();
    expect(denied.stored).toBeUndefined();
    for (const agent of [CHOSEN, OTHER]) {
      const grants = (await owner.send('GET', `/api/org/agents/${agents[agent]}/mcp-grants`)).json().data.items as Array<{ client: { name: string } }>;
      expect(grants.map((grant) => grant.client.name)).toEqual(agent === CHOSEN ? [APP_NAME] : []);
    }
  }, FLOW_TIMEOUT);

  it('the agent page lists the connected app with the MCP URL; Revoke (confirmed) makes the SDK’s next call fail with a 401', async () => {
    // The other agent: nothing connected.
    await page.goto(`${app}/app/agents/${agents[OTHER]}/tools`);
    await poll(() => h1(page).textContent()).toBe(OTHER);
    await settled(page);
    const otherSection = page.getByRole('region', { name: 'Tools and MCP' });
    await otherSection.getByText('No app is connected yet.').waitFor();

    await page.goto(`${app}/app/agents/${agents[CHOSEN]}/tools`);
    await poll(() => h1(page).textContent()).toBe(CHOSEN);
    await settled(page);
    const section = page.getByRole('region', { name: 'Tools and MCP' });
    await poll(() => section.locator('.tools-mcp-url code').textContent()).toBe(`${app}/mcp`);
    const table = section.getByRole('table');
    const row = table.getByRole('row', { name: new RegExp(APP_NAME) });
    await row.waitFor();
    expect(await table.getByRole('row').count()).toBe(2);
    await row.getByRole('cell', { name: 'Olive', exact: true }).waitFor();
    expect(await row.getByRole('cell', { name: 'Never', exact: true }).count()).toBe(0);
    await visited(page, 'agent page with a connected app', 'mcp-connected-apps');

    await row.getByRole('button', { name: `Revoke ${APP_NAME}` }).click();
    const confirm = page.getByRole('alertdialog', { name: `Revoke “${APP_NAME}”?` });
    await confirm.getByText(/stops reaching Front desk’s tools at once/).waitFor();
    await axe(page, 'Revoke dialog');
    checked.push('Revoke dialog');
    await confirm.getByRole('button', { name: 'Revoke access' }).click();
    await confirm.waitFor({ state: 'detached' });
    await page.getByText(`“${APP_NAME}” can no longer use ${CHOSEN}.`).waitFor();
    await section.getByText('No app is connected yet.').waitFor();

    // At the raw level: the token is refused, naming where to start again.
    const raw = await fetch(`${app}/mcp`, {
      method: 'POST',
      headers: { authorization: `Bearer ${host.stored!.access_token}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
    });
    expect(raw.status).toBe(401);
    expect(raw.headers.get('www-authenticate')).toContain('resource_metadata=');
    expect(raw.headers.get('www-authenticate')).toContain(`${app}/.well-known/oauth-protected-resource/mcp`);

    // And the SDK's next call fails: its refresh token went with the grant, so it drops its tokens and asks the person
    // again (a new authorization URL); nothing more reached the endpoint.
    const askedBefore = host.authorizationUrl;
    await expect(client!.callTool({ name: 'quote', arguments: {} })).rejects.toBeInstanceOf(UnauthorizedError);
    expect(host.stored).toBeUndefined();
    expect(host.authorizationUrl).not.toBe(askedBefore);
    expect(endpoint.requests).toHaveLength(1);
  }, FLOW_TIMEOUT);

  it('checked the pages with axe-core, with no page error, and sent nothing off the machine', () => {
    expect(checked).toEqual(['consent page', 'agent page with a connected app', 'Revoke dialog']);
    expect(pageErrors).toEqual([]);
    expect(blocked, 'requests aborted for leaving loopback').toEqual([]);
  });
});
