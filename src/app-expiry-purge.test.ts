import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { createTestDatabase, TEST_ENV, TestClock, testDialects } from '../test/support/context.js';
import { createDeveloperWithApp, getAccessToken } from '../test/support/factories.js';
import { createForm, submit } from '../test/support/form-factories.js';
import { createOrgWithKey } from '../test/support/org-factories.js';
import { buildApp } from './app.js';
import { loadConfig } from './config.js';
import type { DB } from './db/tables.js';

describe.each(testDialects())('the app purges expired rows on %s', (dialect) => {
  it('on its schedule, every table with an expiry, and no more once it has closed', async () => {
    const { database, dispose } = await createTestDatabase(dialect);
    const dataDir = mkdtempSync(join(tmpdir(), 'switchboard-data-'));
    const clock = new TestClock();
    const app = await buildApp({ config: loadConfig({ ...TEST_ENV, DATA_DIR: dataDir }), database, clock, expiryPurge: { firstRunAfterMs: 0, intervalMs: 25 } });
    let closed = false;
    const rows = async (table: keyof DB) => Number((await database.db.selectFrom(table).select((eb) => eb.fn.countAll().as('n')).executeTakeFirstOrThrow()).n);
    try {
      const dev = await createDeveloperWithApp(database, clock);
      for (let i = 0; i < 3; i++) await getAccessToken(app, dev.app);
      const org = await createOrgWithKey(database, clock);
      const form = await createForm(app, org);
      for (const key of ['first', 'second']) {
        expect((await submit(app, form.slug, { consentVersion: '1', email: `${key}@example.com` }, { headers: { 'idempotency-key': key } })).statusCode).toBe(200);
      }
      expect([await rows('access_tokens'), await rows('idempotency_keys')]).toEqual([3, 2]);

      clock.advance(25 * 3600_000);
      await vi.waitFor(async () => expect([await rows('access_tokens'), await rows('idempotency_keys')]).toEqual([0, 0]), { timeout: 5000, interval: 20 });

      await app.close();
      closed = true;
      const past = new Date(clock.now().getTime() - 3600_000).toISOString();
      await database.db
        .insertInto('access_tokens')
        .values({ token_hash: 'expired-after-close', app_id: dev.app.clientId, developer_id: dev.developer.id, scopes: 'tools:read', created_at: past, expires_at: past, revoked_at: null })
        .execute();
      // Several intervals: a purger still scheduled would have deleted it by now.
      await new Promise((resolve) => setTimeout(resolve, 200));
      expect(await rows('access_tokens')).toBe(1);
    } finally {
      if (!closed) await app.close();
      await dispose();
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
