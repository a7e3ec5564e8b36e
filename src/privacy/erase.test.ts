import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testDialects } from '../../test/support/context.js';
import { MODEL_KEY } from '../../test/support/conversation-factories.js';
import { createForm, nextClientIp, submit } from '../../test/support/form-factories.js';
import { signedIn } from '../../test/support/handoff-factories.js';
import { json, startHttpsEndpoint, type HttpsEndpoint } from '../../test/support/https-endpoint.js';
import { createAgent, toolHostResolver } from '../../test/support/invocation-factories.js';
import { createOrgWithKey, orgCaller, type OrgWithKey } from '../../test/support/org-factories.js';
import { startScriptedModel, type ScriptedModel } from '../../test/support/scripted-model.js';
import { createWebhookTestContext, type WebhookTestContext } from '../../test/support/webhook-context.js';

/**
 * Erasing a person (docs/privacy.md): one person seeded through every path that stores them — a form submission
 * with a message and an opportunity (its webhooks delivered, an Idempotency-Key), a chat whose lead card they
 * submitted (its events still in the outbox), lead emails not yet sent — then erased; the database's raw bytes
 * (SQLite file and WAL after a checkpoint; a pg_dump) hold none of their values, the form's counts are the same,
 * a replay brings nobody back, and the person submitting again is a new contact.
 */
const ORIGIN = 'https://shop.example';
const PERSON = { name: 'Grace Hopper', email: 'grace.hopper@example.com', phone: '+14155550123', message: 'Call me about the compiler project 7781.' };
const CHAT_WORDS = 'My cobol question is about loop 4417';
const CONSENT_TEXT = 'I agree that Acme may contact me.';
const NEEDLES = [PERSON.name, PERSON.email, PERSON.phone, '4155550123', PERSON.message, CHAT_WORDS, 'Thank you, Grace'];

/** Which of `needles` the bytes hold (UTF-8). */
const found = (bytes: Buffer, needles: readonly string[]) => needles.filter((needle) => bytes.includes(Buffer.from(needle, 'utf8')));

function pgDumpBinary(): string | undefined {
  const root = '/usr/lib/postgresql';
  if (!existsSync(root)) return undefined;
  for (const version of readdirSync(root).sort().reverse()) {
    const bin = join(root, version, 'bin', 'pg_dump');
    if (existsSync(bin)) return bin;
  }
  return undefined;
}

describe.each(testDialects())('erasing and exporting a person on %s', (dialect) => {
  let t: WebhookTestContext;
  let model: ScriptedModel;
  let receiver: HttpsEndpoint;
  let org: OrgWithKey;
  let other: OrgWithKey;
  let call: ReturnType<typeof orgCaller>;
  let form: { id: string; slug: string };
  let chatId: string;
  let contactId: string;
  let exported: any;
  let statsBefore: unknown;

  /** Everything the database holds, as bytes: the SQLite file and its WAL after a checkpoint, or a pg_dump of the schema. */
  async function databaseBytes(): Promise<Buffer> {
    if (dialect === 'sqlite') {
      await sql`pragma wal_checkpoint(TRUNCATE)`.execute(t.database.db);
      const { rows } = await sql<{ file: string }>`pragma database_list`.execute(t.database.db);
      const file = rows[0]!.file;
      return Buffer.concat([readFileSync(file), existsSync(`${file}-wal`) ? readFileSync(`${file}-wal`) : Buffer.alloc(0)]);
    }
    const { rows } = await sql<{ schema: string }>`select current_schema() as schema`.execute(t.database.db);
    return execFileSync(pgDumpBinary()!, ['--data-only', '--schema', rows[0]!.schema, process.env.TEST_DATABASE_URL!], { maxBuffer: 256 * 1024 * 1024 });
  }

  beforeAll(async () => {
    model = await startScriptedModel();
    receiver = await startHttpsEndpoint(json(200, { ok: true }));
    t = await createWebhookTestContext(dialect, {
      env: { MODEL_ALLOW_PRIVATE_ENDPOINTS: '1', TOOL_ALLOW_PRIVATE_ENDPOINTS: '1', TOOL_CA_FILE: receiver.caFile },
      resolveHost: toolHostResolver(),
    });
    call = orgCaller(t.app);
    org = await createOrgWithKey(t.database, t.clock);
    other = await createOrgWithKey(t.database, t.clock);
    const hook = await call('POST', '/api/org/webhooks', org, { url: receiver.url('/hook'), events: ['submission.created', 'contact.created', 'contact.updated', 'opportunity.created', 'contact.erased'] });
    expect(hook.statusCode, hook.body).toBe(201);
    form = await createForm(t.app, org, {
      title: 'Contact us', consentText: CONSENT_TEXT, createOpportunity: true,
      fields: { name: { enabled: true, required: true }, phone: { enabled: true, required: false }, message: { enabled: true, required: false } },
    });
    const agent = await createAgent(t.app, org);
    const provider = await call('POST', '/api/org/model-providers', org, { name: 'Scripted', kind: 'openai', baseUrl: model.baseUrl, apiKey: MODEL_KEY });
    expect(provider.statusCode, provider.body).toBe(201);
    const set = await call('PATCH', `/api/org/agents/${agent.id}`, org, {
      model: { providerId: provider.json().data.id, model: 'scripted-model', instructions: 'You answer for Acme.' },
      chat: { enabled: true, allowedOrigins: [ORIGIN], welcomeMessage: 'Hi!', leadFormId: form.id },
    });
    expect(set.statusCode, set.body).toBe(200);
    chatId = set.json().data.chat.chatId;
  });
  afterAll(async () => {
    await t?.close();
    await model?.close();
    await receiver?.close();
  });

  const formBody = { consentVersion: '1', ...PERSON };

  it('seeds the person through every path and exports every value held about them', async () => {
    // 1. A form submission with a message, an opportunity and an Idempotency-Key; its webhooks delivered (bodies held).
    const first = await submit(t.app, form.slug, formBody, { headers: { 'idempotency-key': 'grace-1' } });
    expect(first.statusCode, first.body).toBe(200);
    await t.dispatch();
    await t.services.webhookWorker.runUntilIdle();
    expect(receiver.requests.length).toBeGreaterThanOrEqual(3);
    // The replay of the same request answers the stored answer.
    expect((await submit(t.app, form.slug, formBody, { headers: { 'idempotency-key': 'grace-1' } })).json()).toEqual(first.json());

    t.clock.advance(1000);
    // 2. A chat where the visitor submits a lead card (the same person: the same contact); its events stay in the outbox.
    const session = await t.app.inject({ method: 'POST', url: `/api/public/chats/${chatId}/sessions`, headers: { origin: ORIGIN }, payload: { pageUrl: 'https://shop.example/' } });
    expect(session.statusCode, session.body).toBe(201);
    const auth = { origin: ORIGIN, authorization: `Bearer ${session.json().data.token}` };
    model.script({ text: 'I can pass your details on.', toolCalls: [{ id: 'call_lead', name: 'capture_lead', arguments: JSON.stringify({ name: PERSON.name, email: PERSON.email, phone: PERSON.phone }) }] });
    const said = await t.app.inject({ method: 'POST', url: `/api/public/chats/${chatId}/session/messages`, headers: auth, payload: { content: `${CHAT_WORDS}. I am ${PERSON.name}.` } });
    expect(said.statusCode, said.body).toBe(200);
    model.script({ text: 'Thank you, Grace! We will call you back.' });
    const lead = await t.app.inject({ method: 'POST', url: `/api/public/chats/${chatId}/session/lead`, remoteAddress: nextClientIp(), headers: auth, payload: { toolCallId: 'call_lead', action: 'submit', consent: true } });
    expect(lead.statusCode, lead.body).toBe(200);

    const contacts = await call('GET', `/api/org/contacts?email=${encodeURIComponent(PERSON.email)}`, org);
    expect(contacts.json().data.items).toHaveLength(1);
    contactId = contacts.json().data.items[0].id;
    // Lead emails (the form notifies its owners) are waiting in the notification outbox.
    expect((await t.database.db.selectFrom('notification_outbox').select('notice_id').where('org_id', '=', org.orgId).execute()).length).toBe(2);
    statsBefore = (await call('GET', `/api/org/forms/${form.id}/stats`, org)).json().data;

    const res = await call('GET', `/api/org/contacts/${contactId}/export`, org);
    expect(res.statusCode, res.body).toBe(200);
    exported = res.json().data;
    expect(exported.contact).toMatchObject({ id: contactId, email: PERSON.email, phone: PERSON.phone, name: PERSON.name });
    expect(exported.submissions).toHaveLength(2);
    expect(exported.submissions[0]).toMatchObject({ formTitle: 'Contact us', values: { ...PERSON }, consentVersion: '1', ip: expect.any(String) });
    expect(exported.consents).toEqual([
      expect.objectContaining({ formId: form.id, version: '1', text: CONSENT_TEXT, agreedAt: exported.submissions[0].createdAt }),
      expect.objectContaining({ formId: form.id, version: '1', text: CONSENT_TEXT, agreedAt: exported.submissions[1].createdAt }),
    ]);
    expect(exported.notes.map((note: any) => note.body).join('\n')).toContain(PERSON.message);
    expect(exported.opportunities[0]).toMatchObject({ title: `${PERSON.name} — Contact us`, contactErased: false });
    expect(exported.conversations).toHaveLength(1);
    expect(exported.conversations[0].messages.map((m: any) => m.content)).toContain(`${CHAT_WORDS}. I am ${PERSON.name}.`);
    expect(exported.conversations[0].messages.find((m: any) => m.toolName === 'capture_lead').toolArguments).toContain(PERSON.email);
    expect(exported.webhookEvents.filter((e: any) => !e.queued).map((e: any) => e.type).sort()).toEqual(['contact.created', 'opportunity.created', 'submission.created']);
    expect(exported.webhookEvents.filter((e: any) => e.queued).map((e: any) => e.type).sort()).toEqual(['contact.updated', 'opportunity.created', 'submission.created']);
    expect(exported.webhookEvents.find((e: any) => !e.queued && e.type === 'submission.created').deliveries[0].requestBody).toContain(PERSON.message);
    expect(exported.notifications).toHaveLength(2);
    // The export holds every value the erasure will remove, and the database does too, now.
    const text = JSON.stringify(exported);
    expect(NEEDLES.filter((needle) => !text.includes(needle))).toEqual([]);
    expect(found(await databaseBytes(), [PERSON.email, PERSON.name, PERSON.message, CHAT_WORDS])).toEqual([PERSON.email, PERSON.name, PERSON.message, CHAT_WORDS]);
  });

  it('refuses a member (403), another organization (404) and ids that cannot exist (404), writing nothing', async () => {
    const member = await signedIn(t.app, other.operator.email);
    await t.database.db.updateTable('users').set({ role: 'member' }).where('id', '=', other.operator.id).execute();
    const mine = await t.app.inject({ method: 'POST', url: '/api/org/contacts/ct_0000000000000000000000/erase', headers: member.auth });
    expect(mine.statusCode, mine.body).toBe(403);
    expect((await t.app.inject({ method: 'GET', url: `/api/org/contacts/${contactId}/export`, headers: member.cookie })).statusCode).toBe(403);
    await t.database.db.updateTable('users').set({ role: 'owner' }).where('id', '=', other.operator.id).execute();
    for (const [method, path] of [['POST', 'erase'], ['GET', 'export']] as const) {
      const elsewhere = await call(method, `/api/org/contacts/${contactId}/${path}`, other);
      expect(elsewhere.statusCode, elsewhere.body).toBe(404);
      expect(elsewhere.json().code).toBe('CONTACT_NOT_FOUND');
      for (const bad of ['nope', 'ct_%27%3B--', `ct_${'x'.repeat(300)}`]) {
        expect((await call(method, `/api/org/contacts/${bad}/${path}`, org)).statusCode).toBe(404);
      }
      expect((await t.app.inject({ method, url: `/api/org/contacts/${contactId}/${path}` })).statusCode).toBe(401);
    }
    expect((await call('GET', `/api/org/contacts/${contactId}`, org)).statusCode).toBe(200);
  });

  it('erases them everywhere in one go: nothing of theirs in the database\'s bytes, the same form counts, opportunities kept and marked', async () => {
    const res = await call('POST', `/api/org/contacts/${contactId}/erase`, org);
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().data).toMatchObject({ contactId, alreadyErased: false, removed: { submissions: 2, opportunities: 2, conversations: 1, notifications: 2 } });
    const erasedAt = res.json().data.erasedAt;

    expect(found(await databaseBytes(), NEEDLES)).toEqual([]);
    expect((await call('GET', `/api/org/forms/${form.id}/stats`, org)).json().data).toEqual(statsBefore);
    expect((await call('GET', `/api/org/contacts/${contactId}`, org)).statusCode).toBe(404);
    expect((await call('GET', `/api/org/contacts/${contactId}/export`, org)).statusCode).toBe(404);
    const opportunities = (await call('GET', `/api/org/opportunities?contactId=${contactId}`, org)).json().data.items;
    expect(opportunities).toHaveLength(2);
    for (const opportunity of opportunities) expect(opportunity).toMatchObject({ contactErased: true, title: 'Erased contact — Contact us' });
    // The tombstone: keyed hashes only.
    const tombstone = await t.database.db.selectFrom('contact_erasures').selectAll().where('contact_id', '=', contactId).executeTakeFirstOrThrow();
    expect(tombstone.email_hash).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(tombstone.phone_hash).toMatch(/^[A-Za-z0-9_-]{43}$/);
    // Delivered bodies are gone; contact.erased carries only the id, delivered like any event.
    await t.dispatch();
    receiver.reset();
    await t.services.webhookWorker.runUntilIdle();
    const sent = receiver.requests.map((request) => JSON.parse(request.body.toString('utf8')));
    expect(sent).toEqual([expect.objectContaining({ type: 'contact.erased', data: { contactId } })]);

    // Again: the first erasure's answer, nothing done.
    const again = await call('POST', `/api/org/contacts/${contactId}/erase`, org);
    expect(again.statusCode, again.body).toBe(200);
    expect(again.json().data).toMatchObject({ contactId, erasedAt, alreadyErased: true });
    await t.dispatch();
    expect(await t.database.db.selectFrom('webhook_events').select('id').where('type', '=', 'contact.erased').execute()).toHaveLength(1);
    // The audit log: the export and the one erasure, by whom, on which contact (and nothing of the person).
    const log = (await call('GET', `/api/org/audit-log?target=${contactId}`, org)).json().data.items as Array<{ action: string; actor: { type: string }; details: unknown }>;
    expect(log.map((entry) => entry.action).sort()).toEqual(['contact.erased', 'contact.exported']);
    expect(log.every((entry) => entry.actor.type === 'api_key')).toBe(true);
    expect(found(Buffer.from(JSON.stringify(log)), NEEDLES)).toEqual([]);
  });

  it('a replayed request brings nobody back; the person submitting again is a new contact', async () => {
    const replay = await submit(t.app, form.slug, formBody, { headers: { 'idempotency-key': 'grace-1' } });
    expect(replay.statusCode, replay.body).toBe(200);
    expect((await call('GET', `/api/org/contacts?email=${encodeURIComponent(PERSON.email)}`, org)).json().data.items).toEqual([]);
    expect(found(await databaseBytes(), NEEDLES)).toEqual([]);

    const fresh = await submit(t.app, form.slug, formBody, { headers: { 'idempotency-key': 'grace-2' } });
    expect(fresh.statusCode, fresh.body).toBe(200);
    const items = (await call('GET', `/api/org/contacts?email=${encodeURIComponent(PERSON.email)}`, org)).json().data.items;
    expect(items).toHaveLength(1);
    expect(items[0].id).not.toBe(contactId);
  });
});
