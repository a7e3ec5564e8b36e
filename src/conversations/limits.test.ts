import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createTestContext, testDialects, type TestContext } from '../../test/support/context.js';
import { conversationWithTool, publishedTool, sendMessage, sseEvents } from '../../test/support/conversation-factories.js';
import { json, startHttpsEndpoint, type HttpsEndpoint } from '../../test/support/https-endpoint.js';
import { toolEndpointOptions } from '../../test/support/invocation-factories.js';
import { createOrgWithKey, orgCaller, type OrgWithKey } from '../../test/support/org-factories.js';
import { startScriptedModel, type ScriptedModel } from '../../test/support/scripted-model.js';

/**
 * The limits of agent conversations an organization relies on: the owner's daily token budget (counted per
 * UTC day with each saved turn, a turn refused with 429 once it is used up, until 00:00 UTC), who may set it,
 * and the conversation's id on each call in the call log.
 */
const HOUR = 3_600_000;

describe.each(testDialects())('conversation limits on %s', (dialect) => {
  let t: TestContext;
  let endpoint: HttpsEndpoint;
  let model: ScriptedModel;
  let org: OrgWithKey;
  let other: OrgWithKey;
  let toolId: string;
  let call: ReturnType<typeof orgCaller>;

  beforeAll(async () => {
    endpoint = await startHttpsEndpoint(json(200, { price: 12.5 }));
    model = await startScriptedModel();
    t = await createTestContext(dialect, toolEndpointOptions(endpoint, { MODEL_ALLOW_PRIVATE_ENDPOINTS: '1' }));
    call = orgCaller(t.app);
    [org, other] = await Promise.all([createOrgWithKey(t.database, t.clock), createOrgWithKey(t.database, t.clock)]);
    toolId = (await publishedTool(t, endpoint)).id;
  });
  afterEach(() => {
    model.requests.length = 0;
  });
  afterAll(async () => {
    await t.close();
    await endpoint.close();
    await model.close();
  });

  const usageRows = (orgId: string) => t.database.db.selectFrom('conversation_token_usage').select(['day', 'tokens']).where('org_id', '=', orgId).orderBy('day').execute();
  const messageCount = async (id: string) => (await t.database.db.selectFrom('conversation_messages').select('id').where('conversation_id', '=', id).execute()).length;
  const organization = async (who: OrgWithKey) => (await call('GET', '/api/org/organization', who)).json().data;
  /** Moves the test clock to the next 23:00 UTC, an hour before the day's budget resets. */
  function toElevenPm(): string {
    const now = t.clock.now();
    let target = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate(), 23);
    if (target <= now.getTime()) target += 24 * HOUR;
    t.clock.advance(target - now.getTime());
    return t.clock.now().toISOString().slice(0, 10);
  }

  it('counts every turn\'s tokens per UTC day, refuses a turn once the budget is used up (429 until 00:00 UTC, nothing saved), and starts again the next day', async () => {
    const org = await createOrgWithKey(t.database, t.clock);
    const set = await call('PATCH', '/api/org/organization', org, { dailyTokenBudget: 100 });
    expect(set.statusCode, set.body).toBe(200);
    expect(set.json().data).toMatchObject({ dailyTokenBudget: 100, tokensUsedToday: 0 });
    const day = toElevenPm();
    const conv = await conversationWithTool(t, model, org, toolId);

    // A turn with a tool call: two model requests, 50 + 25 tokens, counted as saved.
    model.script({ toolCalls: [{ id: 'call_a', name: conv.toolName, arguments: '{"weightKg":2,"country":"FI"}' }], usage: { input: 40, output: 10 } }, { text: '12.50 EUR.', usage: { input: 20, output: 5 } });
    expect((await sendMessage(t, conv.id, 'Price to Finland?', org)).statusCode).toBe(200);
    expect(await organization(org)).toMatchObject({ dailyTokenBudget: 100, tokensUsedToday: 75 });

    // Under the budget when it starts, a turn finishes past it (streamed here): 75 + 40 = 115.
    model.script({ text: 'Anything else?', usage: { input: 30, output: 10 } });
    const past = await sendMessage(t, conv.id, 'Thanks.', org, true);
    expect(sseEvents(past.body).at(-1)).toMatchObject({ type: 'finish', status: 'complete' });
    expect(await usageRows(org.orgId)).toEqual([{ day, tokens: expect.anything() }]);
    expect(Number((await usageRows(org.orgId))[0]!.tokens)).toBe(115);
    expect((await organization(org)).tokensUsedToday).toBe(115);

    // Used up: refused before anything is asked or saved, as JSON and when a stream was asked for.
    model.requests.length = 0;
    const savedBefore = await messageCount(conv.id);
    for (const stream of [false, true]) {
      const refused = await sendMessage(t, conv.id, 'One more?', org, stream);
      expect(refused.statusCode).toBe(429);
      expect(refused.headers['content-type']).toMatch(/^application\/json/);
      expect(refused.headers['retry-after']).toBe('3600');
      expect(refused.json()).toMatchObject({ success: false, code: 'RATE_LIMIT_EXCEEDED' });
      expect(refused.json().error).toContain('The organization\'s daily model budget of 100 tokens is used up (115 used today). It resets at 00:00 UTC');
    }
    expect(await messageCount(conv.id)).toBe(savedBefore);
    expect(model.requests).toEqual([]);
    const row = await t.database.db.selectFrom('conversations').select(['turn_started_at', 'message_count']).where('id', '=', conv.id).executeTakeFirstOrThrow();
    expect(row).toEqual({ turn_started_at: null, message_count: savedBefore });

    // Another organization's count and budget are its own.
    const theirs = await conversationWithTool(t, model, other, toolId);
    model.script({ text: 'Hello.', usage: { input: 3, output: 2 } });
    expect((await sendMessage(t, theirs.id, 'Hi', other)).statusCode).toBe(200);
    expect(await organization(other)).toMatchObject({ dailyTokenBudget: null, tokensUsedToday: 5 });

    // At 00:00 UTC the day's count starts again; yesterday's row stays.
    t.clock.advance(HOUR);
    expect((await organization(org)).tokensUsedToday).toBe(0);
    model.script({ text: 'Good morning.', usage: { input: 8, output: 4 } });
    expect((await sendMessage(t, conv.id, 'Morning!', org)).statusCode).toBe(200);
    expect((await usageRows(org.orgId)).map((r) => [r.day, Number(r.tokens)])).toEqual([[day, 115], [t.clock.now().toISOString().slice(0, 10), 12]]);

    // A budget under today's count refuses at once; null removes the limit.
    expect((await call('PATCH', '/api/org/organization', org, { dailyTokenBudget: 10 })).json().data).toMatchObject({ dailyTokenBudget: 10, tokensUsedToday: 12 });
    expect((await sendMessage(t, conv.id, 'Again?', org)).statusCode).toBe(429);
    expect((await call('PATCH', '/api/org/organization', org, { dailyTokenBudget: null })).json().data.dailyTokenBudget).toBeNull();
    model.script({ text: 'No limit now.' });
    expect((await sendMessage(t, conv.id, 'Again?', org)).statusCode).toBe(200);
  });

  it('refuses a budget that is not a whole number from 1 to 1,000,000,000 (400), writing nothing', async () => {
    for (const value of [0, -5, 1.5, '100', 1_000_000_001]) {
      const res = await call('PATCH', '/api/org/organization', org, { dailyTokenBudget: value });
      expect(res.statusCode, JSON.stringify(value)).toBe(400);
      expect(res.json()).toMatchObject({ code: 'VALIDATION_ERROR' });
      expect(JSON.stringify(res.json())).toContain('dailyTokenBudget');
    }
    const row = await t.database.db.selectFrom('orgs').select('daily_token_budget').where('id', '=', org.orgId).executeTakeFirstOrThrow();
    expect(row.daily_token_budget).toBeNull();
  });

  it('lets only an owner set the budget: a member gets 403 and nothing is written, but may still rename the organization', async () => {
    const ORIGIN = 'http://localhost:3000';
    type Browser = { headers: Record<string, string> };
    const send = (method: 'GET' | 'POST' | 'PATCH', url: string, browser: Browser | null, payload?: object) =>
      t.app.inject({ method, url, headers: { origin: ORIGIN, ...browser?.headers }, ...(payload ? { payload } : {}) });
    const browserOf = (res: Awaited<ReturnType<typeof send>>): Browser => ({
      headers: { cookie: /^svc_session=[^;]*/.exec(String(res.headers['set-cookie']))![0], 'x-csrf-token': res.json().data.csrfToken as string },
    });
    const signUp = await send('POST', '/api/auth/signup', null, { email: 'owner-budget@example.com', password: 'violet kettle marathon', name: 'Olive', organizationName: 'Budget Co' });
    expect(signUp.statusCode, signUp.body).toBe(201);
    const owner = browserOf(signUp);
    const orgId = signUp.json().data.organization.id as string;
    const invitation = await send('POST', '/api/org/invitations', owner, { email: 'member-budget@example.com' });
    const token = String(invitation.json().data.url).split('/').pop()!;
    const accepted = await send('POST', `/api/auth/invitations/${token}/accept`, null, { name: 'Max', password: 'amber lantern harbour' });
    expect(accepted.json().data.user.role).toBe('member');
    const member = browserOf(accepted);
    const stored = () => t.database.db.selectFrom('orgs').select(['name', 'daily_token_budget']).where('id', '=', orgId).executeTakeFirstOrThrow();

    for (const patch of [{ dailyTokenBudget: 5 }, { dailyTokenBudget: null }, { name: 'Renamed by a member', dailyTokenBudget: 5 }]) {
      const refused = await send('PATCH', '/api/org/organization', member, patch);
      expect(refused.statusCode).toBe(403);
      expect(refused.json()).toMatchObject({ code: 'FORBIDDEN', field: 'dailyTokenBudget', error: 'Only an owner of the organization can set its daily model token budget. Ask an owner to do it.' });
      expect(await stored()).toEqual({ name: 'Budget Co', daily_token_budget: null });
    }
    expect((await send('PATCH', '/api/org/organization', member, { name: 'Budget Co Ltd' })).statusCode).toBe(200);
    const set = await send('PATCH', '/api/org/organization', owner, { dailyTokenBudget: 5000 });
    expect(set.statusCode, set.body).toBe(200);
    expect(set.json().data).toMatchObject({ name: 'Budget Co Ltd', dailyTokenBudget: 5000, tokensUsedToday: 0 });
    expect((await send('GET', '/api/org/organization', member)).json().data.dailyTokenBudget).toBe(5000);
    expect(await stored()).toEqual({ name: 'Budget Co Ltd', daily_token_budget: 5000 });
  });

  it('puts the conversation\'s id on its tool calls in the call log, filterable, and only for its organization', async () => {
    const conv = await conversationWithTool(t, model, org, toolId);
    model.script(
      { toolCalls: [{ id: 'call_fi', name: conv.toolName, arguments: '{"weightKg":2,"country":"FI"}' }, { id: 'call_se', name: conv.toolName, arguments: '{"weightKg":2,"country":"SE"}' }] },
      { text: 'Both 12.50 EUR.' },
    );
    const turn = await sendMessage(t, conv.id, 'Finland and Sweden?', org);
    expect(turn.statusCode, turn.body).toBe(200);
    const callIds = (turn.json().data.messages as Array<{ toolCall: { callId: string } | null }>).flatMap((m) => (m.toolCall ? [m.toolCall.callId] : [])).sort();
    expect(callIds).toHaveLength(2);
    // An operator's own call for the same agent has no conversation.
    const direct = await call('POST', `/api/org/agents/${conv.agentId}/tool-calls`, org, { name: conv.toolName, arguments: { weightKg: 1, country: 'DE' } });
    expect(direct.statusCode, direct.body).toBe(200);

    const all = (await call('GET', `/api/org/tool-calls?agentId=${conv.agentId}`, org)).json().data.items as Array<{ id: string; conversationId: string | null; path: string }>;
    expect(all.filter((c) => c.conversationId === conv.id).map((c) => c.id).sort()).toEqual(callIds);
    expect(all.find((c) => c.id === direct.json().data.callId)).toMatchObject({ path: 'operator', conversationId: null });
    const filtered = await call('GET', `/api/org/tool-calls?conversationId=${conv.id}`, org);
    expect(filtered.statusCode).toBe(200);
    expect(filtered.json().data.items.map((c: { id: string }) => c.id).sort()).toEqual(callIds);
    expect(filtered.json().data.items.every((c: { path: string; conversationId: string }) => c.path === 'conversation' && c.conversationId === conv.id)).toBe(true);

    // Another organization sees none of it, filtered or not.
    expect((await call('GET', `/api/org/tool-calls?conversationId=${conv.id}`, other)).json().data.items).toEqual([]);
    const theirs = (await call('GET', '/api/org/tool-calls?limit=100', other)).json().data.items as Array<{ id: string }>;
    expect(theirs.some((c) => callIds.includes(c.id))).toBe(false);
  });
});
