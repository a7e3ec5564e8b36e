import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../app.js';
import { openDatabase, type Database } from '../db/database.js';
import type { App } from '../http/app-type.js';
import { randomBase62 } from '../lib/ids.js';
import { sendVisitorMessage, startSession, widgetAgent } from '../../test/support/chat-factories.js';
import { createTestContext, testDialects, type TestContext } from '../../test/support/context.js';
import { conversationWithTool, publishedTool, sendMessage } from '../../test/support/conversation-factories.js';
import { json, startHttpsEndpoint, type HttpsEndpoint } from '../../test/support/https-endpoint.js';
import { toolEndpointOptions } from '../../test/support/invocation-factories.js';
import { createOrgWithKey, orgCaller, type OrgWithKey } from '../../test/support/org-factories.js';
import { startScriptedModel, type ScriptedModel } from '../../test/support/scripted-model.js';

/**
 * Daily token budgets are caps when turns run at once (issue 32): 30 turns sent together, on one node or
 * across two, never count more than the budget plus one turn — where before each turn checked the count alone
 * and 30 turns of 40 tokens counted 1,200 against a budget of 100. Refusals are 429 with Retry-After, nothing
 * saved; a turn's reservation is given back when it ends, saved or not.
 */
const BUDGET = 100;
/** Every scripted answer: 30 + 10 tokens, one model request. */
const TURN = { text: 'Twelve fifty.', usage: { input: 30, output: 10 } };
const TURN_TOKENS = 40;
const PARALLEL = 30;

describe.each(testDialects())('daily token budgets under concurrency on %s', (dialect) => {
  let t: TestContext;
  let endpoint: HttpsEndpoint;
  let model: ScriptedModel;
  let toolId: string;
  let call: ReturnType<typeof orgCaller>;
  /** PostgreSQL: a second node (its own app and pool) on the same database. */
  let second: { app: App; database: Database } | undefined;

  beforeAll(async () => {
    endpoint = await startHttpsEndpoint(json(200, { price: 12.5 }));
    model = await startScriptedModel();
    // Two nodes as they run: PostgreSQL, and Redis for the shared rate limits and caches when the run has it.
    const redisUrl = dialect === 'postgres' ? process.env.TEST_REDIS_URL : undefined;
    const base = toolEndpointOptions(endpoint, { MODEL_ALLOW_PRIVATE_ENDPOINTS: '1', ...(redisUrl ? { REDIS_URL: redisUrl } : {}) });
    const options = { ...base, deps: { ...base.deps, redisPrefix: `test:${randomBase62(8)}:` } };
    t = await createTestContext(dialect, options);
    call = orgCaller(t.app);
    toolId = (await publishedTool(t, endpoint)).id;
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
    await t.close();
    await endpoint.close();
    await model.close();
  });

  const tokensToday = async (org: OrgWithKey) => (await call('GET', '/api/org/organization', org)).json().data.tokensUsedToday as number;
  const held = async (orgId: string) => (await t.database.db.selectFrom('conversations').select(['turn_started_at', 'turn_reserved_tokens']).where('org_id', '=', orgId).execute())
    .filter((row) => row.turn_started_at !== null || Number(row.turn_reserved_tokens) !== 0);

  /** An organization with a budget of BUDGET and `count` conversations with one agent. */
  async function orgWithConversations(count: number) {
    const org = await createOrgWithKey(t.database, t.clock);
    expect((await call('PATCH', '/api/org/organization', org, { dailyTokenBudget: BUDGET })).statusCode).toBe(200);
    const first = await conversationWithTool(t, model, org, toolId);
    const ids = [first.id];
    for (let i = 1; i < count; i++) ids.push((await call('POST', `/api/org/agents/${first.agentId}/conversations`, org)).json().data.id);
    return { org, ids };
  }

  /** Sends one message to each conversation at once, half through each node when there are two. */
  async function sendTogether(org: OrgWithKey, ids: string[], stream: boolean) {
    model.script(...ids.map(() => TURN));
    const apps = second ? [t.app, second.app] : [t.app];
    const answers = await Promise.all(ids.map((id, i) => apps[i % apps.length]!.inject({
      method: 'POST', url: `/api/org/conversations/${id}/messages`, headers: { ...org.auth, ...(stream ? { accept: 'text/event-stream' } : {}) }, payload: { content: 'Price to Finland?' },
    })));
    model.requests.length = 0;
    return answers;
  }

  function expectRefusalsAre429(answers: Awaited<ReturnType<typeof sendTogether>>) {
    for (const refused of answers.filter((a) => a.statusCode !== 200)) {
      expect(refused.statusCode, refused.body).toBe(429);
      expect(refused.json().code).toBe('RATE_LIMIT_EXCEEDED');
      expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0);
    }
  }

  for (const stream of [false, true]) {
    it(`holds the organization's budget when ${PARALLEL} turns start together${second ? ' across two nodes' : ''} (${stream ? 'streamed' : 'JSON'})`, async () => {
      const { org, ids } = await orgWithConversations(PARALLEL);
      // The day's first turns: none has ended, so each reserves FIRST_TURN_RESERVATION, more than the budget.
      const cold = await sendTogether(org, ids, stream);
      const coldAccepted = cold.filter((a) => a.statusCode === 200).length;
      expectRefusalsAre429(cold);
      expect(coldAccepted).toBeGreaterThanOrEqual(1);
      expect(await tokensToday(org)).toBe(coldAccepted * TURN_TOKENS);
      expect(await tokensToday(org)).toBeLessThan(BUDGET + TURN_TOKENS);

      // Once a turn has ended, the day's largest turn (40) is the reservation: the rest of the budget is shared out.
      const warm = await sendTogether(org, ids, stream);
      expectRefusalsAre429(warm);
      const used = await tokensToday(org);
      expect(used).toBe((coldAccepted + warm.filter((a) => a.statusCode === 200).length) * TURN_TOKENS);
      // The bound: under the budget plus one turn, as one at a time (docs/conversations.md).
      expect(used).toBeGreaterThanOrEqual(BUDGET);
      expect(used).toBeLessThan(BUDGET + TURN_TOKENS);
      // Every claim and reservation given back.
      expect(await held(org.orgId)).toEqual([]);
    });
  }

  it(`holds an agent's widget budget when ${PARALLEL} visitors write at once, from ${PARALLEL} addresses${second ? ' across two nodes' : ''}`, async () => {
    const org = await createOrgWithKey(t.database, t.clock);
    const { chatId } = await widgetAgent(t, model, org, toolId, { dailyTokenBudget: BUDGET });
    const tokens = await Promise.all(Array.from({ length: PARALLEL }, () => startSession(t, chatId)));
    const apps = second ? [t.app, second.app] : [t.app];
    const widgetUsed = async () => Number((await t.database.db.selectFrom('widget_token_usage').select('tokens').where('org_id', '=', org.orgId).executeTakeFirst())?.tokens ?? 0);

    let accepted = 0;
    for (let round = 0; round < 2; round++) {
      model.script(...tokens.map(() => TURN));
      const answers = await Promise.all(tokens.map((token, i) => sendVisitorMessage({ ...t, app: apps[i % apps.length]! }, chatId, token, 'Price to Finland?')));
      model.requests.length = 0;
      for (const answer of answers) {
        if (answer.statusCode === 200) accepted++;
        else {
          expect(answer.statusCode, answer.body).toBe(429);
          expect(answer.json().error).toMatch(/^(This assistant is busy answering other visitors|This assistant has answered all the questions it can for today)/);
        }
      }
    }
    const used = await widgetUsed();
    expect(used).toBe(accepted * TURN_TOKENS);
    expect(used).toBeLessThan(BUDGET + TURN_TOKENS);
    expect(await held(org.orgId)).toEqual([]);
  });

  it('gives a turn\'s reservation back when the turn fails, and counts only what was saved', async () => {
    const { org, ids } = await orgWithConversations(2);
    model.script({ status: 500, error: 'The model is overloaded.' });
    const failed = await sendMessage(t, ids[0]!, 'Price?', org);
    expect(failed.statusCode).toBe(502);
    expect(await held(org.orgId)).toEqual([]);
    model.script(TURN);
    expect((await sendMessage(t, ids[1]!, 'Price?', org)).statusCode).toBe(200);
    expect(await tokensToday(org)).toBe(TURN_TOKENS);
  });
});
