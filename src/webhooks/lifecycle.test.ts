import { CLI_AUDIT } from '../audit/context.js';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../config.js';
import type { Database } from '../db/database.js';
import { verifySignature } from '../net/signing.js';
import { keyIdOf } from '../lib/secrets.js';
import { transactOn } from '../repos.js';
import { createServices, type Services } from '../services.js';
import { createTestDatabase, TEST_ENV, TestClock, testDialects } from '../../test/support/context.js';
import { startHttpsEndpoint, type HttpsEndpoint } from '../../test/support/https-endpoint.js';
import { toolHostResolver } from '../../test/support/invocation-factories.js';
import { createOrgWithKey, type OrgWithKey } from '../../test/support/org-factories.js';
import { recordWebhookEvent } from './outbox.js';

/**
 * The worker's life with the services (started when serving, stopped by close()), what a restart finds in
 * the outbox, and `secrets rotate` re-sealing signing secrets without changing them.
 */
const OLD_KEY = Buffer.alloc(32, 7).toString('base64');
const NEW_KEY = Buffer.alloc(32, 8).toString('base64');

describe.each(testDialects())('webhook worker lifecycle on %s', (dialect) => {
  let receiver: HttpsEndpoint;
  let database: Database;
  let dispose: () => Promise<void>;
  let dataDir: string;
  let org: OrgWithKey;
  const clock = new TestClock();
  const opened: Services[] = [];

  async function node(env: Record<string, string>, webhookDelivery?: { pollMs: number }): Promise<Services> {
    const config = loadConfig({ ...TEST_ENV, DATA_DIR: dataDir, TOOL_ALLOW_PRIVATE_ENDPOINTS: '1', TOOL_CA_FILE: receiver.caFile, ...env });
    const services = await createServices(config, { database, log: pino({ level: 'silent' }), clock, resolveHost: toolHostResolver(), mailer: null, redis: false, webhookDelivery });
    opened.push(services);
    return services;
  }

  beforeAll(async () => {
    receiver = await startHttpsEndpoint();
    ({ database, dispose } = await createTestDatabase(dialect));
    dataDir = mkdtempSync(join(tmpdir(), 'switchboard-webhook-life-'));
    org = await createOrgWithKey(database, clock);
  });
  afterAll(async () => {
    for (const services of opened) await services.close();
    await dispose();
    await receiver.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('delivers after a restart what was committed before it, on the timer of a serving node; close() stops it', async () => {
    const before = await node({ SECRETS_KEY: OLD_KEY });
    const hook = await before.webhooks.create(org.orgId, { url: receiver.url('/restart'), events: ['contact.created'] }, CLI_AUDIT);
    await transactOn(database.db)((repos) => recordWebhookEvent(repos, { orgId: org.orgId, type: 'contact.created', data: { n: 1 } }, clock.now().toISOString()));
    // The node goes away before delivering (no worker running): the delivery waits in the database.
    await before.close();
    expect(receiver.requests).toEqual([]);

    const serving = await node({ SECRETS_KEY: OLD_KEY }, { pollMs: 20 });
    for (let waited = 0; receiver.requests.length === 0 && waited < 10_000; waited += 20) await new Promise((resolve) => setTimeout(resolve, 20));
    expect(receiver.requests.map((r) => r.path)).toEqual(['/restart']);
    const sent = receiver.requests[0]!;
    expect(verifySignature(hook.secret, { timestamp: String(sent.headers['x-svc-timestamp']), signature: String(sent.headers['x-svc-signature']) }, sent.body, Math.floor(clock.now().getTime() / 1000))).toEqual({ ok: true });
    await serving.close();
    // Stopped: an event committed now is not sent.
    receiver.reset();
    await transactOn(database.db)((repos) => recordWebhookEvent(repos, { orgId: org.orgId, type: 'contact.created', data: { n: 2 } }, clock.now().toISOString()));
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(receiver.requests).toEqual([]);
    await (await node({ SECRETS_KEY: OLD_KEY })).webhookWorker.runUntilIdle();
    expect(receiver.requests).toHaveLength(1);
  });

  it('a node with WEBHOOK_DELIVERY=off queues events but sends none; a node with it on sends them', async () => {
    const fresh = await createOrgWithKey(database, clock);
    const quiet = await node({ SECRETS_KEY: OLD_KEY, WEBHOOK_DELIVERY: 'off' }, { pollMs: 20 });
    await quiet.webhooks.create(fresh.orgId, { url: receiver.url('/queued-only'), events: ['contact.created'] }, CLI_AUDIT);
    receiver.reset();
    await transactOn(database.db)((repos) => recordWebhookEvent(repos, { orgId: fresh.orgId, type: 'contact.created', data: { n: 1 } }, clock.now().toISOString()));
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(receiver.requests).toEqual([]);
    await quiet.close();

    const sender = await node({ SECRETS_KEY: OLD_KEY }, { pollMs: 20 });
    for (let waited = 0; receiver.requests.length === 0 && waited < 10_000; waited += 20) await new Promise((resolve) => setTimeout(resolve, 20));
    expect(receiver.requests.map((r) => r.path)).toEqual(['/queued-only']);
    await sender.close();
  });

  it('on its timer, keeps delivering to a fast endpoint while a slow one\'s attempt is in flight, without waiting for the next poll', async () => {
    const setup = await node({ SECRETS_KEY: OLD_KEY });
    const fresh = await createOrgWithKey(database, clock);
    for (const path of ['/slow', '/fast']) await setup.webhooks.create(fresh.orgId, { url: receiver.url(path), events: ['submission.created'] }, CLI_AUDIT);
    const done: string[] = [];
    receiver.respond((request, response) => {
      const finish = () => {
        done.push(`${request.path} ${JSON.parse(request.body.toString()).data.n}`);
        response.writeHead(200, { 'content-type': 'application/json' }).end('{}');
      };
      if (request.path === '/slow') setTimeout(finish, 1500);
      else finish();
    });
    const transact = transactOn(database.db);
    for (let n = 1; n <= 3; n += 1) {
      clock.advance(1);
      await transact((repos) => recordWebhookEvent(repos, { orgId: fresh.orgId, type: 'submission.created', data: { n } }, clock.now().toISOString()));
    }
    // Polls at start, then every minute: only an attempt that ends can start the next one this soon.
    const serving = await node({ SECRETS_KEY: OLD_KEY }, { pollMs: 60_000 });
    for (let waited = 0; done.length < 6 && waited < 15_000; waited += 50) await new Promise((resolve) => setTimeout(resolve, 50));
    await serving.close();
    expect(done.slice(0, 3)).toEqual(['/fast 1', '/fast 2', '/fast 3']);
    expect(done.slice(3)).toEqual(['/slow 1', '/slow 2', '/slow 3']);
    receiver.respond((_request, response) => {
      response.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });

  it('secrets rotate re-seals signing secrets under the new key; deliveries are still signed with the same secret', async () => {
    const hook = await (await node({ SECRETS_KEY: OLD_KEY })).webhooks.create(org.orgId, { url: receiver.url('/rotated'), events: ['opportunity.created'] }, CLI_AUDIT);
    const result = await (await node({ SECRETS_KEY: NEW_KEY, SECRETS_KEY_PREVIOUS: OLD_KEY })).credentialRotation.rotate();
    expect(result.failed).toEqual([]);
    expect(result.reencrypted).toBeGreaterThanOrEqual(2);
    const keyIds = await database.db.selectFrom('webhook_endpoints').select('secret_key_id').where('org_id', '=', org.orgId).execute();
    expect(new Set(keyIds.map((row) => row.secret_key_id))).toEqual(new Set([keyIdOf(Buffer.from(NEW_KEY, 'base64'))]));
    receiver.reset();
    const ping = await (await node({ SECRETS_KEY: NEW_KEY })).webhooks.test(org.orgId, hook.id);
    expect(ping).toMatchObject({ status: 'succeeded', lastStatus: 200 });
    const sent = receiver.requests[0]!;
    expect(verifySignature(hook.secret, { timestamp: String(sent.headers['x-svc-timestamp']), signature: String(sent.headers['x-svc-signature']) }, sent.body, Math.floor(clock.now().getTime() / 1000))).toEqual({ ok: true });
  });
});
