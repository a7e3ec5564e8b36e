import type { LightMyRequestResponse } from 'fastify';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { SITE, sendVisitorMessage, startSession, visitor, widgetAgent, type VisitorRequest } from '../../test/support/chat-factories.js';
import { createTestContext, testDialects, type TestContext } from '../../test/support/context.js';
import { publishedTool } from '../../test/support/conversation-factories.js';
import { changedTables, databaseSnapshot } from '../../test/support/db-snapshot.js';
import { nextClientIp } from '../../test/support/form-factories.js';
import { json, startHttpsEndpoint, type HttpsEndpoint } from '../../test/support/https-endpoint.js';
import { toolEndpointOptions } from '../../test/support/invocation-factories.js';
import { createOrgWithKey, orgCaller, type OrgWithKey } from '../../test/support/org-factories.js';
import { startScriptedModel, type ScriptedModel } from '../../test/support/scripted-model.js';
import { hashSecret } from '../lib/hashing.js';
import { MAX_VISITOR_MESSAGES } from './rules.js';

/**
 * Every refusal of the chat widget's public side: status, code, the visitor's message, and nothing written
 * (every table compared before and after) and nothing asked of the model.
 */

const NOT_AVAILABLE = 'This chat is not available.';
const OTHER_SITE = 'This chat is not available on this site.';
const SESSION_ENDED = 'This chat session has ended. Start a new chat to continue.';
const BUDGET = 'This assistant has answered all the questions it can for today. Please come back tomorrow.';
const SESSION_FULL = 'This chat has reached its length limit. Please start a new chat to continue.';

describe.each(testDialects())('chat widget refusals on %s', (dialect) => {
  let t: TestContext;
  let endpoint: HttpsEndpoint;
  let model: ScriptedModel;
  let org: OrgWithKey;
  let other: OrgWithKey;
  let toolId: string;
  let call: ReturnType<typeof orgCaller>;
  let chat: { chatId: string; agentId: string };
  let token: string;

  beforeAll(async () => {
    endpoint = await startHttpsEndpoint(json(200, { price: 12.5 }));
    model = await startScriptedModel();
    t = await createTestContext(dialect, toolEndpointOptions(endpoint, { MODEL_ALLOW_PRIVATE_ENDPOINTS: '1' }));
    call = orgCaller(t.app);
    [org, other] = await Promise.all([createOrgWithKey(t.database, t.clock), createOrgWithKey(t.database, t.clock)]);
    toolId = (await publishedTool(t, endpoint)).id;
    chat = await widgetAgent(t, model, org, toolId);
    token = await startSession(t, chat.chatId);
  });
  afterEach(() => {
    model.requests.length = 0;
  });
  afterAll(async () => {
    await t.close();
    await endpoint.close();
    await model.close();
  });

  /** Sends `send()`, expects `status` `code` `message` and that no table changed and the model was not asked. */
  async function refused(send: () => Promise<LightMyRequestResponse>, status: number, code: string, message: string | RegExp): Promise<LightMyRequestResponse> {
    const before = await databaseSnapshot(t.database);
    const res = await send();
    expect(res.statusCode, res.body).toBe(status);
    expect(res.headers['content-type']).toMatch(/^application\/json/);
    const body = res.json();
    expect(body).toMatchObject({ success: false, code });
    if (typeof message === 'string') expect(body.error).toBe(message);
    else expect(body.error).toMatch(message);
    expect(changedTables(before, await databaseSnapshot(t.database))).toEqual([]);
    expect(model.requests).toEqual([]);
    return res;
  }

  /** Every public route, as a visitor with a valid session would call it. */
  const routes = (chatId: string, request: VisitorRequest = {}) => [
    () => visitor(t, 'GET', `/${chatId}`, request),
    () => visitor(t, 'POST', `/${chatId}/sessions`, { payload: {}, ...request }),
    () => visitor(t, 'GET', `/${chatId}/session`, { token, ...request }),
    () => sendVisitorMessage(t, chatId, token, 'Hello', request),
  ];

  it('without Origin, or from another site: 403 FORBIDDEN, no CORS headers, nothing stored', async () => {
    for (const origin of [null, 'https://evil.example', 'https://shop.example.com.evil.example', 'http://shop.example.com', 'https://shop.example.com:8443', 'null']) {
      for (const send of routes(chat.chatId, { origin })) {
        const res = await refused(send, 403, 'FORBIDDEN', OTHER_SITE);
        expect(res.headers['access-control-allow-origin']).toBeUndefined();
      }
    }
  });

  it('an unknown chat id, a malformed one and a chat that is off: the same 404 NOT_FOUND', async () => {
    const off = await widgetAgent(t, model, org, toolId);
    const offToken = await startSession(t, off.chatId);
    expect((await call('PATCH', `/api/org/agents/${off.agentId}`, org, { chat: { enabled: false } })).statusCode).toBe(200);
    for (const chatId of ['chat_00000000000000000000', 'chat_x', 'agt_00000000000000000000', off.chatId]) {
      for (const send of [...routes(chatId), () => visitor(t, 'GET', `/${chatId}/session`, { token: offToken })]) {
        const res = await refused(send, 404, 'NOT_FOUND', NOT_AVAILABLE);
        expect(res.headers['access-control-allow-origin']).toBeUndefined();
      }
    }
    // A chat that is on but whose agent has no model cannot answer: the same 404.
    const noModel = await widgetAgent(t, model, org, toolId);
    expect((await call('PATCH', `/api/org/agents/${noModel.agentId}`, org, { model: null })).statusCode).toBe(200);
    await refused(() => visitor(t, 'GET', `/${noModel.chatId}`), 404, 'NOT_FOUND', NOT_AVAILABLE);
  });

  it('a missing, malformed, unknown, expired or other chat\'s session token: 401 UNAUTHORIZED, start a new chat', async () => {
    const sibling = await widgetAgent(t, model, org, toolId);
    const siblingToken = await startSession(t, sibling.chatId);
    const theirs = await widgetAgent(t, model, other, toolId);
    const theirToken = await startSession(t, theirs.chatId);
    const expiring = await startSession(t, chat.chatId);
    const tokens: Array<string | undefined> = [undefined, 'chs_short', `chs_${'A'.repeat(40)}`, siblingToken, theirToken, `svc_org_${'a'.repeat(40)}`];
    for (const candidate of tokens) {
      for (const send of [
        () => visitor(t, 'GET', `/${chat.chatId}/session`, candidate === undefined ? {} : { token: candidate }),
        () => visitor(t, 'POST', `/${chat.chatId}/session/messages`, { payload: { content: 'Hello' }, ...(candidate === undefined ? {} : { token: candidate }) }),
      ]) {
        const res = await refused(send, 401, 'UNAUTHORIZED', SESSION_ENDED);
        // The widget reads the refusal (CORS), and is not asked for a credential it cannot have.
        expect(res.headers['access-control-allow-origin']).toBe(SITE);
        expect(res.headers['www-authenticate']).toBeUndefined();
      }
    }
    t.clock.advance(7 * 24 * 3_600_000 + 1);
    await refused(() => sendVisitorMessage(t, chat.chatId, expiring, 'Still there?'), 401, 'UNAUTHORIZED', SESSION_ENDED);
    t.clock.advance(-(7 * 24 * 3_600_000 + 1));
  });

  it('a message that is empty, blank, too long or not text: 400 VALIDATION_ERROR', async () => {
    for (const content of ['', 'x'.repeat(2001), 42, null]) {
      await refused(() => sendVisitorMessage(t, chat.chatId, token, content), 400, 'VALIDATION_ERROR', /content/);
    }
    await refused(() => sendVisitorMessage(t, chat.chatId, token, '   \n  '), 400, 'VALIDATION_ERROR', 'Type a message first.');
    await refused(() => visitor(t, 'POST', `/${chat.chatId}/session/messages`, { token, payload: { content: 'Hi', extra: true } }), 400, 'VALIDATION_ERROR', /extra/);
    await refused(() => visitor(t, 'POST', `/${chat.chatId}/sessions`, { payload: { pageUrl: 'javascript:alert(1)' } }), 400, 'VALIDATION_ERROR', /pageUrl/);
    // A session may start without a body; a message may not.
    expect((await visitor(t, 'POST', `/${chat.chatId}/sessions`)).statusCode).toBe(201);
    await refused(() => visitor(t, 'POST', `/${chat.chatId}/session/messages`, { token }), 400, 'VALIDATION_ERROR', /body/);
    // 2,000 characters is allowed.
    model.script({ text: 'OK.' });
    expect((await sendVisitorMessage(t, chat.chatId, token, 'x'.repeat(2000))).statusCode).toBe(200);
  });

  it('past the per-address limits: 429 RATE_LIMIT_EXCEEDED with Retry-After and a kind message, nothing stored', async () => {
    const ip = nextClientIp();
    for (let i = 0; i < 20; i++) expect((await visitor(t, 'POST', `/${chat.chatId}/sessions`, { payload: {}, ip })).statusCode).toBe(201);
    const res = await refused(() => visitor(t, 'POST', `/${chat.chatId}/sessions`, { payload: {}, ip }), 429, 'RATE_LIMIT_EXCEEDED', /^Too many new chats from your network\. Please wait a moment\. Try again in \d+ seconds?\.$/);
    expect(Number(res.headers['retry-after'])).toBeGreaterThan(0);
    expect(res.headers['access-control-allow-origin']).toBe(SITE);
    // Another address, and another chat from the same address, are counted apart.
    expect((await visitor(t, 'POST', `/${chat.chatId}/sessions`, { payload: {} })).statusCode).toBe(201);
    const second = await widgetAgent(t, model, org, toolId);
    expect((await visitor(t, 'POST', `/${second.chatId}/sessions`, { payload: {}, ip })).statusCode).toBe(201);
  });

  it('past the per-session rate: 429 with Retry-After, the message not stored', async () => {
    const session = await startSession(t, chat.chatId);
    for (let i = 0; i < 6; i++) {
      model.script({ text: `Answer ${i}.` });
      expect((await sendVisitorMessage(t, chat.chatId, session, `Question ${i}`)).statusCode).toBe(200);
    }
    model.requests.length = 0;
    const res = await refused(() => sendVisitorMessage(t, chat.chatId, session, 'One more'), 429, 'RATE_LIMIT_EXCEEDED', 'You\'re sending messages quickly. Please wait a moment.');
    expect(Number(res.headers['retry-after'])).toBeGreaterThan(0);
    // A minute later the session may send again.
    t.clock.advance(61_000);
    model.script({ text: 'Back.' });
    expect((await sendVisitorMessage(t, chat.chatId, session, 'One more')).statusCode).toBe(200);
  });

  it(`past ${MAX_VISITOR_MESSAGES} visitor messages in a session: 429, start a new chat`, async () => {
    const session = await startSession(t, chat.chatId);
    // The count as 49 messages would leave it; the 50th is sent for real.
    await t.database.db.updateTable('chat_sessions').set({ visitor_messages: MAX_VISITOR_MESSAGES - 1 }).where('token_hash', '=', hashSecret(session)).execute();
    model.script({ text: 'The last one.' });
    expect((await sendVisitorMessage(t, chat.chatId, session, 'Fiftieth')).statusCode).toBe(200);
    model.requests.length = 0;
    const res = await refused(() => sendVisitorMessage(t, chat.chatId, session, 'Fifty-first'), 429, 'RATE_LIMIT_EXCEEDED', SESSION_FULL);
    expect(res.headers['retry-after']).toBe('1');
    // A new chat may start at once.
    expect((await visitor(t, 'POST', `/${chat.chatId}/sessions`, { payload: {} })).statusCode).toBe(201);
  });

  it('the agent\'s widget budget, then the organization\'s: 429 until 00:00 UTC in the widget\'s words, nothing stored', async () => {
    const budgeted = await widgetAgent(t, model, other, toolId, { dailyTokenBudget: 10 });
    const session = await startSession(t, budgeted.chatId);
    model.script({ text: 'Hello there.', usage: { input: 8, output: 4 } });
    expect((await sendVisitorMessage(t, budgeted.chatId, session, 'Hi')).statusCode).toBe(200);
    model.requests.length = 0;
    const now = t.clock.now();
    const toMidnight = Math.ceil((Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate() + 1) - now.getTime()) / 1000);
    const agentRefusal = await refused(() => sendVisitorMessage(t, budgeted.chatId, session, 'Again'), 429, 'RATE_LIMIT_EXCEEDED', BUDGET);
    expect(agentRefusal.headers['retry-after']).toBe(String(toMidnight));

    // Lifted for the agent; the organization's budget (12 used) now refuses, in the same words.
    expect((await call('PATCH', `/api/org/agents/${budgeted.agentId}`, other, { chat: { dailyTokenBudget: null } })).statusCode).toBe(200);
    expect((await call('PATCH', '/api/org/organization', other, { dailyTokenBudget: 12 })).statusCode).toBe(200);
    const orgRefusal = await refused(() => sendVisitorMessage(t, budgeted.chatId, session, 'Again'), 429, 'RATE_LIMIT_EXCEEDED', BUDGET);
    expect(orgRefusal.headers['retry-after']).toBe(String(toMidnight));
    expect(orgRefusal.body).not.toContain('PATCH');
  });

  it('one answer at a time: a message while the previous one streams is 409 CONFLICT in the visitor\'s words', async () => {
    const session = await startSession(t, chat.chatId);
    // The previous answer's claim, as a turn under way holds it.
    const { conversation_id: conversationId } = await t.database.db.selectFrom('chat_sessions').select('conversation_id').where('token_hash', '=', hashSecret(session)).executeTakeFirstOrThrow();
    await t.database.db.updateTable('conversations').set({ turn_started_at: t.clock.now().toISOString() }).where('id', '=', conversationId).execute();
    await refused(() => sendVisitorMessage(t, chat.chatId, session, 'Hello?'), 409, 'CONFLICT', 'I\'m still answering your previous message. Please wait for it to finish.');
  });
});
