import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../app.js';
import type { App } from '../http/app-type.js';
import { loadConfig } from '../config.js';
import type { Database } from '../db/database.js';
import { hashPassword } from '../lib/hashing.js';
import { newId } from '../lib/ids.js';
import { Repos, transactOn } from '../repos.js';
import { createServices, type Services } from '../services.js';
import { createTestContext, createTestDatabase, TEST_ENV, TestClock, testDialects } from '../../test/support/context.js';
import { createCustomField, createForm, submit, uniqueSlug } from '../../test/support/form-factories.js';
import { freePort } from '../../test/support/net.js';
import { createOrgWithKey, type OrgWithKey } from '../../test/support/org-factories.js';
import { parseMail, startSmtp, type TestSmtp } from '../../test/support/smtp.js';
import { MAX_ATTEMPTS } from './worker.js';

const PASSWORD = 'correct horse battery';

/**
 * Lead and hand-off notifications end to end: the app with SMTP_URL set to a real SMTP server on loopback
 * (the `smtp-server` package), its worker run by hand on a TestClock, and what arrived read back as a mail
 * client would. One app per dialect; a second, without SMTP_URL, for "off".
 */
describe.each(testDialects())('notifications on %s', (dialect) => {
  let smtp: TestSmtp;
  let smtpPort: number;
  let database: Database;
  let dispose: () => Promise<void>;
  let dataDir: string;
  let services: Services;
  let app: App;
  let clock: TestClock;
  const lines: string[] = [];
  let a: OrgWithKey;
  let b: OrgWithKey;
  let passwordHash: string;
  const members: Record<string, { id: string; email: string }> = {};

  async function addMember(org: OrgWithKey, name: string, role: 'owner' | 'member' = 'member') {
    const id = newId('usr');
    const email = `${name}-${id.slice(4, 12).toLowerCase()}@example.com`;
    await new Repos(database.db).operators.insertUser({ id, org_id: org.orgId, email, name, password_hash: passwordHash, role, created_at: clock.now().toISOString() });
    return { id, email };
  }

  async function signIn(email: string): Promise<Record<string, string>> {
    const res = await app.inject({ method: 'POST', url: '/api/auth/signin', payload: { email, password: PASSWORD } });
    expect(res.statusCode).toBe(200);
    return { cookie: String(res.headers['set-cookie']).split(';')[0]!, 'x-csrf-token': (res.json() as { data: { csrfToken: string } }).data.csrfToken };
  }

  /** Sends everything due, then takes what arrived (the SMTP server has it once the send resolved). */
  async function sendAll() {
    await services.notificationWorker!.runUntilIdle();
    const mails = [...smtp.received];
    (smtp.received as unknown[]).length = 0;
    return Promise.all(mails.map(async (mail) => ({ to: mail.to, ...(await parseMail(mail.raw)) })));
  }

  const outboxRows = (orgId: string) => database.db.selectFrom('notification_outbox').selectAll().where('org_id', '=', orgId).execute();

  beforeAll(async () => {
    smtpPort = await freePort();
    smtp = await startSmtp(smtpPort);
    ({ database, dispose } = await createTestDatabase(dialect));
    dataDir = mkdtempSync(join(tmpdir(), 'switchboard-notifications-'));
    const config = loadConfig({ ...TEST_ENV, LOG_LEVEL: 'info', DATA_DIR: dataDir, SMTP_URL: smtp.url, PUBLIC_URL: 'https://console.example.com' });
    clock = new TestClock();
    const logStream = new Writable({ write(chunk, _encoding, done) { lines.push(String(chunk)); done(); } });
    services = await createServices(config, { database, log: pino({ level: 'info' }, logStream), clock, redis: false });
    app = await buildApp({ config, database, clock, services, logStream });
    await app.ready();
    passwordHash = await hashPassword(PASSWORD);
    [a, b] = [await createOrgWithKey(database, clock), await createOrgWithKey(database, clock)];
    members.anna = await addMember(a, 'anna');
    members.ben = await addMember(a, 'ben');
    members.other = await addMember(b, 'other');
  });
  afterAll(async () => {
    await app?.close();
    await services?.close();
    await smtp?.close();
    await dispose?.();
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  });

  it('emails a lead once to each owner: title, values as text, consent version, page, UTM, the contact\'s link', async () => {
    const field = await createCustomField(app, a, { key: 'budget', label: 'Budget <range>' });
    const form = await createForm(app, a, { title: 'Quote & demo', customFields: [{ key: field.key }] });
    expect(form.notify).toEqual({ enabled: true, recipients: 'owners' });
    const res = await submit(app, form.slug, {
      consentVersion: '1', name: '<script>alert(1)</script>', email: 'lead@example.com', message: 'Line one\nLine <b>two</b>',
      custom: { budget: '10k & up' }, metadata: { utm_source: 'news<letter>', utm_campaign: 'fall' },
    }, { headers: { referer: 'https://shop.example.com/pricing?plan=pro' } });
    expect(res.statusCode).toBe(200);
    const [row] = await outboxRows(a.orgId);
    expect(row).toMatchObject({ user_id: a.operator.id, kind: 'lead', status: 'pending', attempts: 0 });

    const mails = await sendAll();
    expect(mails.map((mail) => mail.to)).toEqual([[a.operator.email]]);
    const [mail] = mails;
    const contactId = (await database.db.selectFrom('contacts').select('id').where('org_id', '=', a.orgId).where('email', '=', 'lead@example.com').executeTakeFirstOrThrow()).id;
    expect(mail!.subject).toBe('New lead: Quote & demo');
    expect(mail!.messageId).toBe(`<${row!.notice_id}.${a.operator.id}@console.example.com>`);
    expect(mail!.text).toContain('Name: <script>alert(1)</script>');
    expect(mail!.text).toContain('Budget <range>: 10k & up');
    expect(mail!.text).toContain('Consent version: 1');
    expect(mail!.text).toContain('Page: https://shop.example.com/pricing?plan=pro');
    expect(mail!.text).toContain('utm_source: news<letter>');
    expect(mail!.text).toContain(`https://console.example.com/app/contacts/${contactId}`);
    // The HTML part: every value escaped text, never markup.
    expect(mail!.html).toContain('&lt;script&gt;alert(1)&lt;/script&gt;');
    expect(mail!.html).toContain('Line one<br>Line &lt;b&gt;two&lt;/b&gt;');
    expect(mail!.html).not.toContain('<script');
    expect(mail!.html).toContain('Quote &amp; demo');
    expect(mail!.html).toContain(`<a href="https://console.example.com/app/contacts/${contactId}">`);
    // Sent once: marked in the step that confirmed it, nothing due again.
    expect((await outboxRows(a.orgId)).map((r) => [r.status, r.attempts, r.locked_until])).toEqual([['sent', 1, null]]);
    expect(await sendAll()).toEqual([]);
  });

  it('emails the members a form names, except one who turned lead emails off; never another organization\'s member', async () => {
    const ben = await signIn(members.ben!.email);
    const off = await app.inject({ method: 'PATCH', url: '/api/org/notification-settings', headers: ben, payload: { leads: false } });
    expect(off.json()).toEqual({ success: true, data: { smtpConfigured: true, leads: false, handoffs: true } });
    const form = await createForm(app, a, { notify: { recipients: [members.anna!.id, members.ben!.id] } });
    expect(form.notify).toEqual({ enabled: true, recipients: [members.anna!.id, members.ben!.id] });
    await database.db.deleteFrom('notification_outbox').execute();
    expect((await submit(app, form.slug, { consentVersion: '1', email: 'named@example.com' })).statusCode).toBe(200);
    expect((await sendAll()).map((mail) => mail.to)).toEqual([[members.anna!.email]]);

    // Another org's member is refused by id, as a missing one; nothing changes.
    const theirs = await app.inject({ method: 'PATCH', url: `/api/org/forms/${form.id}`, headers: a.auth, payload: { notify: { recipients: [members.anna!.id, members.other!.id] } } });
    expect([theirs.statusCode, theirs.json().code, theirs.json().field]).toEqual([404, 'NOT_FOUND', 'notify.recipients[1]']);
    expect(theirs.json().error).toBe(`No member of your organization has the id ${members.other!.id}.`);
    expect((await app.inject({ method: 'GET', url: `/api/org/forms/${form.id}`, headers: a.auth })).json().data.notify.recipients).toEqual([members.anna!.id, members.ben!.id]);
    const created = await app.inject({ method: 'POST', url: '/api/org/forms', headers: a.auth, payload: { slug: uniqueSlug(), title: 'T', consentText: 'OK', notify: { recipients: [b.operator.id] } } });
    expect([created.statusCode, created.json().field]).toEqual([404, 'notify.recipients[0]']);
    // A member who leaves the organization gets nothing more, even if a form still names them.
    expect((await app.inject({ method: 'DELETE', url: `/api/org/members/${members.anna!.id}`, headers: a.auth })).statusCode).toBe(200);
    expect((await submit(app, form.slug, { consentVersion: '1', email: 'after@example.com' })).statusCode).toBe(200);
    expect(await sendAll()).toEqual([]);
    members.anna = await addMember(a, 'anna');
  });

  it('refuses malformed notify settings with 400 and sends nothing for a form with notifications off', async () => {
    const form = await createForm(app, a, { notify: { enabled: false } });
    expect(form.notify).toEqual({ enabled: false, recipients: 'owners' });
    for (const notify of [{ recipients: 'everyone' }, { recipients: [] }, { recipients: ['usr_x'] }, { recipients: [members.ben!.id, members.ben!.id] }, { recipients: Array.from({ length: 51 }, () => newId('usr')) }, { enabled: 'yes' }, { extra: true }, 'owners']) {
      const res = await app.inject({ method: 'PATCH', url: `/api/org/forms/${form.id}`, headers: a.auth, payload: { notify } });
      expect([res.statusCode, res.json().code], JSON.stringify(notify)).toEqual([400, 'VALIDATION_ERROR']);
    }
    await database.db.deleteFrom('notification_outbox').execute();
    expect((await submit(app, form.slug, { consentVersion: '1', email: 'quiet@example.com' })).statusCode).toBe(200);
    expect(await outboxRows(a.orgId)).toEqual([]);
    // Turned on again by PATCH: the next submission notifies (the public cache dropped the form).
    const on = await app.inject({ method: 'PATCH', url: `/api/org/forms/${form.id}`, headers: a.auth, payload: { notify: { enabled: true } } });
    expect(on.json().data.notify).toEqual({ enabled: true, recipients: 'owners' });
    expect((await submit(app, form.slug, { consentVersion: '1', email: 'loud@example.com' })).statusCode).toBe(200);
    expect((await sendAll()).map((mail) => mail.to)).toEqual([[a.operator.email]]);
  });

  it('a honeypot hit and an idempotent replay notify nobody', async () => {
    const form = await createForm(app, a);
    await database.db.deleteFrom('notification_outbox').execute();
    expect((await submit(app, form.slug, { consentVersion: '1', email: 'bot@example.com', _hp: 'x' })).statusCode).toBe(200);
    const key = { headers: { 'idempotency-key': newId('req') } };
    expect((await submit(app, form.slug, { consentVersion: '1', email: 'once@example.com' }, key)).statusCode).toBe(200);
    expect((await submit(app, form.slug, { consentVersion: '1', email: 'once@example.com' }, key)).headers['idempotent-replayed']).toBe('true');
    expect((await outboxRows(a.orgId)).length).toBe(1);
    expect((await sendAll()).length).toBe(1);
  });

  it('SMTP down: tried again later and delivered once it is up, with no duplicate; gives up after a bounded number of attempts', async () => {
    const form = await createForm(app, a);
    await database.db.deleteFrom('notification_outbox').execute();
    await smtp.close();
    expect((await submit(app, form.slug, { consentVersion: '1', email: 'down@example.com' })).statusCode).toBe(200);
    expect(await services.notificationWorker!.runOnce()).toBe(1);
    const [failed] = await outboxRows(a.orgId);
    expect(failed).toMatchObject({ status: 'pending', attempts: 1, locked_until: null });
    expect(failed!.last_error).toMatch(/ECONNREFUSED|connect/i);
    expect(Date.parse(failed!.next_attempt_at)).toBeGreaterThan(clock.now().getTime());
    smtp = await startSmtp(smtpPort);
    // Not due yet: nothing is sent before its backoff ends.
    expect(await services.notificationWorker!.runOnce()).toBe(0);
    clock.advance(60_000);
    expect((await sendAll()).map((mail) => mail.to)).toEqual([[a.operator.email]]);
    expect((await outboxRows(a.orgId)).map((r) => [r.status, r.attempts])).toEqual([['sent', 2]]);
    clock.advance(24 * 3_600_000);
    expect(await sendAll()).toEqual([]);

    // Down for good: MAX_ATTEMPTS attempts, then failed with a warning.
    await database.db.deleteFrom('notification_outbox').execute();
    await smtp.close();
    expect((await submit(app, form.slug, { consentVersion: '1', email: 'never@example.com' })).statusCode).toBe(200);
    for (let i = 0; i < MAX_ATTEMPTS + 2; i += 1) {
      await services.notificationWorker!.runOnce();
      clock.advance(2 * 3_600_000);
    }
    expect((await outboxRows(a.orgId)).map((r) => [r.status, r.attempts])).toEqual([['failed', MAX_ATTEMPTS]]);
    expect(lines.filter((line) => line.includes('could not be sent; gave up')).length).toBe(1);
    smtp = await startSmtp(smtpPort);
  });

  it('a hand-off request emails every member who left hand-off emails on, with the agent, the page and the Inbox link', async () => {
    const ben = await signIn(members.ben!.email);
    expect((await app.inject({ method: 'PATCH', url: '/api/org/notification-settings', headers: ben, payload: { handoffs: false, leads: true } })).json().data).toEqual({ smtpConfigured: true, leads: true, handoffs: false });
    await database.db.deleteFrom('notification_outbox').execute();
    const conversationId = newId('conv');
    await transactOn(database.db)((repos) => services.notifications.handoffRequested(repos, { orgId: a.orgId, conversationId, agentName: 'Ava', pageUrl: 'https://shop.example.com/help', summary: 'Can I <talk> to someone?' }));
    const mails = await sendAll();
    expect(mails.map((mail) => mail.to[0]).sort()).toEqual([a.operator.email, members.anna!.email].sort());
    const [mail] = mails;
    expect(mail!.subject).toBe('A visitor is waiting for a person');
    expect(mail!.text).toContain('Agent: Ava');
    expect(mail!.text).toContain('Page: https://shop.example.com/help');
    expect(mail!.text).toContain('Visitor: Can I <talk> to someone?');
    expect(mail!.text).toContain(`https://console.example.com/app/inbox/${conversationId}`);
    expect(mail!.html).toContain('Can I &lt;talk&gt; to someone?');
  });

  it('settings: a member\'s own, not an API key\'s; refused without credentials and on bad input', async () => {
    const other = await signIn(members.other!.email);
    expect((await app.inject({ method: 'GET', url: '/api/org/notification-settings', headers: other })).json().data).toEqual({ smtpConfigured: true, leads: true, handoffs: true });
    // Ben's switches (turned off above) are his alone.
    const ben = await signIn(members.ben!.email);
    expect((await app.inject({ method: 'GET', url: '/api/org/notification-settings', headers: ben })).json().data).toEqual({ smtpConfigured: true, leads: true, handoffs: false });
    const key = await app.inject({ method: 'GET', url: '/api/org/notification-settings', headers: a.auth });
    expect([key.statusCode, key.json().code]).toEqual([401, 'UNAUTHORIZED']);
    expect(key.json().error).toMatch(/sign in to the console/);
    const keyPatch = await app.inject({ method: 'PATCH', url: '/api/org/notification-settings', headers: a.auth, payload: { leads: false } });
    expect([keyPatch.statusCode, keyPatch.json().code]).toEqual([401, 'UNAUTHORIZED']);
    expect((await app.inject({ method: 'GET', url: '/api/org/notification-settings' })).statusCode).toBe(401);
    const { cookie } = ben;
    expect((await app.inject({ method: 'PATCH', url: '/api/org/notification-settings', headers: { cookie: cookie! }, payload: { leads: false } })).statusCode).toBe(403);
    for (const payload of [{}, { leads: 'no' }, { leads: true, extra: 1 }, { leads: null }]) {
      const res = await app.inject({ method: 'PATCH', url: '/api/org/notification-settings', headers: ben, payload });
      expect([res.statusCode, res.json().code], JSON.stringify(payload)).toEqual([400, 'VALIDATION_ERROR']);
    }
    const huge = await app.inject({ method: 'PATCH', url: '/api/org/notification-settings', headers: { ...ben, 'content-type': 'application/json' }, payload: `{"leads":true,"x":"${'a'.repeat(70_000)}"}` });
    expect(huge.statusCode).toBe(413);
    expect((await app.inject({ method: 'GET', url: '/api/org/notification-settings', headers: ben })).json().data).toEqual({ smtpConfigured: true, leads: true, handoffs: false });
  });
});

describe.each(testDialects())('notifications without SMTP_URL on %s', (dialect) => {
  it('queues nothing, and says so', async () => {
    const t = await createTestContext(dialect);
    try {
      const org = await createOrgWithKey(t.database, t.clock);
      const signed = await t.app.inject({ method: 'POST', url: '/api/auth/signin', payload: { email: org.operator.email, password: PASSWORD } });
      const cookie = String(signed.headers['set-cookie']).split(';')[0]!;
      const settings = await t.app.inject({ method: 'GET', url: '/api/org/notification-settings', headers: { cookie } });
      expect(settings.json().data).toEqual({ smtpConfigured: false, leads: true, handoffs: true });
      const form = await createForm(t.app, org);
      expect(form.notify).toEqual({ enabled: true, recipients: 'owners' });
      expect((await submit(t.app, form.slug, { consentVersion: '1', email: 'nobody@example.com' })).statusCode).toBe(200);
      expect(await t.database.db.selectFrom('notification_outbox').selectAll().execute()).toEqual([]);
    } finally {
      await t.close();
    }
  });
});
