import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { testDialects } from '../../test/support/context.js';
import { MODEL_KEY } from '../../test/support/conversation-factories.js';
import { countWrites, createCustomField, createForm, nextClientIp, submit } from '../../test/support/form-factories.js';
import { createAgent, toolHostResolver } from '../../test/support/invocation-factories.js';
import { createOrgWithKey, orgCaller, type OrgWithKey } from '../../test/support/org-factories.js';
import { startScriptedModel, type ScriptedModel } from '../../test/support/scripted-model.js';
import { createWebhookTestContext, type WebhookTestContext } from '../../test/support/webhook-context.js';
import { SUBMISSIONS_PER_MINUTE } from '../forms/rules.js';
import { CONSENT_MESSAGE } from './lead-service.js';

/**
 * Lead capture in the chat widget, through the public chat API against the scripted model server: the model
 * proposes a lead with `capture_lead` (a card, nothing stored), and only the visitor's confirm on
 * POST …/session/lead sends it through the form's own submit rules, creating the contact with the chat's
 * transcript as its note and the form's opportunity; the model then gets the outcome and answers.
 */
const ORIGIN = 'https://shop.example';
const CONSENT_TEXT = 'I agree that Acme may contact me about my request.';
const PAGE_URL = 'https://shop.example/pricing?plan=pro';

type Event = { type: string; [field: string]: any };
/** The chat stream's events: `event: <type>` and its data, as `{type, ...data}`. */
function sseEvents(body: string): Event[] {
  return body.split('\n\n').filter((block) => block.trim() !== '').map((block) => ({
    type: /^event: (.+)$/m.exec(block)![1]!,
    ...(JSON.parse(/^data: (.+)$/m.exec(block)![1]!) as object),
  }));
}

describe.each(testDialects())('chat lead capture on %s', (dialect) => {
  let t: WebhookTestContext;
  let model: ScriptedModel;
  let org: OrgWithKey;
  let call: ReturnType<typeof orgCaller>;
  let chatId: string;
  let formSlug: string;
  let serviceKey: string;

  beforeAll(async () => {
    model = await startScriptedModel();
    // The webhook worker is not started: a lead's events are checked in the outbox, as its submission wrote them.
    t = await createWebhookTestContext(dialect, { env: { MODEL_ALLOW_PRIVATE_ENDPOINTS: '1', TOOL_ALLOW_PRIVATE_ENDPOINTS: '1' }, resolveHost: toolHostResolver() });
    call = orgCaller(t.app);
    org = await createOrgWithKey(t.database, t.clock);
    const hook = await call('POST', '/api/org/webhooks', org, { url: 'https://tool.test:8443/hook', events: ['submission.created', 'contact.created', 'opportunity.created'] });
    expect(hook.statusCode, hook.body).toBe(201);
    const service = await createCustomField(t.app, org, { key: 'service', label: 'Service', type: 'select', options: ['Cleaning', 'Whitening'] });
    serviceKey = `custom.${service.key}`;
    const form = await createForm(t.app, org, {
      title: 'Book a visit', consentText: CONSENT_TEXT, createOpportunity: true,
      fields: { name: { enabled: true, required: true }, message: { enabled: true, required: false } },
      customFields: [{ key: service.key }],
    });
    formSlug = form.slug;
    const agent = await createAgent(t.app, org);
    const provider = await call('POST', '/api/org/model-providers', org, { name: 'Scripted', kind: 'openai', baseUrl: model.baseUrl, apiKey: MODEL_KEY });
    expect(provider.statusCode, provider.body).toBe(201);
    const set = await call('PATCH', `/api/org/agents/${agent.id}`, org, {
      model: { providerId: provider.json().data.id, model: 'scripted-model', instructions: 'You book dental visits for Acme.' },
      chat: { enabled: true, allowedOrigins: [ORIGIN], welcomeMessage: 'Hi! How can I help?', leadFormId: form.id },
    });
    expect(set.statusCode, set.body).toBe(200);
    chatId = set.json().data.chat.chatId;
  });
  afterEach(() => {
    model.requests.length = 0;
  });
  afterAll(async () => {
    await t.close();
    await model.close();
  });

  const headers = (token?: string) => ({ origin: ORIGIN, ...(token ? { authorization: `Bearer ${token}` } : {}) });
  async function startSession(): Promise<string> {
    const res = await t.app.inject({
      method: 'POST', url: `/api/public/chats/${chatId}/sessions`, headers: headers(),
      payload: { pageUrl: PAGE_URL, utm: { source: 'newsletter', campaign: 'spring' } },
    });
    expect(res.statusCode, res.body).toBe(201);
    return res.json().data.token as string;
  }
  const say = (token: string, content: string) =>
    t.app.inject({ method: 'POST', url: `/api/public/chats/${chatId}/session/messages`, headers: headers(token), payload: { content } });
  const decide = (token: string, body: Record<string, unknown>, ip = nextClientIp()) =>
    t.app.inject({ method: 'POST', url: `/api/public/chats/${chatId}/session/lead`, remoteAddress: ip, headers: headers(token), payload: body });
  const history = async (token: string) => {
    const res = await t.app.inject({ method: 'GET', url: `/api/public/chats/${chatId}/session`, headers: headers(token) });
    expect(res.statusCode, res.body).toBe(200);
    return res.json().data.messages as Array<Record<string, any>>;
  };

  const MODEL_VALUES = { name: 'Ada Lovelace', email: 'ada@example.com', message: 'A cleaning next week, please.' };
  /** A session whose model has proposed a lead card (`call_<tag>`) with `values`; the CRM is checked still empty. */
  async function pendingCard(tag: string, values: Record<string, unknown> = { ...MODEL_VALUES, [serviceKey]: 'Cleaning' }) {
    const token = await startSession();
    const toolCallId = `call_${tag}`;
    model.script({ text: 'I can pass your details on.', toolCalls: [{ id: toolCallId, name: 'capture_lead', arguments: JSON.stringify(values) }] });
    const res = await say(token, 'I would like a cleaning. I am Ada Lovelace, ada@example.com.');
    expect(res.statusCode, res.body).toBe(200);
    return { token, toolCallId, events: sseEvents(res.body) };
  }
  /** The last model request's tool results, by call id. */
  const toolResults = (index: number) => Object.fromEntries(
    (model.requests[index]!.json.messages as Array<{ role: string; tool_call_id: string; content: string }>)
      .filter((m) => m.role === 'tool').map((m) => [m.tool_call_id, JSON.parse(m.content)]),
  );

  it('the model\'s call alone creates nothing: a card is shown, and only the visitor\'s confirm creates the contact with the transcript note and the opportunity', async () => {
    const before = await countWrites(t.database, org.orgId);
    const { token, toolCallId, events } = await pendingCard('proof');

    // The model was offered capture_lead with the form's enabled fields, consent not among them.
    const offered = (model.requests[0]!.json.tools as Array<{ function: { name: string; parameters: any } }>).find((tool) => tool.function.name === 'capture_lead')!;
    expect(Object.keys(offered.function.parameters.properties)).toEqual(['name', 'email', 'phone', 'message', serviceKey]);
    expect(offered.function.parameters.required).toEqual(['name']);
    expect(offered.function.parameters.properties[serviceKey]).toMatchObject({ type: 'string', enum: ['Cleaning', 'Whitening'] });

    // The turn ended at the call: one model request, a lead-capture event with the model's values.
    expect(model.requests).toHaveLength(1);
    const card = events.find((event) => event.type === 'lead-capture')!;
    expect(card).toEqual({
      type: 'lead-capture', toolCallId,
      fields: [
        { name: 'name', label: 'Name', type: 'text', required: true },
        { name: 'email', label: 'Email', type: 'email', required: false },
        { name: 'phone', label: 'Phone', type: 'tel', required: false },
        { name: 'message', label: 'Message', type: 'textarea', required: false },
        { name: serviceKey, label: 'Service', type: 'select', required: false, options: ['Cleaning', 'Whitening'] },
      ],
      values: { ...MODEL_VALUES, [serviceKey]: 'Cleaning' },
      consentText: CONSENT_TEXT,
      consentRequired: true,
    });
    expect(events.at(-1)).toMatchObject({ type: 'finish' });
    expect(await countWrites(t.database, org.orgId)).toEqual(before);
    expect((await history(token)).at(-1)).toEqual({ role: 'lead', toolCallId, status: 'pending', fields: card.fields, values: card.values, consentText: CONSENT_TEXT });

    // The visitor corrects the email, ticks consent and sends: the form's submit path writes the lead.
    model.script({ text: 'Thank you, Ada! We will call you back.' });
    const res = await decide(token, { toolCallId, action: 'submit', consent: true, values: { ...card.values, email: 'ADA@Example.com' } });
    expect(res.statusCode, res.body).toBe(200);
    const answer = sseEvents(res.body);
    expect(answer.filter((e) => e.type === 'text-delta').map((e) => e.delta).join('')).toBe('Thank you, Ada! We will call you back.');
    expect(answer.at(-1)).toMatchObject({ type: 'finish' });
    expect(toolResults(1)).toEqual({ [toolCallId]: { status: 'submitted' } });

    const after = await countWrites(t.database, org.orgId);
    expect(after).toMatchObject({ contacts: before.contacts + 1, notes: before.notes + 1, opportunities: before.opportunities + 1, submissions: before.submissions + 1 });
    const contact = await t.database.db.selectFrom('contacts').selectAll().where('org_id', '=', org.orgId).where('email', '=', 'ada@example.com').executeTakeFirstOrThrow();
    expect(contact.name).toBe('Ada Lovelace');
    const note = await t.database.db.selectFrom('notes').selectAll().where('contact_id', '=', contact.id).executeTakeFirstOrThrow();
    expect(note.body).toBe([
      `Lead from the chat widget on ${PAGE_URL}.`, '', 'A cleaning next week, please.', '', 'Conversation:',
      '', 'Visitor: I would like a cleaning. I am Ada Lovelace, ada@example.com.',
      '', 'Assistant: I can pass your details on.',
    ].join('\n'));
    const submission = await t.database.db.selectFrom('submissions').selectAll().where('contact_id', '=', contact.id).executeTakeFirstOrThrow();
    expect(JSON.parse(submission.metadata)).toEqual({ utm_source: 'newsletter', utm_campaign: 'spring' });
    expect(JSON.parse(submission.custom)).toEqual({ service: 'Cleaning' });
    expect(submission.opportunity_id).toEqual(expect.stringMatching(/^opp_/));
    const opportunity = await t.database.db.selectFrom('opportunities').selectAll().where('id', '=', submission.opportunity_id!).executeTakeFirstOrThrow();
    expect(opportunity.title).toBe('Ada Lovelace — Book a visit');

    // The organization's webhooks fire as for any submission: the events were queued with it (moved here as a node's worker would).
    expect((await countWrites(t.database, org.orgId)).webhookOutbox).toBe(before.webhookOutbox + 1);
    await t.dispatch();
    const outbox = await t.database.db.selectFrom('webhook_events').select(['type', 'payload']).where('org_id', '=', org.orgId).execute();
    expect(outbox.map((event) => event.type).sort()).toEqual(['contact.created', 'opportunity.created', 'submission.created']);
    const created = JSON.parse(outbox.find((event) => event.type === 'submission.created')!.payload);
    expect(created).toMatchObject({ submissionId: submission.id, values: { name: 'Ada Lovelace', email: 'ada@example.com', message: 'A cleaning next week, please.' }, utm: { source: 'newsletter', campaign: 'spring' } });

    // The lead form's notify (the default: its owners) emails the lead, saying the chat brought it and from which page.
    await t.services.notificationWorker!.runUntilIdle();
    const emails = t.mail.filter((mail) => mail.subject === 'New lead: Book a visit');
    expect(emails.map((mail) => mail.to)).toEqual([org.operator.email]);
    expect(emails[0]!.text).toContain('A new lead from the chat widget, through the form “Book a visit”.');
    expect(emails[0]!.text).toContain('Name: Ada Lovelace');
    expect(emails[0]!.text).toContain('Service: Cleaning');
    expect(emails[0]!.text).toContain(`Page: ${PAGE_URL}`);
    expect(emails[0]!.text).toContain('utm_campaign: spring');
    expect(emails[0]!.text).toContain(`/app/contacts/${contact.id}`);

    // The card now says submitted; the same card cannot be sent twice.
    expect((await history(token)).find((m) => m.role === 'lead')).toMatchObject({ toolCallId, status: 'submitted' });
    const again = await decide(token, { toolCallId, action: 'submit', consent: true });
    expect(again.statusCode, again.body).toBe(409);
    expect(again.json()).toMatchObject({ code: 'CONFLICT', error: 'This lead card was already submitted.' });
    // Nothing written again (the outbox row was moved by the dispatch above).
    expect(await countWrites(t.database, org.orgId)).toEqual({ ...after, webhookOutbox: after.webhookOutbox - 1 });
    expect(model.requests).toHaveLength(2);
  });

  it('declining creates nothing and tells the model {status: "declined"}', async () => {
    const { token, toolCallId } = await pendingCard('decline');
    const before = await countWrites(t.database, org.orgId);
    model.script({ text: 'No problem.' });
    const res = await decide(token, { toolCallId, action: 'decline' });
    expect(res.statusCode, res.body).toBe(200);
    expect(sseEvents(res.body).at(-1)).toMatchObject({ type: 'finish' });
    expect(toolResults(1)).toEqual({ [toolCallId]: { status: 'declined' } });
    expect(await countWrites(t.database, org.orgId)).toEqual(before);
    expect((await history(token)).find((m) => m.role === 'lead')).toMatchObject({ toolCallId, status: 'declined' });
  });

  it('refuses a submit without consent, naming the consent box: the card stays pending, nothing is written or sent to the model', async () => {
    const { token, toolCallId } = await pendingCard('consent');
    const before = await countWrites(t.database, org.orgId);
    for (const body of [{ toolCallId, action: 'submit' }, { toolCallId, action: 'submit', consent: false }]) {
      const res = await decide(token, body);
      expect(res.statusCode, res.body).toBe(400);
      const message = CONSENT_MESSAGE;
      expect(res.json()).toMatchObject({ code: 'VALIDATION_ERROR', error: message, field: 'consent', fields: [{ field: 'consent', message }] });
    }
    expect(await countWrites(t.database, org.orgId)).toEqual(before);
    expect(model.requests).toHaveLength(1);
    expect((await history(token)).find((m) => m.role === 'lead')).toMatchObject({ toolCallId, status: 'pending' });
  });

  it('refuses an invalid email, and a card without email or phone, with the field errors, as the public form API does', async () => {
    const { token, toolCallId } = await pendingCard('email');
    const before = await countWrites(t.database, org.orgId);
    const res = await decide(token, { toolCallId, action: 'submit', consent: true, values: { ...MODEL_VALUES, email: 'ada-at-example' } });
    expect(res.statusCode, res.body).toBe(400);
    const direct = await submit(t.app, formSlug, { consentVersion: (await t.database.db.selectFrom('forms').select('consent_version').where('slug', '=', formSlug).executeTakeFirstOrThrow()).consent_version, name: 'Ada', email: 'ada-at-example' });
    expect(direct.statusCode).toBe(400);
    expect(res.json()).toMatchObject({ code: 'VALIDATION_ERROR', error: direct.json().error, field: 'email', fields: [{ field: 'email', message: direct.json().error }] });
    // Neither email nor phone: the form's identity rule, marking both fields of the card.
    const nobody = await decide(token, { toolCallId, action: 'submit', consent: true, values: { name: 'Ada' } });
    expect(nobody.statusCode, nobody.body).toBe(400);
    const identity = 'Please enter an email address or a phone number, so we can get back to you.';
    expect(nobody.json()).toMatchObject({ code: 'VALIDATION_ERROR', error: identity, fields: [{ field: 'email', message: identity }, { field: 'phone', message: identity }] });
    expect(nobody.json().field).toBeUndefined();
    expect(await countWrites(t.database, org.orgId)).toEqual(before);
    expect(model.requests).toHaveLength(1);
  });

  it('counts lead cards in the form\'s own rate limit per address, shared with its public submit', async () => {
    const { token, toolCallId } = await pendingCard('limit');
    const ip = nextClientIp();
    for (let i = 0; i < SUBMISSIONS_PER_MINUTE; i++) expect((await submit(t.app, formSlug, {}, { ip })).statusCode).toBe(400);
    const before = await countWrites(t.database, org.orgId);
    const res = await decide(token, { toolCallId, action: 'submit', consent: true }, ip);
    expect(res.statusCode, res.body).toBe(429);
    expect(res.json()).toMatchObject({ code: 'RATE_LIMIT_EXCEEDED', error: expect.stringMatching(/^Too many submissions of this form from your network\. Try again in \d+ seconds?\.$/) });
    expect(Number(res.headers['retry-after'])).toBeGreaterThan(0);
    expect(await countWrites(t.database, org.orgId)).toEqual(before);
    expect((await history(token)).find((m) => m.role === 'lead')).toMatchObject({ toolCallId, status: 'pending' });
  });

  it('refuses another session\'s card and a card that does not exist, writing nothing', async () => {
    const { toolCallId } = await pendingCard('theirs');
    const mine = await startSession();
    const before = await countWrites(t.database, org.orgId);
    for (const id of [toolCallId, 'call_unknown']) {
      const res = await decide(mine, { toolCallId: id, action: 'submit', consent: true, values: MODEL_VALUES });
      expect(res.statusCode, res.body).toBe(404);
      expect(res.json()).toMatchObject({ code: 'NOT_FOUND', error: 'This chat has no lead card with that toolCallId. Use the toolCallId of the card shown in this chat.' });
    }
    expect(await countWrites(t.database, org.orgId)).toEqual(before);
    expect(model.requests).toHaveLength(1);
  });

  it('a new message while a card is pending declines it first: the model gets a result for its call, then the message', async () => {
    const { token, toolCallId } = await pendingCard('moved-on');
    const before = await countWrites(t.database, org.orgId);
    model.script({ text: 'Sure, what else?' });
    const res = await say(token, 'Actually, what are your opening hours?');
    expect(res.statusCode, res.body).toBe(200);
    const messages = model.requests[1]!.json.messages as Array<{ role: string; content: unknown; tool_call_id?: string }>;
    expect(messages.slice(-3).map((m) => m.role)).toEqual(['assistant', 'tool', 'user']);
    expect(messages.at(-2)).toMatchObject({ tool_call_id: toolCallId, content: '{"status":"declined"}' });
    expect(await countWrites(t.database, org.orgId)).toEqual(before);
    expect((await history(token)).find((m) => m.role === 'lead')).toMatchObject({ toolCallId, status: 'declined' });
    const late = await decide(token, { toolCallId, action: 'submit', consent: true });
    expect(late.statusCode, late.body).toBe(409);
    expect(late.json()).toMatchObject({ code: 'CONFLICT', error: 'This lead card was already declined.' });
  });
});
