import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestContext, testDialects, type TestContext } from '../../test/support/context.js';
import { createAgent } from '../../test/support/invocation-factories.js';
import { createOrgWithKey, orgCaller, type OrgWithKey } from '../../test/support/org-factories.js';
import { hashSecret } from '../lib/hashing.js';
import { createAgentKeysService } from './agent-keys-service.js';
import { createOrgsRepo } from './repo.js';
import { transactOn } from '../repos.js';

describe.each(testDialects())('Operator API: agent keys on %s', (dialect) => {
  let t: TestContext;
  let org: OrgWithKey;
  let other: OrgWithKey;
  let agent: { id: string };
  let call: ReturnType<typeof orgCaller>;

  beforeAll(async () => {
    t = await createTestContext(dialect);
    call = orgCaller(t.app);
    [org, other] = await Promise.all([createOrgWithKey(t.database, t.clock), createOrgWithKey(t.database, t.clock)]);
    agent = await createAgent(t.app, org);
  });
  afterAll(async () => t.close());

  const service = () => createAgentKeysService({ repo: createOrgsRepo(t.database.db), transact: transactOn(t.database.db), clock: t.clock, audit: { record: async () => {} } });

  it('shows a new key once, stores only its hash, and lists keys without secrets', async () => {
    const res = await call('POST', `/api/org/agents/${agent.id}/keys`, org, { name: 'Claude Desktop' });
    expect(res.statusCode).toBe(201);
    const created = res.json().data;
    expect(created).toMatchObject({ id: expect.stringMatching(/^akey_/), agentId: agent.id, name: 'Claude Desktop', lastUsedAt: null });
    expect(created.key).toMatch(/^svc_agt_[0-9A-Za-z]{40}$/);
    expect(created.lastFour).toBe(created.key.slice(-4));

    const rows = await t.database.db.selectFrom('agent_keys').selectAll().where('id', '=', created.id).execute();
    expect(rows[0]!.key_hash).toBe(hashSecret(created.key));
    expect(JSON.stringify(rows)).not.toContain(created.key);

    const list = await call('GET', `/api/org/agents/${agent.id}/keys`, org);
    expect(list.statusCode).toBe(200);
    expect(list.body).not.toContain(created.key);
    const { key: _key, ...shown } = created;
    expect(list.json().data.items).toEqual([shown]);
  });

  it('resolves a key to its agent, and refuses deleted, unknown and foreign keys', async () => {
    const created = (await call('POST', `/api/org/agents/${agent.id}/keys`, org, { name: 'MCP' })).json().data;
    expect(await service().authenticate(created.key)).toEqual({ orgId: org.orgId, agentId: agent.id, keyId: created.id });
    await expect(service().authenticate(org.apiKey)).rejects.toMatchObject({ code: 'INVALID_TOKEN' });
    await expect(service().authenticate(`svc_agt_${'x'.repeat(40)}`)).rejects.toMatchObject({ code: 'INVALID_TOKEN' });
    expect((await call('DELETE', `/api/org/agents/${agent.id}/keys/${created.id}`, org)).json().data).toEqual({ id: created.id, deleted: true });
    await expect(service().authenticate(created.key)).rejects.toMatchObject({ code: 'INVALID_TOKEN', status: 401 });
  });

  it('keeps organizations apart: another org\'s agent is 404 AGENT_NOT_FOUND', async () => {
    const created = (await call('POST', `/api/org/agents/${agent.id}/keys`, org, { name: 'Mine' })).json().data;
    for (const [method, url, body] of [
      ['POST', `/api/org/agents/${agent.id}/keys`, { name: 'Theirs' }],
      ['GET', `/api/org/agents/${agent.id}/keys`, undefined],
      ['DELETE', `/api/org/agents/${agent.id}/keys/${created.id}`, undefined],
    ] as const) {
      const res = await call(method, url, other, body);
      expect(res.statusCode).toBe(404);
      expect(res.json().code).toBe('AGENT_NOT_FOUND');
    }
    expect((await call('DELETE', `/api/org/agents/${agent.id}/keys/akey_00000000000000000000`, org)).json().code).toBe('NOT_FOUND');
    expect((await call('DELETE', `/api/org/agents/${agent.id}/keys/nope`, org)).statusCode).toBe(404);
  });

  it('deletes an agent\'s keys with the agent', async () => {
    const doomed = await createAgent(t.app, org, 'Doomed');
    const created = (await call('POST', `/api/org/agents/${doomed.id}/keys`, org, { name: 'K' })).json().data;
    await call('DELETE', `/api/org/agents/${doomed.id}`, org);
    await expect(service().authenticate(created.key)).rejects.toMatchObject({ code: 'INVALID_TOKEN' });
  });
});
