import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../app.js';
import { openDatabase, type Database } from '../db/database.js';
import type { App } from '../http/app-type.js';
import { randomBase62 } from '../lib/ids.js';
import { followCallback, signUpPerson } from '../../test/support/connection-factories.js';
import { createTestContext, testDialects, type TestContext } from '../../test/support/context.js';
import { developerSession } from '../../test/support/factories.js';
import { json, startHttpsEndpoint, type HttpsEndpoint } from '../../test/support/https-endpoint.js';
import { createAgent, toolEndpointOptions } from '../../test/support/invocation-factories.js';
import { startOAuthProvider, type OAuthProvider } from '../../test/support/oauth-provider.js';
import { createTool, publishTool } from '../../test/support/tools-factories.js';

/**
 * One refresh per connection at a time, across every node: 50 calls at the moment the access token is due, spread
 * over two server nodes on one PostgreSQL (one node on SQLite), against oidc-provider with rotating refresh tokens,
 * where a second use of the old refresh token would revoke the whole grant. Exactly one refresh reaches the provider
 * and every call succeeds.
 */
const CALLS = 50;
const CLIENT = { clientId: 'switchboard', clientSecret: 'lease-test-client-secret' };

describe.each(testDialects())('the refresh lease on %s', (dialect) => {
  let t: TestContext;
  let provider: OAuthProvider;
  let endpoint: HttpsEndpoint;
  let second: { app: App; database: Database } | undefined;

  beforeAll(async () => {
    endpoint = await startHttpsEndpoint(async (request, response) => {
      const token = String(request.headers.authorization ?? '').replace(/^Bearer /, '');
      const verdict = await provider.verifyAccessToken(token);
      return (verdict.active ? json(200, { ok: true }) : json(401, { error: 'invalid_token' }))(request, response);
    });
    const redisUrl = dialect === 'postgres' ? process.env.TEST_REDIS_URL : undefined;
    const base = toolEndpointOptions(endpoint, { TOOL_CALL_TIMEOUT_MS: '10000', ...(redisUrl ? { REDIS_URL: redisUrl } : {}) });
    const options = { ...base, deps: { ...base.deps, redisPrefix: `test:${randomBase62(8)}:` } };
    t = await createTestContext(dialect, options);
    provider = await startOAuthProvider({ clients: [{ ...CLIENT, redirectUris: [`${t.config.publicUrl}/oauth/callback`] }], rotateRefreshTokens: true });
    if (t.databaseUrl) {
      const database = openDatabase({ databaseUrl: t.databaseUrl, pgPoolSize: 5 });
      const app = await buildApp({ expiryPurge: false, webhookDelivery: false, ...options.deps, config: t.config, database, clock: t.clock });
      await app.ready();
      second = { app, database };
    }
  });
  afterAll(async () => {
    if (second) {
      await second.app.close();
      await second.database.close();
    }
    await t?.close();
    await provider?.close();
    await endpoint?.close();
  });

  it(`makes exactly one refresh for ${CALLS} calls at the moment of expiry${second ? ' across two nodes' : ''}, and every call succeeds (before and after it passes)`, async () => {
    const dev = await developerSession(t.database, t.clock, t.app);
    const tool = await createTool(t.app, dev.auth, {
      name: 'calendar', endpoint: `https://tool.test:${endpoint.port}/events`, authType: 'oauth2', parameters: [],
      oauth: { authorizationUrl: provider.authorizationUrl, tokenUrl: provider.tokenUrl, scopes: ['openid', 'offline_access'], ...CLIENT },
    });
    await publishTool(t.app, dev.auth, tool.id);
    const owner = await signUpPerson(t.app, { email: `lease-${dialect}@example.com`, organizationName: 'Lease Co' });
    const apiKey = { authorization: `Bearer ${(await owner.send('POST', '/api/org/api-keys', { name: 'calls' })).json().data.key as string}` };
    const agentId = (await createAgent(t.app, { auth: apiKey })).id;
    const installationId = (await owner.send('POST', '/api/org/installations', { toolId: tool.id })).json().data.id as string;
    const started = await owner.send('POST', `/api/org/installations/${installationId}/connection`);
    expect((await followCallback(t.app, await provider.authorize(started.json().data.authorizationUrl), owner.cookie)).statusCode).toBe(303);

    const apps = second ? [t.app, second.app] : [t.app];
    const call = (app: App) => app.inject({ method: 'POST', url: `/api/org/agents/${agentId}/tool-calls`, headers: apiKey, payload: { name: 'calendar', arguments: {} } });
    // Each node has read and cached the token.
    for (const app of apps) expect((await call(app)).statusCode).toBe(200);

    // The token is due on every node at once (the nodes share the clock), and 50 calls arrive together.
    t.clock.advance(3600 * 1000 - 1000);
    const before = provider.tokenRequests.filter((r) => r.grantType === 'refresh_token').length;
    const answers = await Promise.all(Array.from({ length: CALLS }, (_, i) => call(apps[i % apps.length]!)));
    const refreshes = provider.tokenRequests.filter((r) => r.grantType === 'refresh_token').slice(before);

    expect(answers.map((a) => a.statusCode)).toEqual(Array(CALLS).fill(200));
    expect(refreshes).toHaveLength(1);
    expect(refreshes[0]).toMatchObject({ status: 200 });
    // Then past the new token's expiry, where no node may use the old one: the others wait for the one refresh.
    t.clock.advance(3600 * 1000 + 1000);
    const again = await Promise.all(Array.from({ length: CALLS }, (_, i) => call(apps[i % apps.length]!)));
    expect(again.map((a) => a.statusCode)).toEqual(Array(CALLS).fill(200));
    expect(provider.tokenRequests.filter((r) => r.grantType === 'refresh_token').slice(before)).toHaveLength(2);

    const row = await t.database.db.selectFrom('oauth_connections').select(['token_version', 'status', 'lease_owner']).where('installation_id', '=', installationId).executeTakeFirstOrThrow();
    expect(row).toMatchObject({ status: 'connected', lease_owner: null });
    expect(Number(row.token_version)).toBe(3);
  });
});
