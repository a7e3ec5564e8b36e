import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { createTestDatabase, TEST_ENV, TestClock, testDialects } from '../../test/support/context.js';
import { nextClientIp } from '../../test/support/form-factories.js';
import { createAgent } from '../../test/support/invocation-factories.js';
import { createOrgWithKey, orgCaller } from '../../test/support/org-factories.js';
import { buildApp } from '../app.js';
import { loadConfig } from '../config.js';

const SITE = 'https://shop.example.com';
const DAY = 24 * 3_600_000;

describe.each(testDialects())('chat sessions expire on %s', (dialect) => {
  it('the app\'s expiry purger deletes a session 7 idle days after its last use; its conversation stays', async () => {
    const { database, dispose } = await createTestDatabase(dialect);
    const dataDir = mkdtempSync(join(tmpdir(), 'switchboard-data-'));
    const clock = new TestClock();
    const app = await buildApp({ config: loadConfig({ ...TEST_ENV, DATA_DIR: dataDir }), database, clock, expiryPurge: { firstRunAfterMs: 0, intervalMs: 25 }, webhookDelivery: false });
    const count = async (table: 'chat_sessions' | 'conversations') => Number((await database.db.selectFrom(table).select((eb) => eb.fn.countAll().as('n')).executeTakeFirstOrThrow()).n);
    try {
      const org = await createOrgWithKey(database, clock);
      const call = orgCaller(app);
      const agent = await createAgent(app, org);
      // A model is needed for the chat to be on; none is ever asked here.
      const provider = await call('POST', '/api/org/model-providers', org, { name: 'OpenAI', kind: 'openai', apiKey: 'sk-never-used' });
      expect(provider.statusCode, provider.body).toBe(201);
      const set = await call('PATCH', `/api/org/agents/${agent.id}`, org, { model: { providerId: provider.json().data.id, model: 'gpt-4.1-mini', instructions: '' }, chat: { enabled: true, allowedOrigins: [SITE] } });
      expect(set.statusCode, set.body).toBe(200);
      const chatId = set.json().data.chat.chatId as string;
      const start = () => app.inject({ method: 'POST', url: `/api/public/chats/${chatId}/sessions`, remoteAddress: nextClientIp(), headers: { origin: SITE, 'content-type': 'application/json' }, payload: '{}' });
      const old = (await start()).json().data.token as string;
      clock.advance(3 * DAY);
      const used = (await start()).json().data.token as string;
      clock.advance(3 * DAY);
      // A use extends `used` to 7 days from now; `old` ends a day later, as it was left.
      const read = await app.inject({ method: 'GET', url: `/api/public/chats/${chatId}/session`, remoteAddress: nextClientIp(), headers: { origin: SITE, authorization: `Bearer ${used}` } });
      expect(read.statusCode, read.body).toBe(200);
      expect([await count('chat_sessions'), await count('conversations')]).toEqual([2, 2]);

      clock.advance(DAY + 1);
      await vi.waitFor(async () => expect(await count('chat_sessions')).toBe(1), { timeout: 5000, interval: 20 });
      const ended = await app.inject({ method: 'GET', url: `/api/public/chats/${chatId}/session`, remoteAddress: nextClientIp(), headers: { origin: SITE, authorization: `Bearer ${old}` } });
      expect(ended.statusCode).toBe(401);
      clock.advance(6 * DAY);
      await vi.waitFor(async () => expect(await count('chat_sessions')).toBe(0), { timeout: 5000, interval: 20 });
      // The operators keep the conversations.
      expect(await count('conversations')).toBe(2);
    } finally {
      await app.close();
      await dispose();
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
