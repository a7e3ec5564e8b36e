import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../app.js';
import type { App } from '../http/app-type.js';
import { randomBase62 } from '../lib/ids.js';
import { createTestContext, testDialects, type TestContext } from '../../test/support/context.js';
import { archiveCustomField, createCustomField, createForm, getConfig, nextClientIp, submit } from '../../test/support/form-factories.js';
import { createOrgWithKey, type OrgWithKey } from '../../test/support/org-factories.js';

/** Two app nodes on one database and one Redis: shared rate limits and cache invalidation (DESIGN "Scale-out"). */
const redisUrl = process.env.TEST_REDIS_URL;

describe.skipIf(!redisUrl).each(testDialects())('two app nodes sharing Redis on %s', (dialect) => {
  let t: TestContext;
  let second: App;
  let org: OrgWithKey;

  beforeAll(async () => {
    const redisPrefix = `test:${randomBase62(8)}:`;
    t = await createTestContext(dialect, { env: { REDIS_URL: redisUrl! }, deps: { redisPrefix } });
    second = await buildApp({ config: t.config, database: t.database, clock: t.clock, redisPrefix });
    await second.ready();
    org = await createOrgWithKey(t.database, t.clock);
  });
  afterAll(async () => {
    await second.close();
    await t.close();
  });

  /** Polls until `check` passes: pub/sub delivery takes a moment. */
  async function eventually(check: () => Promise<boolean>): Promise<void> {
    for (let attempt = 0; attempt < 100; attempt++) {
      if (await check()) return;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    throw new Error('condition not met within 2 s');
  }

  it('share one submission budget per IP and slug', async () => {
    const form = await createForm(t.app, org);
    t.clock.advance(60_000 - (t.clock.now().getTime() % 60_000));
    const ip = nextClientIp();
    for (let i = 0; i < 10; i++) {
      const node = i % 2 === 0 ? t.app : second;
      const res = await submit(node, form.slug, { consentVersion: '1', email: `shared-${i}@example.com` }, { ip });
      expect(res.statusCode).toBe(200);
      expect(res.headers['ratelimit-remaining']).toBe(String(9 - i));
    }
    expect((await submit(t.app, form.slug, { consentVersion: '1', email: 'over@example.com' }, { ip })).statusCode).toBe(429);
    expect((await submit(second, form.slug, { consentVersion: '1', email: 'over@example.com' }, { ip })).statusCode).toBe(429);
    expect((await submit(second, form.slug, { consentVersion: '1', email: 'other-ip@example.com' })).statusCode).toBe(200);
    t.clock.advance(60_000);
    expect((await submit(second, form.slug, { consentVersion: '1', email: 'next-window@example.com' }, { ip })).statusCode).toBe(200);
  });

  it('share config reads too', async () => {
    const form = await createForm(t.app, org);
    t.clock.advance(60_000 - (t.clock.now().getTime() % 60_000));
    const ip = nextClientIp();
    for (let i = 0; i < 60; i++) expect((await getConfig(i % 2 ? second : t.app, form.slug, { ip })).statusCode).toBe(200);
    expect((await getConfig(second, form.slug, { ip })).statusCode).toBe(429);
  });

  it('an operator edit on one node reaches the other node\'s cache', async () => {
    const form = await createForm(t.app, org, { title: 'Before' });
    expect((await getConfig(second, form.slug)).json().data.title).toBe('Before');
    const res = await t.app.inject({ method: 'PATCH', url: `/api/org/forms/${form.id}`, headers: org.auth, payload: { title: 'After', consentText: 'Second text.' } });
    expect(res.statusCode).toBe(200);
    await eventually(async () => (await getConfig(second, form.slug)).json().data.title === 'After');
    // The consent version moved with it: the old one is refused on the other node too.
    expect((await submit(second, form.slug, { consentVersion: '1', email: 'stale@example.com' })).json().code).toBe('CONSENT_REQUIRED');
    await t.app.inject({ method: 'PATCH', url: `/api/org/forms/${form.id}`, headers: org.auth, payload: { active: false } });
    await eventually(async () => (await getConfig(second, form.slug)).statusCode === 404);
  });

  it('a custom field archived on one node disappears from the other node\'s config', async () => {
    const field = await createCustomField(t.app, org);
    const form = await createForm(t.app, org, { customFields: [{ key: field.key }] });
    expect((await getConfig(second, form.slug)).json().data.customFields).toHaveLength(1);
    await archiveCustomField(t.app, org, field.id);
    await eventually(async () => (await getConfig(second, form.slug)).json().data.customFields.length === 0);
  });
});
