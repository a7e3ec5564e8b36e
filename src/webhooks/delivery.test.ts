import pino from 'pino';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { verifySignature } from '../net/signing.js';
import { transactOn } from '../repos.js';
import { testDialects } from '../../test/support/context.js';
import { delayed, json, raw, redirect, startHttpsEndpoint, type HttpsEndpoint, type RecordedRequest } from '../../test/support/https-endpoint.js';
import { toolHostResolver } from '../../test/support/invocation-factories.js';
import { createOrgWithKey, orgCaller, type OrgWithKey } from '../../test/support/org-factories.js';
import { createWebhookTestContext, type WebhookTestContext } from '../../test/support/webhook-context.js';
import { createDeliveryWorker } from './delivery-worker.js';
import { recordWebhookEvent } from './outbox.js';
import { createWebhooksRepo } from './repo.js';
import { RETRY_WINDOW_MS } from './retries.js';
import type { WebhookEventType } from './schema.js';

/**
 * Delivery, end to end on a loopback HTTPS receiver: the outbox commits with its producer's transaction or
 * not at all, deliveries are signed as tool calls are, retried on 5xx, timeouts and 429 with backoff (or
 * Retry-After), failed at once on other 4xx and redirects, one at a time per endpoint in order, and an
 * endpoint failing for 24 h is disabled with its owners emailed. Time moves on a TestClock; the worker is
 * run by hand (runOnce), as a node's timer would.
 */
describe.each(testDialects())('webhook delivery on %s', (dialect) => {
  let t: WebhookTestContext;
  let receiver: HttpsEndpoint;
  let org: OrgWithKey;
  let call: ReturnType<typeof orgCaller>;

  beforeAll(async () => {
    receiver = await startHttpsEndpoint();
    t = await createWebhookTestContext(dialect, {
      env: { TOOL_ALLOW_PRIVATE_ENDPOINTS: '1', TOOL_CA_FILE: receiver.caFile, TOOL_CALL_TIMEOUT_MS: '1000' },
      resolveHost: toolHostResolver(),
    });
    call = orgCaller(t.app);
  });
  afterAll(async () => {
    await t.close();
    await receiver.close();
  });
  // Each test its own organization: another test's webhooks must not receive its events.
  beforeEach(async () => {
    org = await createOrgWithKey(t.database, t.clock);
    receiver.reset();
    receiver.respond(json(200, { ok: true }));
  });

  const made: Array<[OrgWithKey, string]> = [];
  async function webhook(events: string[] = ['contact.created'], path = '/hook', who: OrgWithKey = org) {
    const res = await call('POST', '/api/org/webhooks', who, { url: receiver.url(path), events });
    expect(res.statusCode, res.body).toBe(201);
    const data = res.json().data as { id: string; secret: string };
    made.push([who, data.id]);
    return data;
  }
  // A test's deliveries still pending (a retry) must not reach the receiver during the next test: pause its webhooks.
  afterEach(async () => {
    for (const [who, id] of made.splice(0)) await call('PATCH', `/api/org/webhooks/${id}`, who, { enabled: false });
  });
  /** A producer's unit of work: the change (here nothing else) and its event, in one transaction. */
  async function produce(type: WebhookEventType, data: unknown, options: { rollBack?: boolean; who?: OrgWithKey } = {}) {
    const transact = transactOn(t.database.db);
    try {
      const id = await transact(async (repos) => {
        const recorded = await recordWebhookEvent(repos, { orgId: (options.who ?? org).orgId, type, data }, t.clock.now().toISOString());
        if (options.rollBack) throw new Error('the change failed');
        return recorded;
      });
      // As a node's worker does first on each poll: the outbox row becomes the event and its deliveries.
      await t.dispatch();
      return id;
    } catch (error) {
      if (!options.rollBack) throw error;
      return undefined;
    }
  }
  const deliveries = (endpointId: string) => t.database.db.selectFrom('webhook_deliveries').selectAll().where('endpoint_id', '=', endpointId).orderBy('created_at').orderBy('id').execute();
  const worker = () => t.services.webhookWorker;
  /** Moves the clock to the delivery's next attempt. */
  async function toNextAttempt(endpointId: string) {
    const [pending] = (await deliveries(endpointId)).filter((d) => d.status === 'pending');
    t.clock.advance(Date.parse(pending!.next_attempt_at!) - t.clock.now().getTime());
  }
  const header = (request: RecordedRequest, name: string) => request.headers[name.toLowerCase()] as string;

  it('delivers an event committed with its producer\'s change, signed as tool calls are; a rolled-back one never', async () => {
    const hook = await webhook(['contact.created', 'submission.created']);
    expect(await produce('contact.created', { contactId: 'ct_never' }, { rollBack: true })).toBeUndefined();
    await worker().runUntilIdle();
    expect(receiver.requests).toEqual([]);
    expect(await deliveries(hook.id)).toEqual([]);
    // Not subscribed to it: nothing is written at all.
    expect(await produce('tool_call.failed', { tool: 'quote' })).toBeUndefined();

    const eventId = await produce('contact.created', { contactId: 'ct_1', email: 'ada@example.com' });
    expect(eventId).toMatch(/^evt_/);
    await worker().runUntilIdle();
    expect(receiver.requests).toHaveLength(1);
    const [request] = receiver.requests;
    expect(request!.method).toBe('POST');
    expect(request!.path).toBe('/hook');
    const body = JSON.parse(request!.body.toString('utf8'));
    const [row] = await deliveries(hook.id);
    expect(body).toEqual({ id: eventId, type: 'contact.created', createdAt: expect.any(String), data: { contactId: 'ct_1', email: 'ada@example.com' } });
    expect(header(request!, 'X-Svc-Event')).toBe('contact.created');
    expect(header(request!, 'X-Svc-Delivery')).toBe(row!.id);
    expect(header(request!, 'Content-Type')).toBe('application/json');
    const nowSeconds = Math.floor(t.clock.now().getTime() / 1000);
    expect(verifySignature(hook.secret, { timestamp: header(request!, 'X-Svc-Timestamp'), signature: header(request!, 'X-Svc-Signature') }, request!.body, nowSeconds)).toEqual({ ok: true });
    expect(verifySignature('whsec_wrong', { timestamp: header(request!, 'X-Svc-Timestamp'), signature: header(request!, 'X-Svc-Signature') }, request!.body, nowSeconds)).toEqual({ ok: false, reason: 'mismatch' });
    expect(row).toMatchObject({ status: 'succeeded', attempts: 1, last_status: 200, last_error: null, next_attempt_at: null, locked_until: null, request_body: request!.body.toString('utf8'), response_body: '{"ok":true}' });
    expect(row!.delivered_at).not.toBeNull();
    // Delivered once: another poll sends nothing.
    await worker().runUntilIdle();
    expect(receiver.requests).toHaveLength(1);
  });

  it('retries a 500 with backoff and jitter, not before its time, then succeeds', async () => {
    const hook = await webhook();
    receiver.respond(json(500, { error: 'down' }));
    await produce('contact.created', { contactId: 'ct_2' });
    const queuedAt = t.clock.now().getTime();
    await worker().runOnce();
    let [row] = await deliveries(hook.id);
    expect(row).toMatchObject({ status: 'pending', attempts: 1, last_status: 500, last_error: 'The endpoint answered 500.', response_body: '{"error":"down"}', locked_until: null });
    const wait = Date.parse(row!.next_attempt_at!) - queuedAt;
    expect(wait).toBeGreaterThanOrEqual(15_000);
    expect(wait).toBeLessThanOrEqual(30_000);
    t.clock.advance(wait - 1000);
    await worker().runOnce();
    expect(receiver.requests).toHaveLength(1);
    // The second wait is longer (exponential): 30–60 s.
    t.clock.advance(1000);
    await worker().runOnce();
    [row] = await deliveries(hook.id);
    const second = Date.parse(row!.next_attempt_at!) - t.clock.now().getTime();
    expect(second).toBeGreaterThanOrEqual(30_000);
    expect(second).toBeLessThanOrEqual(60_000);
    receiver.respond(json(200, { ok: true }));
    await toNextAttempt(hook.id);
    await worker().runOnce();
    [row] = await deliveries(hook.id);
    expect(row).toMatchObject({ status: 'succeeded', attempts: 3, last_status: 200, next_attempt_at: null });
    expect(receiver.requests).toHaveLength(3);
    // Each attempt is the same event under the same delivery id, signed afresh.
    expect(new Set(receiver.requests.map((r) => r.body.toString()))).toHaveLength(1);
    expect(new Set(receiver.requests.map((r) => header(r, 'X-Svc-Delivery')))).toHaveLength(1);
  });

  it('retries a timeout (the tool calls\' deadline), and a 408', async () => {
    const hook = await webhook();
    receiver.respond(delayed(3000, json(200, { ok: true })));
    await produce('contact.created', { contactId: 'ct_3' });
    await worker().runOnce();
    let [row] = await deliveries(hook.id);
    expect(row).toMatchObject({ status: 'pending', attempts: 1, last_status: null, response_body: null });
    expect(row!.last_error).toMatch(/^The endpoint did not answer within 1 s/);
    receiver.respond(json(408, {}));
    await toNextAttempt(hook.id);
    await worker().runOnce();
    [row] = await deliveries(hook.id);
    expect(row).toMatchObject({ status: 'pending', attempts: 2, last_status: 408 });
  });

  it('fails at once on a 400 (and any 4xx but 408 and 429): no retry', async () => {
    const hook = await webhook();
    // Whatever bytes it answers (NUL, not UTF-8, more than 4 KB), the log keeps text a database stores.
    receiver.respond(raw(400, Buffer.concat([Buffer.from('bad\u0000request '), Buffer.from([0xff]), Buffer.alloc(5000, 0x61)]), 'text/plain'));
    await produce('contact.created', { contactId: 'ct_4' });
    await worker().runOnce();
    const [row] = await deliveries(hook.id);
    expect(row).toMatchObject({ status: 'failed', attempts: 1, last_status: 400, next_attempt_at: null, last_error: 'The endpoint answered 400.' });
    expect(row!.response_body!.startsWith('bad\uFFFDrequest \uFFFDaaa')).toBe(true);
    expect(Buffer.byteLength(row!.response_body!)).toBeLessThanOrEqual(4096 + 4);
    t.clock.advance(RETRY_WINDOW_MS);
    await worker().runUntilIdle();
    // (Other tests' deliveries still pending may come due meanwhile: count this one's.)
    expect(receiver.requests.filter((r) => header(r, 'X-Svc-Delivery') === row!.id)).toHaveLength(1);
  });

  it('honours Retry-After in seconds and as an HTTP date', async () => {
    const hook = await webhook();
    receiver.respond(json(503, {}, { 'retry-after': '120' }));
    await produce('contact.created', { contactId: 'ct_5' });
    await worker().runOnce();
    let [row] = await deliveries(hook.id);
    expect(Date.parse(row!.next_attempt_at!) - t.clock.now().getTime()).toBe(120_000);
    t.clock.advance(120_000);
    const at = new Date(Math.floor(t.clock.now().getTime() / 1000) * 1000 + 600_000);
    receiver.respond(json(429, {}, { 'retry-after': at.toUTCString() }));
    await worker().runOnce();
    [row] = await deliveries(hook.id);
    expect(row).toMatchObject({ status: 'pending', attempts: 2, last_status: 429 });
    expect(row!.next_attempt_at).toBe(at.toISOString());
  });

  it('never follows a redirect: the delivery fails, the other address is never asked', async () => {
    const hook = await webhook();
    receiver.respond(redirect(307, receiver.url('/elsewhere')));
    await produce('contact.created', { contactId: 'ct_6' });
    await worker().runUntilIdle();
    const [row] = await deliveries(hook.id);
    expect(row).toMatchObject({ status: 'failed', last_status: 307 });
    expect(row!.last_error).toMatch(/redirect\. Redirects are not followed/);
    expect(receiver.requests.map((r) => r.path)).toEqual(['/hook']);
  });

  it('queues an event for the endpoints subscribed at the change: one added before dispatch gets nothing, one deleted before it neither', async () => {
    const who = await createOrgWithKey(t.database, t.clock);
    const kept = await webhook(['contact.created'], '/kept', who);
    const removed = await webhook(['contact.created'], '/removed', who);
    await transactOn(t.database.db)((repos) => recordWebhookEvent(repos, { orgId: who.orgId, type: 'contact.created', data: { n: 1 } }, t.clock.now().toISOString()));
    const added = await webhook(['contact.created'], '/added', who);
    expect((await call('DELETE', `/api/org/webhooks/${removed.id}`, who)).statusCode).toBe(200);
    await t.dispatch();
    expect((await deliveries(kept.id)).map((d) => d.status)).toEqual(['pending']);
    expect(await deliveries(added.id)).toEqual([]);
    expect(await t.database.db.selectFrom('webhook_deliveries').select('id').where('endpoint_id', '=', removed.id).execute()).toEqual([]);
    expect(await t.database.db.selectFrom('webhook_outbox').select('id').where('org_id', '=', who.orgId).execute()).toEqual([]);
  });

  it('keeps one delivery in flight per endpoint, oldest first: a later event waits behind one waiting to be retried', async () => {
    const hook = await webhook();
    receiver.respond(json(500, {}));
    await produce('contact.created', { n: 1 });
    t.clock.advance(1);
    await produce('contact.created', { n: 2 });
    await worker().runUntilIdle();
    expect(receiver.requests.map((r) => JSON.parse(r.body.toString()).data.n)).toEqual([1]);
    receiver.respond(json(200, {}));
    await toNextAttempt(hook.id);
    await worker().runUntilIdle();
    expect(receiver.requests.map((r) => JSON.parse(r.body.toString()).data.n)).toEqual([1, 1, 2]);
    expect((await deliveries(hook.id)).map((d) => d.status)).toEqual(['succeeded', 'succeeded']);
  });

  it('keeps sending while the outbox is being moved into deliveries: a dispatch never stands before a due delivery', async () => {
    const hook = await webhook();
    for (let n = 1; n <= 3; n += 1) {
      t.clock.advance(1);
      await produce('contact.created', { n });
    }
    // More changes wait in the outbox, and moving them is held up (a large outbox, a slow dispatch).
    const transact = transactOn(t.database.db);
    for (let n = 4; n <= 8; n += 1) {
      t.clock.advance(1);
      await transact((repos) => recordWebhookEvent(repos, { orgId: org.orgId, type: 'contact.created', data: { n } }, t.clock.now().toISOString()));
    }
    const outbox = async () => (await t.database.db.selectFrom('webhook_outbox').select('id').where('org_id', '=', org.orgId).execute()).length;
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    let dispatches = 0;
    const node = createDeliveryWorker({
      repo: createWebhooksRepo(t.database.db),
      transact: async (unit) => {
        dispatches += 1;
        await held;
        return transact(unit);
      },
      http: t.services.toolHttp, keys: t.services.keys, clock: t.clock, log: pino({ level: 'silent' }), leaseMs: 60_000,
    });
    node.start();
    try {
      // The three queued are sent, in order, while the dispatch waits; it is never started twice at once.
      await vi.waitFor(() => expect(receiver.requests).toHaveLength(3), { timeout: 10_000, interval: 20 });
      expect(receiver.requests.map((r) => JSON.parse(r.body.toString()).data.n)).toEqual([1, 2, 3]);
      expect(await outbox()).toBe(5);
      expect(dispatches).toBe(1);
      // Once it ends, what it moved is sent too, in order.
      release();
      await vi.waitFor(() => expect(receiver.requests).toHaveLength(8), { timeout: 10_000, interval: 20 });
      expect(receiver.requests.map((r) => JSON.parse(r.body.toString()).data.n)).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
    } finally {
      release();
      await node.stop();
    }
    expect(await outbox()).toBe(0);
    expect((await deliveries(hook.id)).map((d) => d.status)).toEqual(Array(8).fill('succeeded'));
  });

  it('disables an endpoint whose deliveries failed for 24 hours and emails the owners; it resumes when enabled again', async () => {
    const owner = await createOrgWithKey(t.database, t.clock);
    const hook = await webhook(['contact.created'], '/hook', owner);
    receiver.respond(json(502, {}));
    await produce('contact.created', { contactId: 'ct_7' }, { who: owner });
    const queuedAt = t.clock.now().getTime();
    for (let round = 0; round < 60 && (await deliveries(hook.id))[0]!.status === 'pending'; round += 1) {
      await worker().runOnce();
      if ((await deliveries(hook.id))[0]!.status === 'pending') await toNextAttempt(hook.id);
    }
    const [row] = await deliveries(hook.id);
    expect(row!.status).toBe('failed');
    expect(row!.last_error).toMatch(/Gave up: retried for 24 hours\.$/);
    expect(t.clock.now().getTime() - queuedAt).toBe(RETRY_WINDOW_MS);
    expect(receiver.requests.length).toBeGreaterThan(20);
    const gaps = receiver.requests.length;
    const endpoint = (await call('GET', `/api/org/webhooks/${hook.id}`, owner)).json().data;
    expect(endpoint).toMatchObject({ enabled: false, disabledReason: expect.stringMatching(/^Every delivery failed for 24 hours/) });
    const mail = t.mail.filter((m) => m.to === owner.operator.email);
    expect(mail).toHaveLength(1);
    expect(mail[0]!.text).toContain(receiver.url('/hook'));
    expect(mail[0]!.text).not.toContain(hook.secret);
    // Disabled: new events are not queued for it.
    expect(await produce('contact.created', { contactId: 'ct_8' }, { who: owner })).toBeUndefined();
    expect(receiver.requests).toHaveLength(gaps);
    expect((await call('PATCH', `/api/org/webhooks/${hook.id}`, owner, { enabled: true })).json().data).toMatchObject({ enabled: true, disabledReason: null, failingSince: null });
  });

  it('sends a test ping now and answers its delivery; lists deliveries newest first; redelivers an event as a new delivery', async () => {
    const hook = await webhook();
    const ping = await call('POST', `/api/org/webhooks/${hook.id}/test`, org);
    expect(ping.statusCode).toBe(200);
    expect(ping.json().data).toMatchObject({ id: expect.stringMatching(/^whd_/), webhookId: hook.id, eventType: 'ping', status: 'succeeded', attempts: 1, lastStatus: 200, nextAttemptAt: null, responseBody: '{"ok":true}' });
    expect(ping.body).not.toContain(hook.secret);
    expect(header(receiver.requests[0]!, 'X-Svc-Event')).toBe('ping');
    expect(JSON.parse(receiver.requests[0]!.body.toString()).data).toEqual({ webhookId: hook.id, message: 'A test event from Switchboard.' });

    t.clock.advance(1000);
    receiver.respond(json(400, {}));
    await produce('contact.created', { contactId: 'ct_9' });
    await worker().runUntilIdle();
    const page1 = (await call('GET', `/api/org/webhooks/${hook.id}/deliveries?limit=1`, org)).json().data;
    expect(page1.items).toMatchObject([{ eventType: 'contact.created', status: 'failed', lastStatus: 400 }]);
    const page2 = (await call('GET', `/api/org/webhooks/${hook.id}/deliveries?limit=1&cursor=${page1.nextCursor}`, org)).json().data;
    expect(page2).toMatchObject({ items: [{ eventType: 'ping' }], nextCursor: null });
    expect((await call('GET', `/api/org/webhooks/${hook.id}/deliveries?status=succeeded`, org)).json().data.items.map((d: { eventType: string }) => d.eventType)).toEqual(['ping']);

    receiver.respond(json(200, {}));
    t.clock.advance(1000);
    const again = await call('POST', `/api/org/webhooks/${hook.id}/deliveries/${page1.items[0].id}/redeliver`, org);
    expect(again.statusCode).toBe(201);
    expect(again.json().data).toMatchObject({ status: 'pending', attempts: 0, eventId: page1.items[0].eventId, eventType: 'contact.created' });
    expect(again.json().data.id).not.toBe(page1.items[0].id);
    await worker().runUntilIdle();
    const last = receiver.requests.at(-1)!;
    expect(JSON.parse(last.body.toString()).id).toBe(page1.items[0].eventId);
    expect(header(last, 'X-Svc-Delivery')).toBe(again.json().data.id);
    expect((await call('GET', `/api/org/webhooks/${hook.id}/deliveries?limit=1`, org)).json().data.items[0]).toMatchObject({ id: again.json().data.id, status: 'succeeded' });
  });

  it('forgets request and response bodies after 7 days (the expiry purger), keeping the rows', async () => {
    const hook = await webhook();
    await produce('contact.created', { contactId: 'ct_10' });
    await worker().runUntilIdle();
    const purge = t.services.purges.find((p) => p.name.startsWith('webhook_deliveries'))!;
    await purge.purgeBatch(new Date(t.clock.now().getTime() + 6 * 24 * 3600_000), 100);
    expect((await deliveries(hook.id))[0]!.request_body).not.toBeNull();
    expect(await purge.purgeBatch(new Date(t.clock.now().getTime() + 7 * 24 * 3600_000 + 1000), 100)).toBeGreaterThan(0);
    const [row] = await deliveries(hook.id);
    expect(row).toMatchObject({ status: 'succeeded', request_body: null, response_body: null, last_status: 200 });
  });
});
