import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, TEST_ENV, TestClock } from '../../test/support/context.js';
import { createAgent } from '../../test/support/invocation-factories.js';
import { createOrgWithKey, orgCaller } from '../../test/support/org-factories.js';
import { buildApp } from '../app.js';
import { loadConfig } from '../config.js';
import type { Database } from '../db/database.js';
import type { App } from '../http/app-type.js';
import { randomBase62 } from '../lib/ids.js';
import { CHAT_SESSION_CREATES } from './rules.js';

const redisUrl = process.env.TEST_REDIS_URL;
const SITE = 'https://shop.example.com';

/**
 * Two nodes on one database and one Redis (REDIS_URL): a visitor's address has one budget for new chat
 * sessions, whichever node it reaches. Per node, each would allow the limit on its own.
 */
describe.skipIf(!redisUrl)('chat limits shared through Redis', () => {
  let database: Database;
  let dispose: () => Promise<void>;
  let dataDir: string;
  let nodes: [App, App];
  let chatId: string;

  beforeAll(async () => {
    ({ database, dispose } = await createTestDatabase('sqlite'));
    dataDir = mkdtempSync(join(tmpdir(), 'switchboard-data-'));
    const config = loadConfig({ ...TEST_ENV, DATA_DIR: dataDir, REDIS_URL: redisUrl! });
    const clock = new TestClock();
    const redisPrefix = `test-${randomBase62(8)}:`;
    const node = () => buildApp({ config, database, clock, redisPrefix, expiryPurge: false, webhookDelivery: false });
    nodes = [await node(), await node()];
    const [a] = nodes;
    const org = await createOrgWithKey(database, clock);
    const call = orgCaller(a);
    const agent = await createAgent(a, org);
    const provider = await call('POST', '/api/org/model-providers', org, { name: 'OpenAI', kind: 'openai', apiKey: 'sk-never-used' });
    const set = await call('PATCH', `/api/org/agents/${agent.id}`, org, { model: { providerId: provider.json().data.id, model: 'gpt-4.1-mini', instructions: '' }, chat: { enabled: true, allowedOrigins: [SITE] } });
    expect(set.statusCode, set.body).toBe(200);
    chatId = set.json().data.chat.chatId;
  });
  afterAll(async () => {
    for (const app of nodes ?? []) await app.close();
    await dispose?.();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('counts one address\'s new sessions across both nodes', async () => {
    const start = (app: App) => app.inject({ method: 'POST', url: `/api/public/chats/${chatId}/sessions`, remoteAddress: '198.51.100.7', headers: { origin: SITE, 'content-type': 'application/json' }, payload: '{}' });
    const statuses: number[] = [];
    for (let i = 0; i < CHAT_SESSION_CREATES.limit; i++) statuses.push((await start(nodes[i % 2]!)).statusCode);
    expect(statuses).toEqual(Array(CHAT_SESSION_CREATES.limit).fill(201));
    for (const app of nodes) {
      const refused = await start(app);
      expect(refused.statusCode).toBe(429);
      expect(refused.json()).toMatchObject({ code: 'RATE_LIMIT_EXCEEDED' });
      expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0);
    }
    expect(Number((await database.db.selectFrom('chat_sessions').select((eb) => eb.fn.countAll().as('n')).executeTakeFirstOrThrow()).n)).toBe(CHAT_SESSION_CREATES.limit);
  });
});
