import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../app.js';
import { loadConfig } from '../config.js';
import { openDatabase, type Database } from '../db/database.js';
import type { App } from '../http/app-type.js';
import { hashSecret } from '../lib/hashing.js';
import { randomBase62 } from '../lib/ids.js';
import { createServices, type Services } from '../services.js';
import { SITE, startSession, visitor } from '../../test/support/chat-factories.js';
import { createServingTestContext, TEST_ENV, type TestContext } from '../../test/support/context.js';
import { handoffAgent, openStream, type OpenStream } from '../../test/support/handoff-factories.js';
import { freePort } from '../../test/support/net.js';
import { createOrgWithKey, type OrgWithKey } from '../../test/support/org-factories.js';
import { startScriptedModel, type ScriptedModel } from '../../test/support/scripted-model.js';

/**
 * Hand-off across nodes (issue 35): two nodes on one PostgreSQL and one Redis, each with its own pool, services and
 * Redis connections. A visitor's stream on node A hears what an operator does through node B (one Redis channel
 * carries every node's live events), as does the Inbox on A; and the deadline worker's pass, run on two nodes at
 * once, moves a waiting conversation back to its agent once.
 */
const databaseUrl = process.env.TEST_DATABASE_URL;
const redisUrl = process.env.TEST_REDIS_URL;

describe.skipIf(!databaseUrl || !redisUrl)('hand-off on two nodes (PostgreSQL and Redis)', () => {
  let a: TestContext & { url: string };
  let b: { app: App; services: Services; database: Database; url: string };
  let model: ScriptedModel;
  let org: OrgWithKey;
  const streams: OpenStream[] = [];
  const redisPrefix = `handoff-${randomBase62(8)}:`;
  const env = { MODEL_ALLOW_PRIVATE_ENDPOINTS: '1', REDIS_URL: redisUrl ?? '' };

  /** Another node on A's database: its own pool and services. */
  async function node(redis: boolean) {
    const schema = /search_path=(\w+)/.exec(decodeURIComponent(a.databaseUrl!))![1]!;
    const database = openDatabase({ databaseUrl: databaseUrl!, pgSchema: schema, pgPoolSize: 3 });
    const config = loadConfig({ ...TEST_ENV, ...env, DATA_DIR: a.config.dataDir });
    const services = await createServices(config, { database, log: pino({ level: 'silent' }), clock: a.clock, mailer: null, redis, redisPrefix });
    return { database, services, config };
  }

  beforeAll(async () => {
    model = await startScriptedModel();
    a = await createServingTestContext('postgres', { env, deps: { redisPrefix } });
    const { database, services, config } = await node(true);
    const app = await buildApp({ config, database, services, expiryPurge: false, webhookDelivery: false, handoffDeadlines: false });
    const port = await freePort();
    await app.listen({ port, host: '127.0.0.1' });
    b = { app, services, database, url: `http://127.0.0.1:${port}` };
    org = await createOrgWithKey(a.database, a.clock);
  }, 60_000);
  afterAll(async () => {
    for (const stream of streams) stream.close();
    await b?.app.close();
    await b?.services.close();
    await b?.database.close();
    await a?.close();
    await model?.close();
  });

  const conversationOf = async (token: string) =>
    (await a.database.db.selectFrom('chat_sessions').select('conversation_id').where('token_hash', '=', hashSecret(token)).executeTakeFirstOrThrow()).conversation_id;
  const onB = (path: string, payload?: unknown) => fetch(`${b.url}${path}`, {
    method: 'POST', headers: { authorization: `Bearer ${org.apiKey}`, ...(payload === undefined ? {} : { 'content-type': 'application/json' }) },
    ...(payload === undefined ? {} : { body: JSON.stringify(payload) }),
  });

  it('brings an operator\'s reply through node B to the visitor\'s stream and the Inbox on node A', async () => {
    const { chatId } = await handoffAgent(a.app, org, model.baseUrl);
    const token = await startSession(a, chatId);
    const id = await conversationOf(token);
    const stream = await openStream(`${a.url}/api/public/chats/${chatId}/session/events`, { origin: SITE, authorization: `Bearer ${token}` });
    const inbox = await openStream(`${a.url}/api/org/conversations/events`, { authorization: `Bearer ${org.apiKey}` });
    streams.push(stream, inbox);
    expect([stream.status, inbox.status]).toEqual([200, 200]);
    expect((await visitor(a, 'POST', `/${chatId}/session/handoff`, { token })).json().data.status).toBe('waiting');

    const assigned = await onB(`/api/org/conversations/${id}/assign`, { userId: org.operator.id });
    expect(assigned.status).toBe(200);
    const started = Date.now();
    const reply = await onB(`/api/org/conversations/${id}/messages`, { content: 'Hello from node B.', role: 'operator' });
    expect(reply.status).toBe(201);
    const heard = await stream.next((e) => e.type === 'message' && e.data.content === 'Hello from node B.', 3000);
    // Pushed from node B to node A's stream: well under a second when quiet; room for a loaded CI machine.
    expect(Date.now() - started).toBeLessThan(2500);
    expect(heard.data).toMatchObject({ role: 'operator', author: { name: 'Team' } });
    expect((await stream.next((e) => e.type === 'status' && e.data.status === 'human')).data.assigneeName).toBe(org.operator.name);
    await inbox.next((e) => e.type === 'message' && e.data.conversationId === id && e.data.message.content === 'Hello from node B.');
    await inbox.next((e) => e.type === 'conversation' && e.data.id === id && e.data.status === 'human');
    // The model was never asked.
    expect(model.requests).toHaveLength(0);
  });

  it('moves a waiting conversation back to its agent once, when two nodes pass at the same time', async () => {
    const { chatId } = await handoffAgent(a.app, org, model.baseUrl, { handoff: { waitSeconds: 30 } });
    const token = await startSession(a, chatId);
    const id = await conversationOf(token);
    expect((await visitor(a, 'POST', `/${chatId}/session/handoff`, { token })).json().data.status).toBe('waiting');
    const c = await node(false);
    try {
      a.clock.advance(31_000);
      const moved = await Promise.all([b.services.handoff.expireOverdue(), c.services.handoff.expireOverdue(), b.services.handoff.expireOverdue(), c.services.handoff.expireOverdue()]);
      expect(moved.reduce((sum, n) => sum + n, 0)).toBe(1);
      const rows = await a.database.db.selectFrom('conversation_messages').select(['role', 'content']).where('conversation_id', '=', id).orderBy('seq').execute();
      expect(rows.map((row) => row.role)).toEqual(['event', 'assistant', 'event', 'assistant']);
      expect((await a.database.db.selectFrom('conversations').select('status').where('id', '=', id).executeTakeFirstOrThrow()).status).toBe('bot');
    } finally {
      await c.services.close();
      await c.database.close();
    }
  });
});
