import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestContext, testDialects, type TestContext } from '../../test/support/context.js';
import { countWrites, createForm, getConfig, submit } from '../../test/support/form-factories.js';
import { createOrgWithKey, orgCaller, type OrgWithKey } from '../../test/support/org-factories.js';

describe.each(testDialects())('Operator API: the organization on %s', (dialect) => {
  let ctx: TestContext;
  let org: OrgWithKey;
  let other: OrgWithKey;
  let call: ReturnType<typeof orgCaller>;

  beforeAll(async () => {
    ctx = await createTestContext(dialect);
    [org, other] = await Promise.all([createOrgWithKey(ctx.database, ctx.clock, { name: 'Acme Dental' }), createOrgWithKey(ctx.database, ctx.clock, { name: 'Other Inc', defaultCountry: 'FR' })]);
    call = orgCaller(ctx.app);
  });
  afterAll(async () => ctx.close());

  const stored = (orgId: string) => ctx.database.db.selectFrom('orgs').selectAll().where('id', '=', orgId).executeTakeFirstOrThrow();

  /** Expects a refused PATCH with this status, code and field that changed nothing. */
  async function expectRefused(who: OrgWithKey, payload: unknown, status: number, code: string, field?: string) {
    const before = await stored(who.orgId);
    const res = await call('PATCH', '/api/org/organization', who, payload);
    expect(res.statusCode, `${JSON.stringify(payload)} → ${res.body}`).toBe(status);
    const body = res.json();
    expect(body).toMatchObject({ success: false, code });
    expect(body.error).toEqual(expect.any(String));
    expect(body.error.length).toBeGreaterThan(10);
    if (field !== undefined) expect(body.field).toBe(field);
    expect(await stored(who.orgId)).toEqual(before);
    return body;
  }

  it("answers the caller's organization", async () => {
    const res = await call('GET', '/api/org/organization', org);
    expect(res.statusCode).toBe(200);
    const row = await stored(org.orgId);
    expect(res.json()).toEqual({ success: true, data: { id: org.orgId, name: 'Acme Dental', defaultCountry: 'US', createdAt: row.created_at, dailyTokenBudget: null, tokensUsedToday: 0, retention: { submissionsDays: null, conversationsDays: null, callLogDays: null, webhookBodiesDays: null } } });
  });

  it('changes the name and the default country, each alone or together', async () => {
    const fresh = await createOrgWithKey(ctx.database, ctx.clock, { name: 'Before' });
    const renamed = await call('PATCH', '/api/org/organization', fresh, { name: '  After  ' });
    expect(renamed.statusCode).toBe(200);
    expect(renamed.json().data).toMatchObject({ id: fresh.orgId, name: 'After', defaultCountry: 'US' });

    const moved = await call('PATCH', '/api/org/organization', fresh, { defaultCountry: 'gb' });
    expect(moved.json().data).toMatchObject({ name: 'After', defaultCountry: 'GB' });
    const both = await call('PATCH', '/api/org/organization', fresh, { name: 'Both', defaultCountry: 'DE' });
    expect(both.json().data).toMatchObject({ name: 'Both', defaultCountry: 'DE' });

    expect((await call('GET', '/api/org/organization', fresh)).json().data).toEqual(both.json().data);
    expect(await stored(fresh.orgId)).toMatchObject({ name: 'Both', default_country: 'DE' });
  });

  it.each([
    ['UK', /use GB for the United Kingdom/],
    ['QQ', /QQ is not a country code/],
    ['XX', /XX is not a country code/],
    ['France', /two-letter country code/],
    ['G', /two-letter country code/],
    ['', /two-letter country code/],
    ['1A', /two-letter country code/],
  ])('refuses the default country %j with VALIDATION_ERROR on defaultCountry and changes nothing', async (country, message) => {
    const body = await expectRefused(org, { defaultCountry: country }, 400, 'VALIDATION_ERROR', 'defaultCountry');
    expect(body.error).toMatch(message);
  });

  it('refuses a wrongly typed country, a blank name, an unknown field and an empty body', async () => {
    await expectRefused(org, { defaultCountry: 44 }, 400, 'VALIDATION_ERROR', 'defaultCountry');
    await expectRefused(org, { defaultCountry: null }, 400, 'VALIDATION_ERROR', 'defaultCountry');
    await expectRefused(org, { name: 'Renamed', defaultCountry: 'UK' }, 400, 'VALIDATION_ERROR', 'defaultCountry');
    await expectRefused(org, { name: '   ' }, 400, 'VALIDATION_ERROR', 'name');
    await expectRefused(org, { name: 'x'.repeat(101) }, 400, 'VALIDATION_ERROR', 'name');
    await expectRefused(org, { id: 'org_mine' }, 400, 'VALIDATION_ERROR', 'id');
    await expectRefused(org, { createdAt: '2020-01-01T00:00:00.000Z' }, 400, 'VALIDATION_ERROR', 'createdAt');
    await expectRefused(org, {}, 400, 'VALIDATION_ERROR');
  });

  it('asks for credentials, before reading the body', async () => {
    for (const method of ['GET', 'PATCH'] as const) {
      const res = await call(method, '/api/org/organization', null, method === 'PATCH' ? { defaultCountry: 'GB' } : undefined);
      expect(res.statusCode).toBe(401);
      expect(res.json().code).toBe('UNAUTHORIZED');
      expect(res.headers['www-authenticate']).toBe('Bearer realm="switchboard"');
      const forged = await call(method, '/api/org/organization', { auth: { authorization: 'Bearer svc_org_not-a-real-key' } }, method === 'PATCH' ? { defaultCountry: 'QQ' } : undefined);
      expect(forged.statusCode).toBe(401);
      expect(forged.json().code).toBe('INVALID_TOKEN');
    }
    expect((await stored(org.orgId)).default_country).toBe('US');
  });

  it("only ever sees and changes the key's own organization", async () => {
    const otherBefore = await stored(other.orgId);
    expect((await call('GET', '/api/org/organization', other)).json().data).toMatchObject({ id: other.orgId, name: 'Other Inc', defaultCountry: 'FR' });
    const neighbour = await createOrgWithKey(ctx.database, ctx.clock, { name: 'Neighbour' });
    expect((await call('PATCH', '/api/org/organization', neighbour, { name: 'Changed', defaultCountry: 'NL' })).json().data.id).toBe(neighbour.orgId);
    expect(await stored(other.orgId)).toEqual(otherBefore);
    expect((await stored(org.orgId)).name).toBe('Acme Dental');
    // There is no id to aim at another organization: the path has none and the body refuses one.
    expect((await call('GET', `/api/org/organization/${other.orgId}`, org)).statusCode).toBe(404);
  });

  it('a new default country reaches live forms at once: national numbers are read in it', async () => {
    const fresh = await createOrgWithKey(ctx.database, ctx.clock);
    const form = await createForm(ctx.app, fresh, { fields: { phone: { enabled: true, required: false } } });
    const ukMobile = '07400 123456';
    // Warm the cache with the form as the US organization sees it: a UK national number is not a US number.
    expect((await getConfig(ctx.app, form.slug)).statusCode).toBe(200);
    const before = await countWrites(ctx.database, fresh.orgId);
    const refused = await submit(ctx.app, form.slug, { consentVersion: '1', phone: ukMobile });
    expect(refused.statusCode).toBe(400);
    expect(refused.json()).toMatchObject({ code: 'INVALID_FIELD', field: 'phone' });
    expect(await countWrites(ctx.database, fresh.orgId)).toEqual(before);

    expect((await call('PATCH', '/api/org/organization', fresh, { defaultCountry: 'GB' })).statusCode).toBe(200);
    const accepted = await submit(ctx.app, form.slug, { consentVersion: '1', phone: ukMobile });
    expect(accepted.statusCode, accepted.body).toBe(200);
    const contact = await ctx.database.db.selectFrom('contacts').select('phone').where('org_id', '=', fresh.orgId).executeTakeFirstOrThrow();
    expect(contact.phone).toBe('+447400123456');
    // The Operator API reads national numbers in the new country too.
    const filtered = await call('GET', `/api/org/contacts?phone=${encodeURIComponent(ukMobile)}`, fresh);
    expect(filtered.json().data.items).toHaveLength(1);
  });
});
