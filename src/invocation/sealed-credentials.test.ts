import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createTestContext, testDialects, type TestContext } from '../../test/support/context.js';
import { developerSession } from '../../test/support/factories.js';
import { startHttpsEndpoint, type HttpsEndpoint } from '../../test/support/https-endpoint.js';
import { createAgent, install, toolEndpointOptions } from '../../test/support/invocation-factories.js';
import { createOrgWithKey, orgCaller, type OrgWithKey } from '../../test/support/org-factories.js';
import { createTool, publishTool } from '../../test/support/tools-factories.js';

/**
 * A sealed credential opens only in the row it was sealed for: its installation id and field are the
 * AES-GCM associated data (service.ts, credentialAad). So a value copied in the database, by a bug
 * or by someone who can write rows but holds no key, into another installation (another org's) or
 * into another field is refused, and never sent: the call answers TOOL_CREDENTIALS_MISSING.
 */
describe.each(testDialects())('sealed tool credentials on %s', (dialect) => {
  let t: TestContext;
  let endpoint: HttpsEndpoint;
  let dev: Awaited<ReturnType<typeof developerSession>>;
  const call = (who: OrgWithKey, agentId: string, name: string) =>
    orgCaller(t.app)('POST', `/api/org/agents/${agentId}/tool-calls`, who, { name, arguments: { weightKg: 1, country: 'PT' } });

  beforeAll(async () => {
    endpoint = await startHttpsEndpoint();
    t = await createTestContext(dialect, toolEndpointOptions(endpoint));
    dev = await developerSession(t.database, t.clock, t.app);
  });
  afterEach(() => endpoint.reset());
  afterAll(async () => {
    await t.close();
    await endpoint.close();
  });

  async function installFor(who: OrgWithKey, authType: string, credentials: Record<string, string>) {
    const tool = await publishTool(t.app, dev.auth, (await createTool(t.app, dev.auth, { endpoint: `https://tool.test:${endpoint.port}/quote`, authType })).id);
    const agent = await createAgent(t.app, who);
    const installation = await install(t.app, who, { toolId: tool.id, credentials });
    return { agentId: agent.id, name: installation.name, installationId: installation.id };
  }

  function sealedOf(installationId: string, field: string): Promise<string> {
    return t.database.db.selectFrom('installation_credentials').select('sealed').where('installation_id', '=', installationId).where('field', '=', field)
      .executeTakeFirstOrThrow().then((row) => row.sealed);
  }

  async function overwrite(installationId: string, field: string, sealed: string): Promise<void> {
    await t.database.db.updateTable('installation_credentials').set({ sealed }).where('installation_id', '=', installationId).where('field', '=', field).execute();
    // The agents' tools are cached with their credentials opened, for 60 s.
    t.clock.advance(61_000);
  }

  async function expectRefusedUnsent(who: OrgWithKey, agentId: string, name: string, installationId: string): Promise<void> {
    const res = await call(who, agentId, name);
    expect(res.statusCode).toBe(409);
    expect(res.json()).toMatchObject({
      success: false,
      code: 'TOOL_CREDENTIALS_MISSING',
      error: `The stored credentials for "${name}" cannot be decrypted with the configured SECRETS_KEY. An operator must enter them again (PATCH /api/org/installations/${installationId}). No request was sent.`,
      callId: expect.stringMatching(/^call_/),
    });
    expect(endpoint.requests).toHaveLength(0);
    expect(endpoint.connections).toBe(0);
  }

  it('does not open a credential copied into another organization\'s installation, and sends nothing', async () => {
    const [orgA, orgB] = await Promise.all([createOrgWithKey(t.database, t.clock), createOrgWithKey(t.database, t.clock)]);
    const a = await installFor(orgA, 'api_key', { apiKey: 'api-key-of-org-a' });
    const b = await installFor(orgB, 'api_key', { apiKey: 'api-key-of-org-b' });
    expect((await call(orgB, b.agentId, b.name)).statusCode).toBe(200);
    expect(endpoint.requests.map((request) => request.headers['x-api-key'])).toEqual(['api-key-of-org-b']);
    endpoint.reset();

    await overwrite(b.installationId, 'apiKey', await sealedOf(a.installationId, 'apiKey'));
    await expectRefusedUnsent(orgB, b.agentId, b.name, b.installationId);
    // The row it was sealed for still opens.
    expect((await call(orgA, a.agentId, a.name)).statusCode).toBe(200);
    expect(endpoint.requests.map((request) => request.headers['x-api-key'])).toEqual(['api-key-of-org-a']);
  });

  it('does not open a credential moved to another field of its own installation', async () => {
    const org = await createOrgWithKey(t.database, t.clock);
    const basic = await installFor(org, 'basic', { username: 'the-username', password: 'the-password' });
    const [username, password] = [await sealedOf(basic.installationId, 'username'), await sealedOf(basic.installationId, 'password')];
    await overwrite(basic.installationId, 'username', password);
    await overwrite(basic.installationId, 'password', username);
    await expectRefusedUnsent(org, basic.agentId, basic.name, basic.installationId);
  });
});
