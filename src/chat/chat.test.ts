import { createHash } from 'node:crypto';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { SITE, sendVisitorMessage, startSession, visitor, visitorEvents, widgetAgent } from '../../test/support/chat-factories.js';
import { createTestContext, testDialects, type TestContext } from '../../test/support/context.js';
import { MODEL_KEY, publishedTool } from '../../test/support/conversation-factories.js';
import { json, startHttpsEndpoint, type HttpsEndpoint } from '../../test/support/https-endpoint.js';
import { toolEndpointOptions } from '../../test/support/invocation-factories.js';
import { createOrgWithKey, orgCaller, type OrgWithKey } from '../../test/support/org-factories.js';
import { startScriptedModel, type ScriptedModel } from '../../test/support/scripted-model.js';

/**
 * The chat widget's public side, as a visitor's browser on the business's site uses it: the config, a session,
 * a message answered as a stream (a real tool call through the invoker to a loopback HTTPS endpoint, the model
 * scripted on 127.0.0.1), the history after a reload, and the conversation the operators read.
 */

/** What the tool endpoint answers; `internal-ref` must never reach the visitor. */
const ENDPOINT_ANSWER = { price: 12.5, currency: 'EUR', ref: 'internal-ref-7731' };
const DAY = 24 * 3_600_000;

describe.each(testDialects())('chat widget: the visitor\'s path on %s', (dialect) => {
  let t: TestContext;
  let endpoint: HttpsEndpoint;
  let model: ScriptedModel;
  let org: OrgWithKey;
  let toolId: string;
  let call: ReturnType<typeof orgCaller>;

  beforeAll(async () => {
    endpoint = await startHttpsEndpoint(json(200, ENDPOINT_ANSWER));
    model = await startScriptedModel();
    t = await createTestContext(dialect, toolEndpointOptions(endpoint, { MODEL_ALLOW_PRIVATE_ENDPOINTS: '1' }));
    call = orgCaller(t.app);
    org = await createOrgWithKey(t.database, t.clock);
    toolId = (await publishedTool(t, endpoint)).id;
  });
  afterEach(() => {
    model.requests.length = 0;
    endpoint.reset();
  });
  afterAll(async () => {
    await t.close();
    await endpoint.close();
    await model.close();
  });

  it('draws the widget, starts a session with its conversation, streams an answer with a tool call, and shows the same after a reload', async () => {
    const { chatId, toolName, agentId } = await widgetAgent(t, model, org, toolId);

    const config = await visitor(t, 'GET', `/${chatId}`);
    expect(config.statusCode, config.body).toBe(200);
    expect(config.json()).toEqual({
      success: true,
      data: {
        chatId, welcomeMessage: 'Hi! Ask me about shipping.', leadCapture: false, handoff: { enabled: false, available: false },
        branding: { name: 'Acme', primaryColor: '#1a73e8', backgroundColor: '#ffffff', textColor: '#202124', fontFamily: null, logoUrl: 'https://acme.example/logo.png' },
      },
    });
    expect(config.headers['access-control-allow-origin']).toBe(SITE);
    expect(config.headers.vary).toContain('Origin');
    expect(config.headers['access-control-expose-headers']).toContain('Retry-After');
    // Nothing internal on the public side.
    expect(config.body).not.toContain(agentId);
    expect(config.body).not.toContain(org.orgId);

    const created = await visitor(t, 'POST', `/${chatId}/sessions`, {
      payload: { pageUrl: 'https://shop.example.com/pricing?utm_source=news#plans', utm: { source: 'news', medium: ' email ', campaign: '' } },
    });
    expect(created.statusCode, created.body).toBe(201);
    const { token, expiresAt } = created.json().data;
    expect(token).toMatch(/^chs_[0-9A-Za-z]{40}$/);
    expect(expiresAt).toBe(new Date(t.clock.now().getTime() + 7 * DAY).toISOString());
    expect(created.headers['access-control-allow-origin']).toBe(SITE);
    // Stored hashed, with its conversation: source widget, the page and its UTM parameters.
    const session = await t.database.db.selectFrom('chat_sessions').selectAll().where('token_hash', '=', createHash('sha256').update(token).digest('hex')).executeTakeFirstOrThrow();
    expect(JSON.stringify(await t.database.db.selectFrom('chat_sessions').selectAll().execute())).not.toContain(token);
    expect(session).toMatchObject({ org_id: org.orgId, agent_id: agentId, visitor_messages: 0 });

    model.script(
      { toolCalls: [{ id: 'call_w1', name: toolName, arguments: '{"weightKg":2,"country":"FI"}' }], text: 'Let me check.', usage: { input: 40, output: 10 } },
      { text: 'A 2 kg parcel to Finland costs 12.50 EUR.', usage: { input: 30, output: 12 } },
    );
    const answer = await sendVisitorMessage(t, chatId, token, 'What does a 2 kg parcel to Finland cost?');
    expect(answer.statusCode, answer.body).toBe(200);
    expect(answer.headers['content-type']).toMatch(/^text\/event-stream/);
    expect(answer.headers['access-control-allow-origin']).toBe(SITE);
    const events = visitorEvents(answer.body);
    expect(events[0]).toEqual({ type: 'start', data: { messageId: expect.stringMatching(/^msg_/) } });
    expect(events.filter((e) => e.type === 'tool-call')).toEqual([{ type: 'tool-call', data: { name: toolName } }]);
    const text = events.filter((e) => e.type === 'text-delta').map((e) => e.data.delta).join('');
    expect(text).toBe('Let me check.\n\nA 2 kg parcel to Finland costs 12.50 EUR.');
    expect(events.at(-1)).toEqual({ type: 'finish', data: { status: 'complete' } });
    expect(new Set(events.map((e) => e.type))).toEqual(new Set(['start', 'tool-call', 'text-delta', 'finish']));
    // The tool ran through the invoker (one signed HTTPS request); its arguments and result stay inside.
    expect(endpoint.requests).toHaveLength(1);
    expect(answer.body).not.toContain('weightKg');
    expect(answer.body).not.toContain('internal-ref-7731');

    // A reload: the history is what the visitor saw, under the stream's message id.
    const history = await visitor(t, 'GET', `/${chatId}/session`, { token });
    expect(history.statusCode, history.body).toBe(200);
    expect(history.json().data.messages).toEqual([
      { role: 'user', id: expect.stringMatching(/^msg_/), content: 'What does a 2 kg parcel to Finland cost?', createdAt: expect.any(String) },
      { role: 'assistant', id: events[0]!.data.messageId, content: 'Let me check.\n\nA 2 kg parcel to Finland costs 12.50 EUR.', createdAt: expect.any(String) },
    ]);
    expect(history.body).not.toContain('internal-ref-7731');
    expect(history.body).not.toContain(toolName);

    // The operators' side: a widget conversation with its page and UTM, the tool call in full.
    const listed = (await call('GET', `/api/org/conversations?agentId=${agentId}`, org)).json().data.items as Array<Record<string, unknown>>;
    const widget = listed.find((c) => c.id === session.conversation_id)!;
    expect(widget).toMatchObject({ source: 'widget', pageUrl: 'https://shop.example.com/pricing?utm_source=news#plans', utm: { source: 'news', medium: 'email' }, messageCount: 4 });
    expect(listed.filter((c) => c.id !== session.conversation_id).every((c) => c.pageUrl === null && c.utm === null)).toBe(true);
    const transcript = (await call('GET', `/api/org/conversations/${session.conversation_id}`, org)).json().data;
    expect(transcript.messages.map((m: { role: string }) => m.role)).toEqual(['user', 'assistant', 'tool', 'assistant']);
    expect(transcript.messages[2].toolCall).toMatchObject({ name: toolName, arguments: { weightKg: 2, country: 'FI' }, result: ENDPOINT_ANSWER, outcome: 'OK' });

    // Counted: the organization's day, the agent's widget day, the session's visitor messages.
    const day = t.clock.now().toISOString().slice(0, 10);
    const widgetUsage = await t.database.db.selectFrom('widget_token_usage').select(['agent_id', 'day', 'tokens']).where('agent_id', '=', agentId).execute();
    expect(widgetUsage.map((r) => [r.agent_id, r.day, Number(r.tokens)])).toEqual([[agentId, day, 92]]);
    expect((await call('GET', '/api/org/organization', org)).json().data.tokensUsedToday).toBe(92);
    const after = await t.database.db.selectFrom('chat_sessions').select('visitor_messages').where('id', '=', session.id).executeTakeFirstOrThrow();
    expect(after.visitor_messages).toBe(1);
  });

  it('keeps a session 7 days after its last use: each use extends it, an idle one ends', async () => {
    const { chatId } = await widgetAgent(t, model, org, toolId);
    const token = await startSession(t, chatId);
    t.clock.advance(6 * DAY);
    const read = await visitor(t, 'GET', `/${chatId}/session`, { token });
    expect(read.statusCode, read.body).toBe(200);
    expect(read.json().data).toEqual({ expiresAt: new Date(t.clock.now().getTime() + 7 * DAY).toISOString(), status: 'bot', messages: [] });
    // 12 days after it started, 6 after its last use: still on.
    t.clock.advance(6 * DAY);
    expect((await visitor(t, 'GET', `/${chatId}/session`, { token })).statusCode).toBe(200);
    t.clock.advance(7 * DAY + 1);
    const ended = await visitor(t, 'GET', `/${chatId}/session`, { token });
    expect(ended.statusCode).toBe(401);
    expect(ended.json()).toMatchObject({ code: 'UNAUTHORIZED', error: 'This chat session has ended. Start a new chat to continue.' });
  });

  it('answers a provider failure with a kind message, never the provider\'s words, in the stream and in the history', async () => {
    const { chatId } = await widgetAgent(t, model, org, toolId);
    const token = await startSession(t, chatId);
    model.script({ status: 500, error: `Upstream exploded near shard 42 (key ${MODEL_KEY})` });
    const res = await sendVisitorMessage(t, chatId, token, 'Hello?');
    expect(res.statusCode).toBe(200);
    const events = visitorEvents(res.body);
    expect(events.map((e) => e.type)).toEqual(['start', 'error', 'finish']);
    expect(events[1]!.data).toEqual({ code: 'MODEL_PROVIDER_ERROR', message: 'Sorry, I can\'t answer right now. Please try again in a moment.' });
    expect(events[2]!.data).toEqual({ status: 'error' });
    expect(res.body).not.toContain('exploded');
    expect(res.body).not.toContain(MODEL_KEY);
    const history = await visitor(t, 'GET', `/${chatId}/session`, { token });
    expect(history.json().data.messages.map((m: { role: string; content: string }) => [m.role, m.content])).toEqual([
      ['user', 'Hello?'],
      ['assistant', 'Sorry, I can\'t answer right now. Please try again in a moment.'],
    ]);
    expect(history.body).not.toContain('exploded');
  });

  it('answers CORS preflights for the chat\'s allowed origins only, a wildcard standing for one label', async () => {
    const { chatId } = await widgetAgent(t, model, org, toolId, { allowedOrigins: [SITE, 'https://*.example.org'] });
    const preflight = (origin: string, path = `/${chatId}/session/messages`) =>
      visitor(t, 'OPTIONS', path, { origin, headers: { 'access-control-request-method': 'POST', 'access-control-request-headers': 'authorization, content-type' } });

    for (const origin of [SITE, 'https://blog.example.org']) {
      const allowed = await preflight(origin);
      expect(allowed.statusCode, allowed.body).toBe(204);
      expect(allowed.headers).toMatchObject({
        'access-control-allow-origin': origin,
        'access-control-allow-methods': 'GET, POST, OPTIONS',
        'access-control-allow-headers': 'Authorization, Content-Type, Last-Event-ID',
        'access-control-max-age': '86400',
      });
      expect(allowed.headers.vary).toContain('Origin');
    }
    for (const origin of ['https://evil.example', 'https://a.b.example.org', 'https://example.org', 'http://shop.example.com', 'null']) {
      const refused = await preflight(origin);
      expect(refused.statusCode, origin).toBe(403);
      expect(refused.headers['access-control-allow-origin']).toBeUndefined();
      expect(refused.json()).toMatchObject({ code: 'FORBIDDEN', error: 'This chat is not available on this site.' });
    }
    const unknown = await preflight(SITE, '/chat_00000000000000000000/sessions');
    expect(unknown.statusCode).toBe(404);
    expect(unknown.headers['access-control-allow-origin']).toBeUndefined();
  });
});
