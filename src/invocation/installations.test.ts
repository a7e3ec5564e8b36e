import { readFileSync, readdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestContext, testDialects, type TestContext } from '../../test/support/context.js';
import { developerSession } from '../../test/support/factories.js';
import { createAgent, install } from '../../test/support/invocation-factories.js';
import { createOrgWithKey, orgCaller, type OrgWithKey } from '../../test/support/org-factories.js';
import { createTool, fixedResolver, publishTool } from '../../test/support/tools-factories.js';

type Session = Awaited<ReturnType<typeof developerSession>>;

const SECRETS = {
  apiKey: 'plaintext-api-key-7f3a91',
  token: 'plaintext-bearer-token-55c2',
  username: 'plaintext-user-e81b',
  password: 'plaintext-password-0d4c',
  secret: 'plaintext-hmac-secret-9a6e',
};

describe.each(testDialects())('Operator API: installations on %s', (dialect) => {
  let t: TestContext;
  let dev: Session;
  let org: OrgWithKey;
  let other: OrgWithKey;
  const logs: string[] = [];
  const tools: Record<string, { id: string; name: string }> = {};
  let call: ReturnType<typeof orgCaller>;

  beforeAll(async () => {
    const logStream = new Writable({ write(chunk, _enc, done) { logs.push(String(chunk)); done(); } });
    t = await createTestContext(dialect, { env: { LOG_LEVEL: 'trace' }, deps: { resolveHost: fixedResolver(), logStream } });
    call = orgCaller(t.app);
    dev = await developerSession(t.database, t.clock, t.app);
    [org, other] = await Promise.all([createOrgWithKey(t.database, t.clock), createOrgWithKey(t.database, t.clock)]);
    for (const authType of ['none', 'api_key', 'bearer', 'basic', 'hmac']) {
      t.clock.advance(1000);
      const tool = await createTool(t.app, dev.auth, { name: `tool_${authType}`, authType });
      tools[authType] = await publishTool(t.app, dev.auth, tool.id);
    }
    tools.draft = await createTool(t.app, dev.auth, { name: 'draft_tool' });
  });
  afterAll(async () => t.close());

  it('enables a published tool for every agent, and shows it without credentials', async () => {
    const res = await call('POST', '/api/org/installations', org, { toolId: tools.api_key!.id, credentials: { apiKey: SECRETS.apiKey } });
    expect(res.statusCode).toBe(201);
    const data = res.json().data;
    expect(data).toMatchObject({
      toolId: tools.api_key!.id, toolName: 'tool_api_key', name: 'tool_api_key', alias: null, enabled: true,
      allAgents: true, agentIds: [], authType: 'api_key', credentialsSet: true,
    });
    expect(data.id).toMatch(/^inst_/);
    expect(res.body).not.toContain(SECRETS.apiKey);
    expect((await call('GET', `/api/org/installations/${data.id}`, org)).json().data).toEqual(data);
    const list = await call('GET', '/api/org/installations', org);
    expect(list.json().data.items.map((i: { id: string }) => i.id)).toContain(data.id);
  });

  it('enables a tool for some agents under an alias, and accepts each auth type\'s credentials', async () => {
    const a = await createAgent(t.app, org, 'A');
    const inst = await install(t.app, org, { toolId: tools.basic!.id, agentIds: [a.id], alias: 'lookup', credentials: { username: SECRETS.username, password: SECRETS.password } });
    expect(inst).toMatchObject({ name: 'lookup', credentialsSet: true, allAgents: false, agentIds: [a.id] });
    const bearer = await install(t.app, org, { toolId: tools.bearer!.id, credentials: { token: SECRETS.token } });
    expect(bearer.credentialsSet).toBe(true);
    const hmac = await install(t.app, org, { toolId: tools.hmac!.id, agentIds: [a.id] });
    expect(hmac.credentialsSet).toBe(false);
    const patched = await call('PATCH', `/api/org/installations/${hmac.id}`, org, { credentials: { secret: SECRETS.secret } });
    expect(patched.statusCode).toBe(200);
    expect(patched.json().data.credentialsSet).toBe(true);
    const none = await install(t.app, org, { toolId: tools.none!.id });
    expect(none).toMatchObject({ credentialsSet: false, authType: 'none' });
  });

  it.each([
    [{ apiKey: 'x', token: 'y' }, 'credentials.token'],
    [{}, 'credentials.apiKey'],
    [{ secret: 'x' }, 'credentials.secret'],
  ])('refuses credentials %j for api_key with 400 naming %s', async (credentials, path) => {
    const fresh = await createOrgWithKey(t.database, t.clock);
    const res = await call('POST', '/api/org/installations', fresh, { toolId: tools.api_key!.id, credentials });
    expect(res.statusCode).toBe(400);
    expect(res.json().code).toBe('VALIDATION_ERROR');
    expect(JSON.stringify(res.json().details)).toContain(path);
  });

  it('refuses credentials for authType none, a draft tool, an unknown tool and a second installation of one tool', async () => {
    const fresh = await createOrgWithKey(t.database, t.clock);
    expect((await call('POST', '/api/org/installations', fresh, { toolId: tools.none!.id, credentials: { token: 'x' } })).statusCode).toBe(400);
    const draft = await call('POST', '/api/org/installations', fresh, { toolId: tools.draft!.id });
    expect(draft.statusCode).toBe(404);
    expect(draft.json().code).toBe('TOOL_NOT_FOUND');
    expect((await call('POST', '/api/org/installations', fresh, { toolId: 'tool_00000000000000000000' })).json().code).toBe('TOOL_NOT_FOUND');
    await install(t.app, fresh, { toolId: tools.none!.id });
    const again = await call('POST', '/api/org/installations', fresh, { toolId: tools.none!.id });
    expect(again.statusCode).toBe(409);
    expect(again.json().code).toBe('CONFLICT');
  });

  it('refuses another organization\'s agent with 404 AGENT_NOT_FOUND', async () => {
    const theirs = await createAgent(t.app, other, 'Theirs');
    const fresh = await createOrgWithKey(t.database, t.clock);
    const res = await call('POST', '/api/org/installations', fresh, { toolId: tools.none!.id, agentIds: [theirs.id] });
    expect(res.statusCode).toBe(404);
    expect(res.json().code).toBe('AGENT_NOT_FOUND');
  });

  it('answers 409 when one agent would get two tools with one name, unless an alias tells them apart', async () => {
    const devB = await developerSession(t.database, t.clock, t.app);
    const twin = await publishTool(t.app, devB.auth, (await createTool(t.app, devB.auth, { name: 'tool_none' })).id);
    const fresh = await createOrgWithKey(t.database, t.clock);
    const [a, b] = [await createAgent(t.app, fresh, 'A'), await createAgent(t.app, fresh, 'B')];
    await install(t.app, fresh, { toolId: tools.none!.id, agentIds: [a.id] });
    const clash = await call('POST', '/api/org/installations', fresh, { toolId: twin.id });
    expect(clash.statusCode).toBe(409);
    expect(clash.json()).toMatchObject({ code: 'CONFLICT', field: 'alias' });
    const separate = await install(t.app, fresh, { toolId: twin.id, agentIds: [b.id] });
    expect(separate.name).toBe('tool_none');
    const widen = await call('PATCH', `/api/org/installations/${separate.id}`, fresh, { agentIds: [a.id, b.id] });
    expect(widen.statusCode).toBe(409);
    const aliased = await call('PATCH', `/api/org/installations/${separate.id}`, fresh, { agentIds: null, alias: 'tool_none_b' });
    expect(aliased.statusCode).toBe(200);
    expect(aliased.json().data).toMatchObject({ name: 'tool_none_b', allAgents: true });
  });

  it('patches and deletes; org B can neither see, patch nor delete org A\'s installation', async () => {
    const fresh = await createOrgWithKey(t.database, t.clock);
    const inst = await install(t.app, fresh, { toolId: tools.bearer!.id, credentials: { token: SECRETS.token } });
    for (const [method, payload] of [['GET', undefined], ['PATCH', { alias: 'stolen' }], ['DELETE', undefined]] as const) {
      const res = await call(method, `/api/org/installations/${inst.id}`, other, payload);
      expect(res.statusCode).toBe(404);
      expect(res.json().code).toBe('NOT_FOUND');
    }
    expect((await call('GET', '/api/org/installations', other)).body).not.toContain(inst.id);
    const cleared = await call('PATCH', `/api/org/installations/${inst.id}`, fresh, { credentials: null });
    expect(cleared.json().data.credentialsSet).toBe(false);
    expect((await call('DELETE', `/api/org/installations/${inst.id}`, fresh)).json().data).toEqual({ id: inst.id, deleted: true });
    expect((await call('GET', `/api/org/installations/${inst.id}`, fresh)).statusCode).toBe(404);
    expect((await call('GET', '/api/org/installations/inst_nope', fresh)).json().code).toBe('NOT_FOUND');
  });

  it('needs an org API key', async () => {
    expect((await call('GET', '/api/org/installations', null)).statusCode).toBe(401);
  });

  it('never writes a credential in plaintext: not in the database file, not in a log line', async () => {
    const all = logs.join('');
    expect(all.length).toBeGreaterThan(0);
    for (const value of Object.values(SECRETS)) expect(all).not.toContain(value);
    if (dialect !== 'sqlite') return;
    await t.database.db.selectFrom('installation_credentials').selectAll().execute();
    const file = (t.database as unknown as { file?: string }).file;
    const stored = await t.database.db.selectFrom('installation_credentials').select(['sealed', 'key_id']).execute();
    expect(stored.length).toBeGreaterThanOrEqual(5);
    for (const row of stored) expect(row.sealed).toMatch(/^v1\.[0-9a-f]{8}\./);
    // Every file of the database (main file, WAL, shared memory).
    const path = file ?? (await sqliteFile(t));
    const bytes = readdirSync(dirname(path)).map((name) => readFileSync(`${dirname(path)}/${name}`));
    expect(bytes.length).toBeGreaterThan(0);
    for (const value of Object.values(SECRETS)) {
      for (const content of bytes) expect(content.includes(Buffer.from(value))).toBe(false);
    }
  });
});

async function sqliteFile(t: TestContext): Promise<string> {
  const { sql } = await import('kysely');
  const rows = await sql<{ file: string }>`select file from pragma_database_list where name = 'main'`.execute(t.database.db);
  return rows.rows[0]!.file;
}
