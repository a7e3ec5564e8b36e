import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { SITE, sendVisitorMessage, startSession, visitor, visitorEvents } from '../../test/support/chat-factories.js';
import { createServingTestContext, testDialects, type TestContext } from '../../test/support/context.js';
import { createForm } from '../../test/support/form-factories.js';
import { handoffAgent, openStream, signedIn, type OpenStream } from '../../test/support/handoff-factories.js';
import { createOrgWithKey, orgCaller, type OrgWithKey } from '../../test/support/org-factories.js';
import { startScriptedModel, type ScriptedModel } from '../../test/support/scripted-model.js';

/**
 * Hand-off and the Inbox (issue 35), through the API on a server listening on 127.0.0.1: the state machine with
 * its refusals, the model never called while a person is asked for or holds the chat (the scripted model server
 * counts its requests) and called again after a release with the person's words in its history, `request_human`,
 * office hours, the deadline worker, the webhook events, and the event streams (Last-Event-ID, isolation).
 */

const WEBHOOK = { url: 'https://hooks.unresolvable.test/in', events: ['conversation.handoff_requested', 'conversation.closed'] };
/** Office hours that are never open: one minute on one day, a week from the test's clock (any day works: open < close on a weekday far from now). */
const CLOSED_HOURS = { timezone: 'Europe/Helsinki', days: ['sun'], open: '03:00', close: '03:01' };

describe.each(testDialects())('hand-off and the Inbox on %s', (dialect) => {
  let t: TestContext & { url: string };
  let model: ScriptedModel;
  let org: OrgWithKey;
  let other: OrgWithKey;
  let call: ReturnType<typeof orgCaller>;
  let member: { cookie: Record<string, string>; auth: Record<string, string> };
  const streams: OpenStream[] = [];

  beforeAll(async () => {
    model = await startScriptedModel();
    // The deadline worker runs on the test's clock, a pass every 100 ms.
    t = await createServingTestContext(dialect, { env: { MODEL_ALLOW_PRIVATE_ENDPOINTS: '1' }, deps: { handoffDeadlines: { intervalMs: 100 } } });
    call = orgCaller(t.app);
    [org, other] = await Promise.all([createOrgWithKey(t.database, t.clock), createOrgWithKey(t.database, t.clock)]);
    member = await signedIn(t.app, org.operator.email);
    const hook = await call('POST', '/api/org/webhooks', org, WEBHOOK);
    expect(hook.statusCode, hook.body).toBe(201);
  });
  afterEach(() => {
    for (const stream of streams.splice(0)) stream.close();
  });
  afterAll(async () => {
    await t.close();
    await model.close();
  });

  const conversationOf = async (token: string) => {
    const row = await t.database.db.selectFrom('chat_sessions').select('conversation_id').where('token_hash', '=', (await import('../lib/hashing.js')).hashSecret(token)).executeTakeFirstOrThrow();
    return row.conversation_id;
  };
  const transcript = async (id: string) => (await call('GET', `/api/org/conversations/${id}`, org)).json().data;
  const outboxTypes = async () => (await t.database.db.selectFrom('webhook_outbox').select('events').where('org_id', '=', org.orgId).execute())
    .flatMap((row) => (JSON.parse(row.events) as Array<{ type: string; data: any }>).map((event) => ({ type: event.type, data: event.data })));
  const post = (path: string, headers: Record<string, string>, payload?: unknown) =>
    t.app.inject({ method: 'POST', url: path, headers, ...(payload === undefined ? {} : { payload: payload as object }) });
  const visitorStream = async (chatId: string, token: string, lastEventId?: string) => {
    const stream = await openStream(`${t.url}/api/public/chats/${chatId}/session/events`, { origin: SITE, authorization: `Bearer ${token}`, ...(lastEventId ? { 'last-event-id': lastEventId } : {}) });
    streams.push(stream);
    return stream;
  };

  it('keeps an agent\'s hand-off settings, checked', async () => {
    const agent = (await call('POST', '/api/org/agents', org, { name: 'Settings', branding: { name: 'Acme', primaryColor: '#123456', backgroundColor: '#ffffff', textColor: '#000000', logoUrl: 'https://acme.example/logo.png' } })).json().data;
    expect(agent.handoff).toEqual({ enabled: false, waitSeconds: 300, officeHours: null });
    const hours = { timezone: 'Europe/Helsinki', days: ['fri', 'mon', 'tue'], open: '09:00', close: '17:30' };
    const set = await call('PATCH', `/api/org/agents/${agent.id}`, org, { handoff: { enabled: true, waitSeconds: 60, officeHours: hours } });
    expect(set.statusCode, set.body).toBe(200);
    expect(set.json().data.handoff).toEqual({ enabled: true, waitSeconds: 60, officeHours: { ...hours, days: ['mon', 'tue', 'fri'] } });
    expect((await call('PATCH', `/api/org/agents/${agent.id}`, org, { handoff: { enabled: false } })).json().data.handoff).toMatchObject({ enabled: false, waitSeconds: 60, officeHours: { timezone: 'Europe/Helsinki' } });
    const refusals: Array<[unknown, string]> = [
      [{ officeHours: { ...hours, timezone: 'Mars/Olympus' } }, 'handoff.officeHours.timezone'],
      [{ officeHours: { ...hours, open: '17:30', close: '09:00' } }, 'handoff.officeHours.close'],
      [{ officeHours: { ...hours, days: ['mon', 'mon'] } }, 'handoff.officeHours.days'],
      [{ officeHours: { ...hours, open: '9:00' } }, ''],
      [{ officeHours: { ...hours, days: [] } }, ''],
      [{ waitSeconds: 29 }, ''],
      [{ waitSeconds: 3601 }, ''],
      [{}, ''],
    ];
    for (const [handoff, field] of refusals) {
      const res = await call('PATCH', `/api/org/agents/${agent.id}`, org, { handoff });
      expect(res.statusCode, JSON.stringify(handoff)).toBe(400);
      if (field) expect(res.json().field).toBe(field);
    }
    expect((await call('GET', `/api/org/agents/${agent.id}`, org)).json().data.handoff.officeHours.days).toEqual(['mon', 'tue', 'fri']);
  });

  it('walks the state machine: waiting, human, replies, released to the agent (which answers with the person\'s words in its history), closed; the model is never called meanwhile', async () => {
    const { chatId } = await handoffAgent(t.app, org, model.baseUrl);
    const config = (await visitor(t, 'GET', `/${chatId}`)).json().data;
    expect(config.handoff).toEqual({ enabled: true, available: true });
    const token = await startSession(t, chatId);
    const id = await conversationOf(token);
    const stream = await visitorStream(chatId, token);
    expect(stream.status, stream.body).toBe(200);
    expect(stream.headers.get('access-control-allow-origin')).toBe(SITE);

    // The visitor asks for a person.
    const asked = await visitor(t, 'POST', `/${chatId}/session/handoff`, { token });
    expect(asked.statusCode, asked.body).toBe(200);
    expect(asked.json().data).toEqual({ status: 'waiting', message: expect.stringContaining('within about 5 minutes') });
    expect((await visitor(t, 'POST', `/${chatId}/session/handoff`, { token })).statusCode).toBe(409);
    const status = await stream.next((e) => e.type === 'status');
    expect(status.data).toEqual({ status: 'waiting', assigneeName: null });
    expect(status.id).toMatch(/^msg_/);
    await stream.next((e) => e.type === 'message' && e.data.role === 'assistant' && e.data.content === asked.json().data.message);
    expect((await transcript(id)).status).toBe('waiting');
    expect(await outboxTypes()).toEqual([{ type: 'conversation.handoff_requested', data: { conversation: expect.objectContaining({ id, status: 'waiting', handoffRequestedAt: expect.any(String) }) } }]);

    // While waiting: a visitor's message is stored and delivered, the model is not called; a reply needs a take-over.
    const before = model.requests.length;
    const held = await sendVisitorMessage(t, chatId, token, 'Hello? Anyone there?');
    expect(held.statusCode, held.body).toBe(200);
    const heldEvents = visitorEvents(held.body);
    expect(heldEvents).toEqual([{ type: 'start', data: { messageId: expect.stringMatching(/^msg_/) } }, { type: 'finish', data: { status: 'delivered' } }]);
    const early = await post(`/api/org/conversations/${id}/messages`, org.auth, { content: 'Hi!', role: 'operator' });
    expect(early.statusCode).toBe(409);

    // The Inbox: waiting, then mine.
    expect((await call('GET', '/api/org/conversations?status=waiting', org)).json().data.items.map((c: { id: string }) => c.id)).toContain(id);
    expect((await call('GET', '/api/org/conversations?assignee=me', org)).json()).toMatchObject({ code: 'VALIDATION_ERROR' });
    const taken = await post(`/api/org/conversations/${id}/assign`, member.auth);
    expect(taken.statusCode, taken.body).toBe(200);
    expect(taken.json().data).toMatchObject({ id, status: 'human', assignee: { id: org.operator.id, name: org.operator.name } });
    const mine = await t.app.inject({ method: 'GET', url: '/api/org/conversations?assignee=me&status=open', headers: member.cookie });
    expect(mine.json().data.items.map((c: { id: string }) => c.id)).toEqual([id]);
    expect((await call('GET', '/api/org/conversations?assignee=none&status=human', org)).json().data.items).toEqual([]);
    const tookOver = await stream.next((e) => e.type === 'status' && e.data.status === 'human');
    expect(tookOver.data.assigneeName).toBe(org.operator.name);

    // Replies: a member's by name, an API key's as "Team"; the visitor's message still reaches no model.
    const reply = await post(`/api/org/conversations/${id}/messages`, member.auth, { content: 'Hi, this is a person. How can I help?', role: 'operator' });
    expect(reply.statusCode, reply.body).toBe(201);
    expect(reply.json().data).toMatchObject({ role: 'operator', content: 'Hi, this is a person. How can I help?', author: { id: org.operator.id, name: org.operator.name } });
    const replied = await stream.next((e) => e.type === 'message' && e.data.role === 'operator');
    expect(replied).toEqual({ id: reply.json().data.id, type: 'message', data: { id: reply.json().data.id, role: 'operator', content: 'Hi, this is a person. How can I help?', author: { name: org.operator.name }, createdAt: expect.any(String) } });
    const team = await post(`/api/org/conversations/${id}/messages`, org.auth, { content: 'Your parcel left today.', role: 'operator' });
    expect(team.json().data.author).toBeNull();
    expect((await sendVisitorMessage(t, chatId, token, 'Great, thanks.')).statusCode).toBe(200);
    const apiUser = await post(`/api/org/conversations/${id}/messages`, org.auth, { content: 'A note through the API' });
    expect(apiUser.json().data.messages).toMatchObject([{ role: 'user', content: 'A note through the API' }]);
    expect(model.requests.length).toBe(before);

    // The visitor's history: who said what.
    const history = (await visitor(t, 'GET', `/${chatId}/session`, { token })).json().data;
    expect(history.status).toBe('human');
    expect(history.messages.map((m: { role: string; content?: string; author?: { name: string } }) => [m.role, m.author?.name ?? null])).toEqual([
      ['event', null], ['assistant', null], ['user', null], ['event', null], ['operator', org.operator.name], ['operator', 'Team'], ['user', null], ['user', null],
    ]);

    // Released: the agent answers again, the person's words in its history as its own side.
    const released = await post(`/api/org/conversations/${id}/release`, member.auth);
    expect(released.json().data).toMatchObject({ status: 'bot', assignee: null });
    expect((await post(`/api/org/conversations/${id}/release`, member.auth)).statusCode).toBe(409);
    model.script({ text: 'Anything else about your parcel?' });
    const again = await sendVisitorMessage(t, chatId, token, 'When will it arrive?');
    expect(visitorEvents(again.body).at(-1)).toEqual({ type: 'finish', data: { status: 'complete' } });
    expect(model.requests.length).toBe(before + 1);
    const sent = model.requests.at(-1)!.json;
    expect(sent.messages).toEqual(expect.arrayContaining([
      expect.objectContaining({ role: 'assistant', content: 'Hi, this is a person. How can I help?' }),
      expect.objectContaining({ role: 'user', content: 'Hello? Anyone there?' }),
      expect.objectContaining({ role: 'user', content: 'When will it arrive?' }),
    ]));
    expect(sent.tools.map((tool: { function: { name: string } }) => tool.function.name)).toContain('request_human');
    await stream.next((e) => e.type === 'message' && e.data.role === 'assistant' && e.data.content === 'Anything else about your parcel?');
    // The visitor's own messages never come back on the stream.
    expect(stream.events.filter((e) => e.type === 'message').map((e) => e.data.role)).not.toContain('user');

    // Closed (idempotent); a closed conversation cannot be taken over; asking again reopens it as waiting.
    const closed = await post(`/api/org/conversations/${id}/close`, org.auth);
    expect(closed.json().data.status).toBe('closed');
    expect((await post(`/api/org/conversations/${id}/close`, org.auth)).json().data.status).toBe('closed');
    expect((await post(`/api/org/conversations/${id}/assign`, member.auth)).statusCode).toBe(409);
    expect((await outboxTypes()).map((e) => e.type)).toEqual(['conversation.handoff_requested', 'conversation.closed']);
    const roles = (await transcript(id)).messages.map((m: { role: string; author: { name: string } | null }) => `${m.role}${m.author ? `:${m.author.name}` : ''}`);
    expect(roles).toEqual([
      'event', 'assistant', 'user', `event:${org.operator.name}`, `operator:${org.operator.name}`, 'operator', 'user', 'user', `event:${org.operator.name}`, 'user', 'assistant', 'event',
    ]);
    expect((await visitor(t, 'POST', `/${chatId}/session/handoff`, { token })).json().data.status).toBe('waiting');
  });

  it('lets the model ask for a person (request_human), only in widget conversations', async () => {
    const { chatId, agentId } = await handoffAgent(t.app, org, model.baseUrl);
    const token = await startSession(t, chatId);
    const id = await conversationOf(token);
    model.script({ text: 'Let me get someone for you.', toolCalls: [{ id: 'call_h1', name: 'request_human', arguments: '{}' }] });
    const answer = await sendVisitorMessage(t, chatId, token, 'I want to talk to a human.');
    expect(answer.statusCode, answer.body).toBe(200);
    const events = visitorEvents(answer.body);
    expect(new Set(events.map((e) => e.type))).toEqual(new Set(['start', 'text-delta', 'finish']));
    expect(events.at(-1)).toEqual({ type: 'finish', data: { status: 'complete' } });
    const after = await transcript(id);
    expect(after.status).toBe('waiting');
    expect(after.messages.map((m: { role: string }) => m.role)).toEqual(['user', 'assistant', 'tool', 'event', 'assistant']);
    expect(after.messages[2].toolCall).toMatchObject({ name: 'request_human', result: { status: 'waiting', waitSeconds: 300 }, outcome: 'OK' });
    const calls = model.requests.length;
    expect((await sendVisitorMessage(t, chatId, token, 'Still there?')).statusCode).toBe(200);
    expect(model.requests.length).toBe(calls);

    // An API conversation with the same agent is not offered the tool.
    const api = (await call('POST', `/api/org/agents/${agentId}/conversations`, org)).json().data.id;
    model.script({ text: 'Hello.' });
    expect((await post(`/api/org/conversations/${api}/messages`, org.auth, { content: 'Hi' })).statusCode).toBe(200);
    expect(model.requests.at(-1)!.json.tools ?? []).toEqual([]);
  });

  it('answers at once outside office hours: nobody available, when they open, and the lead card the existing lead route answers', async () => {
    const form = await createForm(t.app, org);
    const { chatId } = await handoffAgent(t.app, org, model.baseUrl, { handoff: { officeHours: CLOSED_HOURS }, chat: { leadFormId: form.id } });
    expect((await visitor(t, 'GET', `/${chatId}`)).json().data.handoff).toEqual({ enabled: true, available: false });
    const token = await startSession(t, chatId);
    const id = await conversationOf(token);
    const answer = await visitor(t, 'POST', `/${chatId}/session/handoff`, { token });
    expect(answer.statusCode, answer.body).toBe(200);
    const data = answer.json().data;
    expect(data.status).toBe('bot');
    expect(data.message).toMatch(/^Nobody from the team is available right now\. We're back Sunday at 03:00 \(Europe\/Helsinki\)\. Leave your details/);
    expect(data.leadCapture).toMatchObject({ toolCallId: expect.stringMatching(/^call_/), consentRequired: true, fields: expect.any(Array) });
    expect((await transcript(id)).status).toBe('bot');
    expect(await outboxTypes()).not.toContainEqual(expect.objectContaining({ data: { conversation: expect.objectContaining({ id }) } }));
    const history = (await visitor(t, 'GET', `/${chatId}/session`, { token })).json().data.messages;
    expect(history.map((m: { role: string; status?: string }) => m.status ?? m.role)).toEqual(['event', 'assistant', 'pending']);
    // The card is answered by the lead route, as a card the model offered.
    model.script({ text: 'No problem.' });
    const declined = await visitor(t, 'POST', `/${chatId}/session/lead`, { token, payload: { toolCallId: data.leadCapture.toolCallId, action: 'decline' } });
    expect(declined.statusCode, declined.body).toBe(200);
    expect(visitorEvents(declined.body).at(-1)).toEqual({ type: 'finish', data: { status: 'complete' } });
    expect((await visitor(t, 'GET', `/${chatId}/session`, { token })).json().data.messages.find((m: { role: string }) => m.role === 'lead').status).toBe('declined');
  });

  it('gives a waiting chat back to the agent once its wait is over, with the lead card, once', async () => {
    const form = await createForm(t.app, org);
    const { chatId } = await handoffAgent(t.app, org, model.baseUrl, { handoff: { waitSeconds: 30 }, chat: { leadFormId: form.id } });
    const token = await startSession(t, chatId);
    const id = await conversationOf(token);
    expect((await visitor(t, 'POST', `/${chatId}/session/handoff`, { token })).json().data.status).toBe('waiting');
    const stream = await visitorStream(chatId, token);
    t.clock.advance(29_000);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect((await transcript(id)).status).toBe('waiting');
    t.clock.advance(2_000);
    await stream.next((e) => e.type === 'status' && e.data.status === 'bot');
    await stream.next((e) => e.type === 'lead-capture');
    // Later passes find nothing more to do.
    await new Promise((resolve) => setTimeout(resolve, 300));
    const after = await transcript(id);
    expect(after.status).toBe('bot');
    expect(after.messages.slice(-3).map((m: { role: string; content: string | null; toolCall: { outcome: string } | null }) => m.toolCall?.outcome ?? m.role)).toEqual(['event', 'assistant', 'PENDING']);
    expect(after.messages.slice(2).map((m: { role: string }) => m.role)).toEqual(['event', 'assistant', 'tool']);
    expect(after.messages.at(-2).content).toMatch(/^Sorry, nobody from the team is free right now\. Leave your details/);
    expect(stream.events.filter((e) => e.type === 'status')).toHaveLength(1);
  });

  it('resumes a visitor\'s stream from Last-Event-ID, and shows each stream only its own conversation', async () => {
    const { chatId } = await handoffAgent(t.app, org, model.baseUrl);
    const [token, otherToken] = [await startSession(t, chatId), await startSession(t, chatId)];
    const id = await conversationOf(token);
    await visitor(t, 'POST', `/${chatId}/session/handoff`, { token });
    await post(`/api/org/conversations/${id}/assign`, member.auth);
    const first = await post(`/api/org/conversations/${id}/messages`, member.auth, { content: 'First reply', role: 'operator' });
    await post(`/api/org/conversations/${id}/messages`, member.auth, { content: 'Second reply', role: 'operator' });
    const otherStream = await visitorStream(chatId, otherToken);
    const resumed = await visitorStream(chatId, token, first.json().data.id);
    const second = await resumed.next((e) => e.type === 'message' && e.data.content === 'Second reply');
    expect(resumed.events.map((e) => e.data.content ?? e.data.status)).toEqual(['Second reply']);
    // From the start of the conversation: every message the visitor may see, in order.
    const history = (await visitor(t, 'GET', `/${chatId}/session`, { token })).json().data.messages;
    const fromStart = await visitorStream(chatId, token, history[0].id);
    await fromStart.next((e) => e.id === second.id);
    expect(fromStart.events.map((e) => e.type)).toEqual(['message', 'message', 'status', 'message', 'message']);
    // Live: a reply reaches its conversation's streams only; a member's note through another route is never shown.
    await post(`/api/org/conversations/${id}/messages`, member.auth, { content: 'Third reply', role: 'operator' });
    await resumed.next((e) => e.data.content === 'Third reply');
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(otherStream.events).toEqual([]);

    // The Inbox stream: this organization's changes only.
    const inbox = await openStream(`${t.url}/api/org/conversations/events`, member.cookie);
    streams.push(inbox);
    expect(inbox.status, inbox.body).toBe(200);
    const theirs = await handoffAgent(t.app, other, model.baseUrl);
    const theirToken = await startSession(t, theirs.chatId);
    await visitor(t, 'POST', `/${theirs.chatId}/session/handoff`, { token: theirToken });
    await post(`/api/org/conversations/${id}/messages`, org.auth, { content: 'Fourth reply', role: 'operator' });
    const message = await inbox.next((e) => e.type === 'message' && e.data.message.content === 'Fourth reply');
    expect(message.data).toMatchObject({ conversationId: id, message: { role: 'operator', author: null } });
    const ours = await startSession(t, chatId);
    const created = await inbox.next((e) => e.type === 'conversation' && e.data.id !== id);
    expect(created.data).toMatchObject({ id: await conversationOf(ours), status: 'bot', source: 'widget' });
    const theirConversation = await conversationOf(theirToken);
    expect(JSON.stringify(inbox.events)).not.toContain(theirConversation);
    expect(JSON.stringify(inbox.events)).not.toContain(other.orgId);
  });

  it('bounds the streams a session may hold open', async () => {
    const { chatId } = await handoffAgent(t.app, org, model.baseUrl);
    const token = await startSession(t, chatId);
    for (let i = 0; i < 3; i++) expect((await visitorStream(chatId, token)).status).toBe(200);
    const fourth = await visitorStream(chatId, token);
    expect(fourth.status).toBe(429);
    expect(JSON.parse(fourth.body)).toMatchObject({ code: 'RATE_LIMIT_EXCEEDED' });
    for (const stream of streams.splice(0)) stream.close();
    // Closed streams give their places back.
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect((await visitorStream(chatId, token)).status).toBe(200);
  });

  it('refuses other organizations, missing credentials and bad input on every new route', async () => {
    const { chatId } = await handoffAgent(t.app, org, model.baseUrl);
    const token = await startSession(t, chatId);
    const id = await conversationOf(token);
    const theirs = await handoffAgent(t.app, other, model.baseUrl);
    const theirToken = await startSession(t, theirs.chatId);
    const theirId = await conversationOf(theirToken);
    const missing = 'conv_3kTMd92nqLx0aPz8Vb1c';
    for (const path of ['assign', 'release', 'close']) {
      const theirsRes = await post(`/api/org/conversations/${theirId}/${path}`, org.auth, path === 'assign' ? { userId: org.operator.id } : undefined);
      const missingRes = await post(`/api/org/conversations/${missing}/${path}`, org.auth, path === 'assign' ? { userId: org.operator.id } : undefined);
      expect([theirsRes.statusCode, theirsRes.json().error], path).toEqual([404, missingRes.json().error]);
      expect((await t.app.inject({ method: 'POST', url: `/api/org/conversations/${id}/${path}` })).statusCode).toBe(401);
    }
    expect((await post(`/api/org/conversations/${theirId}/messages`, org.auth, { content: 'Hi', role: 'operator' })).statusCode).toBe(404);
    // Another organization's member cannot be the assignee: as unknown as a missing one.
    const foreign = await post(`/api/org/conversations/${id}/assign`, org.auth, { userId: other.operator.id });
    expect([foreign.statusCode, foreign.json().field]).toEqual([404, 'userId']);
    expect((await post(`/api/org/conversations/${id}/assign`, org.auth, {})).statusCode).toBe(400);
    expect((await post(`/api/org/conversations/${id}/assign`, org.auth, { userId: 42 })).statusCode).toBe(400);
    expect((await post(`/api/org/conversations/${id}/assign`, org.auth, { userId: org.operator.id, extra: true })).statusCode).toBe(400);
    expect((await t.app.inject({ method: 'POST', url: `/api/org/conversations/${id}/assign`, headers: { ...org.auth, 'content-type': 'application/json' }, payload: `{"userId":"${'x'.repeat(70_000)}"}` })).statusCode).toBe(413);
    expect((await post(`/api/org/conversations/${id}/messages`, org.auth, { content: 'Hi', role: 'assistant' })).statusCode).toBe(400);
    expect((await call('GET', '/api/org/conversations?status=everything', org)).statusCode).toBe(400);
    expect((await call('GET', '/api/org/conversations?assignee=someone', org)).statusCode).toBe(400);
    expect((await t.app.inject({ method: 'GET', url: '/api/org/conversations/events' })).statusCode).toBe(401);
    // A session changing something without its CSRF token.
    expect((await post(`/api/org/conversations/${id}/close`, member.cookie)).statusCode).toBe(403);
    // The visitor side: another chat's session, none, another site.
    expect((await visitor(t, 'POST', `/${chatId}/session/handoff`, { token: theirToken })).statusCode).toBe(401);
    expect((await visitor(t, 'POST', `/${chatId}/session/handoff`)).statusCode).toBe(401);
    expect((await visitor(t, 'POST', `/${chatId}/session/handoff`, { token, origin: 'https://evil.example' })).statusCode).toBe(403);
    const wrongSession = await openStream(`${t.url}/api/public/chats/${chatId}/session/events`, { origin: SITE, authorization: `Bearer ${theirToken}` });
    expect(wrongSession.status).toBe(401);
    const noOrigin = await openStream(`${t.url}/api/public/chats/${chatId}/session/events`, { authorization: `Bearer ${token}` });
    expect(noOrigin.status).toBe(403);
    // Hand-off off: 409.
    const off = await handoffAgent(t.app, org, model.baseUrl, { handoff: { enabled: false } });
    expect((await visitor(t, 'POST', `/${off.chatId}/session/handoff`, { token: await startSession(t, off.chatId) })).statusCode).toBe(409);
  });
});
