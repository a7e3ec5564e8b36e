import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestContext, testDialects, type TestContext } from '../../test/support/context.js';
import { createForm, submit, type FormRecordJson } from '../../test/support/form-factories.js';
import { createOrgWithKey, type OrgWithKey } from '../../test/support/org-factories.js';
import { createExpiryPurger, type ExpiryPurge } from '../db/expiry-purger.js';
import { createFormsRepo } from './repo.js';
import { IDEMPOTENCY_TTL_MS } from './rules.js';
import { expiredIdempotencyKeys } from './submit-service.js';

const quietLog = { debug: () => {}, warn: () => {} };

describe.each(testDialects())('expired idempotency keys are purged on %s', (dialect) => {
  let t: TestContext;
  let org: OrgWithKey;
  let form: FormRecordJson;

  beforeAll(async () => {
    // The app's own purger stays off: these tests run the purge themselves and count rows in between.
    t = await createTestContext(dialect, { deps: { expiryPurge: false } });
    org = await createOrgWithKey(t.database, t.clock);
  });
  afterAll(async () => t.close());

  const keyRows = async () =>
    Number((await t.database.db.selectFrom('idempotency_keys').select((eb) => eb.fn.countAll().as('n')).where('form_id', '=', form.id).executeTakeFirstOrThrow()).n);
  const submitWithKey = (key: string) => submit(t.app, form.slug, { consentVersion: '1', email: `${key}@example.com` }, { headers: { 'idempotency-key': key } });
  async function submitKeyed(prefix: string, count: number) {
    for (let i = 0; i < count; i++) expect((await submitWithKey(`${prefix}-${i}`)).statusCode).toBe(200);
  }

  /** A purger over the same purge the app runs, recording each batch's count. */
  function keyPurger(batchSize: number) {
    const batches: number[] = [];
    const purge = expiredIdempotencyKeys(createFormsRepo(t.database.db));
    const recorded: ExpiryPurge = { name: purge.name, purgeBatch: async (now, limit) => { const n = await purge.purgeBatch(now, limit); batches.push(n); return n; } };
    return { purger: createExpiryPurger({ purges: [recorded], clock: t.clock, log: quietLog, schedule: { batchSize, pauseMs: 0 } }), batches };
  }

  it('deletes keys past their 24 hours in batches; younger keys stay and still replay', async () => {
    form = await createForm(t.app, org);
    await submitKeyed('old', 12);
    t.clock.advance(IDEMPOTENCY_TTL_MS - 60_000);
    await submitKeyed('young', 2);
    t.clock.advance(60_000 + 1000);
    const { purger, batches } = keyPurger(5);
    expect(await purger.runOnce()).toEqual({ idempotency_keys: 12 });
    expect(batches).toEqual([5, 5, 2]);
    expect(await keyRows()).toBe(2);
    expect((await submitWithKey('young-0')).headers['idempotent-replayed']).toBe('true');
  });

  it('keeps the table from growing: each round’s expired keys are gone after the purge', async () => {
    form = await createForm(t.app, org);
    const { purger } = keyPurger(4);
    const counts: number[] = [];
    for (let round = 0; round < 3; round++) {
      await submitKeyed(`round${round}`, 10);
      counts.push(await keyRows());
      t.clock.advance(IDEMPOTENCY_TTL_MS + 1000);
      await purger.runOnce();
    }
    expect(counts).toEqual([10, 10, 10]);
    expect(await keyRows()).toBe(0);
  });
});
