import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestContext, testDialects, type TestContext } from '../../test/support/context.js';
import { changedTables, databaseSnapshot } from '../../test/support/db-snapshot.js';
import { createForm } from '../../test/support/form-factories.js';
import { createAgent } from '../../test/support/invocation-factories.js';
import { createOrgWithKey, orgCaller, type OrgWithKey } from '../../test/support/org-factories.js';

/**
 * An agent's chat widget settings on the Operator API (`chat` of PATCH /api/org/agents/{id}): off by default with
 * a public chat id, partial updates, origins normalised or refused with a clear 400, the lead form the
 * organization's own (404 otherwise), and every refusal writing nothing.
 */
describe.each(testDialects())('agents\' chat settings on %s', (dialect) => {
  let t: TestContext;
  let org: OrgWithKey;
  let other: OrgWithKey;
  let call: ReturnType<typeof orgCaller>;

  beforeAll(async () => {
    t = await createTestContext(dialect);
    call = orgCaller(t.app);
    [org, other] = await Promise.all([createOrgWithKey(t.database, t.clock), createOrgWithKey(t.database, t.clock)]);
  });
  afterAll(async () => t.close());

  const patch = (id: string, chat: unknown, who = org) => call('PATCH', `/api/org/agents/${id}`, who, { chat });

  async function refused(id: string, chat: unknown, status: number, code: string, expected: { field?: string; message: RegExp }) {
    const before = await databaseSnapshot(t.database);
    const res = await patch(id, chat);
    expect(res.statusCode, res.body).toBe(status);
    const body = res.json();
    expect(body).toMatchObject({ success: false, code });
    if (expected.field !== undefined) expect(body.field).toBe(expected.field);
    expect(JSON.stringify(body)).toMatch(expected.message);
    expect(changedTables(before, await databaseSnapshot(t.database))).toEqual([]);
  }

  it('gives every agent a chat that is off, with a public chat id that never changes, on every answer', async () => {
    const agent = await createAgent(t.app, org);
    const created = (await call('GET', `/api/org/agents/${agent.id}`, org)).json().data;
    expect(created.chat).toEqual({ enabled: false, chatId: expect.stringMatching(/^chat_[0-9A-Za-z]{20}$/), allowedOrigins: [], welcomeMessage: '', leadFormId: null, dailyTokenBudget: null });
    const listed = (await call('GET', '/api/org/agents?limit=100', org)).json().data.items.find((a: { id: string }) => a.id === agent.id);
    expect(listed.chat).toEqual(created.chat);
    const renamed = await call('PATCH', `/api/org/agents/${agent.id}`, org, { name: 'Renamed' });
    expect(renamed.json().data.chat.chatId).toBe(created.chat.chatId);
    // Another agent has another chat id.
    expect((await call('GET', `/api/org/agents/${(await createAgent(t.app, org)).id}`, org)).json().data.chat.chatId).not.toBe(created.chat.chatId);
  });

  it('changes only the fields given, normalising origins as browsers send them', async () => {
    const agent = await createAgent(t.app, org);
    const on = await patch(agent.id, { enabled: true, allowedOrigins: ['HTTPS://Shop.Example.com/', 'https://shop.example.com:443', 'https://*.Example.org'], welcomeMessage: '  Hi there!  ' });
    expect(on.statusCode, on.body).toBe(200);
    expect(on.json().data.chat).toMatchObject({ enabled: true, allowedOrigins: ['https://shop.example.com', 'https://*.example.org'], welcomeMessage: 'Hi there!', leadFormId: null });
    const budget = await patch(agent.id, { dailyTokenBudget: 50_000 });
    expect(budget.json().data.chat).toMatchObject({ enabled: true, allowedOrigins: ['https://shop.example.com', 'https://*.example.org'], welcomeMessage: 'Hi there!', dailyTokenBudget: 50_000 });
    const off = await patch(agent.id, { enabled: false, dailyTokenBudget: null });
    expect(off.json().data.chat).toMatchObject({ enabled: false, allowedOrigins: ['https://shop.example.com', 'https://*.example.org'], dailyTokenBudget: null });
  });

  it('refuses origins that are not scheme://host[:port] (one leading *. label at most), more than 20, a long welcome, and an empty chat: 400 naming the field', async () => {
    const agent = await createAgent(t.app, org);
    await refused(agent.id, { allowedOrigins: ['https://ok.example', 'https://shop.example.com/pricing'] }, 400, 'VALIDATION_ERROR', { field: 'chat.allowedOrigins[1]', message: /no path, query or fragment/ });
    await refused(agent.id, { allowedOrigins: ['shop.example.com'] }, 400, 'VALIDATION_ERROR', { field: 'chat.allowedOrigins[0]', message: /must start with https:\/\// });
    await refused(agent.id, { allowedOrigins: ['https://a.*.example.com'] }, 400, 'VALIDATION_ERROR', { field: 'chat.allowedOrigins[0]', message: /one leading label/ });
    await refused(agent.id, { allowedOrigins: ['https://*.com'] }, 400, 'VALIDATION_ERROR', { field: 'chat.allowedOrigins[0]', message: /at least two labels/ });
    await refused(agent.id, { enabled: true, allowedOrigins: Array.from({ length: 21 }, (_, i) => `https://s${i}.example`) }, 400, 'VALIDATION_ERROR', { field: 'chat.allowedOrigins', message: /at most 20 origins/ });
    await refused(agent.id, { welcomeMessage: 'x'.repeat(501) }, 400, 'VALIDATION_ERROR', { message: /welcomeMessage/ });
    await refused(agent.id, { dailyTokenBudget: 0 }, 400, 'VALIDATION_ERROR', { message: /dailyTokenBudget/ });
    await refused(agent.id, { enabled: 'yes' }, 400, 'VALIDATION_ERROR', { message: /enabled/ });
    await refused(agent.id, { chatId: 'chat_00000000000000000000' }, 400, 'VALIDATION_ERROR', { message: /chatId/ });
    await refused(agent.id, {}, 400, 'VALIDATION_ERROR', { message: /at least one field/ });
    expect((await call('GET', `/api/org/agents/${agent.id}`, org)).json().data.chat).toMatchObject({ enabled: false, allowedOrigins: [], welcomeMessage: '' });
  });

  it('takes the organization\'s own form as the lead form (another\'s, or a missing one, is 404 FORM_NOT_FOUND), and null clears it', async () => {
    const agent = await createAgent(t.app, org);
    const ours = await createForm(t.app, org);
    const theirs = await createForm(t.app, other);
    await refused(agent.id, { leadFormId: theirs.id }, 404, 'FORM_NOT_FOUND', { field: 'chat.leadFormId', message: /No form of your organization has that id/ });
    await refused(agent.id, { enabled: true, leadFormId: 'frm_00000000000000000000' }, 404, 'FORM_NOT_FOUND', { field: 'chat.leadFormId', message: /No form of your organization has that id/ });
    const set = await patch(agent.id, { leadFormId: ours.id });
    expect(set.statusCode, set.body).toBe(200);
    expect(set.json().data.chat.leadFormId).toBe(ours.id);
    expect((await patch(agent.id, { leadFormId: null })).json().data.chat.leadFormId).toBeNull();
  });
});
