import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../config.js';
import { openDatabase, type Database } from '../db/database.js';
import { createServices, type Services } from '../services.js';
import { createTestDatabase, testDialects, TEST_ENV } from '../../test/support/context.js';
import { delayed, json, startHttpsEndpoint, type HttpsEndpoint } from '../../test/support/https-endpoint.js';
import { toolHostResolver } from '../../test/support/invocation-factories.js';
import { createOrgWithKey, orgCaller } from '../../test/support/org-factories.js';
import { fixedResolver, TEST_DNS } from '../../test/support/tools-factories.js';
import { createWebhookTestContext, type WebhookTestContext } from '../../test/support/webhook-context.js';
import { transactOn } from '../repos.js';
import { recordWebhookEvent } from './outbox.js';

/**
 * What the address policy means for webhooks when the URL changes meaning after it was saved (a name that
 * now resolves to an internal address: refused at connect time, nothing dialled), and what two nodes on one
 * PostgreSQL do with the same queue (each delivery sent once, each endpoint's in order).
 */
describe.each(testDialects())('webhook delivery safety on %s', (dialect) => {
  let receiver: HttpsEndpoint;
  beforeAll(async () => {
    receiver = await startHttpsEndpoint();
  });
  afterAll(async () => receiver.close());

  it('refuses at connect time a name that resolves to an internal address after it was saved: nothing is dialled', async () => {
    const dns: Record<string, string[]> = { ...TEST_DNS };
    const t: WebhookTestContext = await createWebhookTestContext(dialect, { env: { TOOL_CA_FILE: receiver.caFile }, resolveHost: fixedResolver(dns) });
    try {
      const org = await createOrgWithKey(t.database, t.clock);
      const call = orgCaller(t.app);
      // Not resolvable yet: saved (it may not be deployed), as tool endpoints are.
      const created = await call('POST', '/api/org/webhooks', org, { url: `https://late.example.com:${receiver.port}/hook`, events: ['contact.created'] });
      expect(created.statusCode, created.body).toBe(201);
      dns['late.example.com'] = ['127.0.0.1'];
      receiver.reset();
      const ping = await call('POST', `/api/org/webhooks/${created.json().data.id}/test`, org);
      expect(ping.json().data).toMatchObject({ status: 'failed', attempts: 1, lastStatus: null });
      expect(ping.json().data.lastError).toMatch(/late\.example\.com, which resolves to 127\.0\.0\.1.*Webhooks can only reach public internet addresses/);
      expect(receiver.connections).toBe(0);
    } finally {
      await t.close();
    }
  });

  it.runIf(dialect === 'postgres')('two nodes on one PostgreSQL deliver each event once, each endpoint\'s in order', async () => {
    const first = await createTestDatabase('postgres');
    const schema = /search_path=(\w+)/.exec(decodeURIComponent(first.url!))![1]!;
    const env = { ...TEST_ENV, TOOL_ALLOW_PRIVATE_ENDPOINTS: '1', TOOL_CA_FILE: receiver.caFile, TOOL_CALL_TIMEOUT_MS: '5000' };
    const t = await createWebhookTestContext('postgres', { env, resolveHost: toolHostResolver(), database: first });
    // The second node: its own pool, its own services and worker, the same database.
    const second: Database = openDatabase({ databaseUrl: process.env.TEST_DATABASE_URL!, pgSchema: schema, pgPoolSize: 5 });
    const node2: Services = await createServices(loadConfig({ ...env, DATA_DIR: t.config.dataDir }), { database: second, log: pino({ level: 'silent' }), clock: t.clock, resolveHost: toolHostResolver(), mailer: null, redis: false });
    try {
      const org = await createOrgWithKey(t.database, t.clock);
      const call = orgCaller(t.app);
      const hooks: string[] = [];
      for (let i = 0; i < 4; i += 1) {
        const res = await call('POST', '/api/org/webhooks', org, { url: receiver.url(`/node-${i}`), events: ['contact.created'] });
        hooks.push(res.json().data.id);
      }
      const transact = transactOn(t.database.db);
      for (let n = 1; n <= 6; n += 1) {
        t.clock.advance(1);
        await transact((repos) => recordWebhookEvent(repos, { orgId: org.orgId, type: 'contact.created', data: { n } }, t.clock.now().toISOString()));
      }
      receiver.reset();
      // Slow answers, so both nodes poll while the other's attempts are in flight.
      receiver.respond(delayed(40, json(200, {})));
      // Both nodes dispatch the outbox (one at a time: the advisory lock) and deliver, racing each other.
      const pending = async () =>
        (await t.database.db.selectFrom('webhook_deliveries').select('id').where('org_id', '=', org.orgId).where('status', '=', 'pending').execute()).length +
        (await t.database.db.selectFrom('webhook_outbox').select('id').where('org_id', '=', org.orgId).execute()).length;
      for (let round = 0; round < 100 && (await pending()) > 0; round += 1) {
        await Promise.all([t.services.webhookWorker.runOnce(), node2.webhookWorker.runOnce(), t.services.webhookWorker.runOnce(), node2.webhookWorker.runOnce()]);
      }
      expect(await pending()).toBe(0);
      const ids = receiver.requests.map((r) => r.headers['x-svc-delivery']);
      expect(ids).toHaveLength(24);
      expect(new Set(ids).size).toBe(24);
      for (let i = 0; i < 4; i += 1) {
        expect(receiver.requests.filter((r) => r.path === `/node-${i}`).map((r) => JSON.parse(r.body.toString()).data.n)).toEqual([1, 2, 3, 4, 5, 6]);
      }
      const rows = await t.database.db.selectFrom('webhook_deliveries').select(['status', 'attempts']).where('org_id', '=', org.orgId).execute();
      expect(rows.every((row) => row.status === 'succeeded' && row.attempts === 1)).toBe(true);
    } finally {
      await node2.close();
      await second.close();
      await t.close();
    }
  });
});
