import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createTestContext, testDialects, type TestContext } from '../../test/support/context.js';
import { createDeveloperWithApp, getAccessToken, type DeveloperWithApp } from '../../test/support/factories.js';
import { createExpiryPurger, type ExpiryPurge } from '../db/expiry-purger.js';
import { createOAuthRepo } from './repo.js';
import { ACCESS_TOKEN_TTL_SECONDS, expiredAccessTokens } from './service.js';

const quietLog = { debug: () => {}, warn: () => {} };
const PAST_EXPIRY_MS = ACCESS_TOKEN_TTL_SECONDS * 1000 + 1000;

describe.each(testDialects())('expired access tokens are purged on %s', (dialect) => {
  let t: TestContext;
  let dev: DeveloperWithApp;

  beforeAll(async () => {
    // The app's own purger stays off: these tests run the purge themselves and count rows in between.
    t = await createTestContext(dialect, { deps: { expiryPurge: false } });
    dev = await createDeveloperWithApp(t.database, t.clock);
  });
  afterAll(async () => t.close());
  beforeEach(async () => {
    await t.database.db.deleteFrom('access_tokens').execute();
  });

  const tokenRows = async () => Number((await t.database.db.selectFrom('access_tokens').select((eb) => eb.fn.countAll().as('n')).executeTakeFirstOrThrow()).n);
  const issueTokens = (count: number) => Promise.all(Array.from({ length: count }, () => getAccessToken(t.app, dev.app)));
  const listTools = (token: string) => t.app.inject({ method: 'GET', url: '/api/dev/tools', headers: { authorization: `Bearer ${token}` } });

  /** A purger over the same purge the app runs, recording each batch's count. */
  function tokenPurger(batchSize: number) {
    const batches: number[] = [];
    const purge = expiredAccessTokens(createOAuthRepo(t.database.db));
    const recorded: ExpiryPurge = { name: purge.name, purgeBatch: async (now, limit) => { const n = await purge.purgeBatch(now, limit); batches.push(n); return n; } };
    return { purger: createExpiryPurger({ purges: [recorded], clock: t.clock, log: quietLog, schedule: { batchSize, pauseMs: 0 } }), batches };
  }

  it('deletes expired tokens in batches and keeps the live ones working', async () => {
    await issueTokens(25);
    t.clock.advance(PAST_EXPIRY_MS);
    const live = await issueTokens(3);
    const { purger, batches } = tokenPurger(10);
    expect(await purger.runOnce()).toEqual({ access_tokens: 25 });
    expect(batches).toEqual([10, 10, 5]);
    expect(await tokenRows()).toBe(3);
    for (const token of live) expect((await listTools(token)).statusCode).toBe(200);
  });

  it('keeps the table from growing: each round’s expired tokens are gone after the purge', async () => {
    const { purger } = tokenPurger(16);
    const counts: number[] = [];
    for (let round = 0; round < 4; round++) {
      await issueTokens(40);
      counts.push(await tokenRows());
      t.clock.advance(PAST_EXPIRY_MS);
      await purger.runOnce();
    }
    expect(counts).toEqual([40, 40, 40, 40]);
    expect(await tokenRows()).toBe(0);
  });

  it('several nodes purging at once delete every expired row once, without errors', async () => {
    await issueTokens(60);
    t.clock.advance(PAST_EXPIRY_MS);
    const nodes = [tokenPurger(7), tokenPurger(7), tokenPurger(7)];
    const results = await Promise.all(nodes.map(({ purger }) => purger.runOnce()));
    expect(results.reduce((sum, counts) => sum + (counts.access_tokens ?? 0), 0)).toBe(60);
    expect(await tokenRows()).toBe(0);
  });
});
