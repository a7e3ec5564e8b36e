import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newId } from '../lib/ids.js';
import { createTestContext, testDialects, type TestContext } from '../../test/support/context.js';
import { createOrgWithKey, orgCaller, type OrgWithKey } from '../../test/support/org-factories.js';

describe.each(testDialects())('Operator API: custom fields on %s', (dialect) => {
  let ctx: TestContext;
  let org: OrgWithKey;
  let other: OrgWithKey;
  let call: ReturnType<typeof orgCaller>;

  beforeAll(async () => {
    ctx = await createTestContext(dialect);
    call = orgCaller(ctx.app);
    [org, other] = await Promise.all([createOrgWithKey(ctx.database, ctx.clock), createOrgWithKey(ctx.database, ctx.clock)]);
  });
  afterAll(async () => ctx.close());

  const create = async (who: OrgWithKey, body: Record<string, unknown>) => {
    const res = await call('POST', '/api/org/custom-fields', who, body);
    expect(res.statusCode, res.body).toBe(201);
    return res.json().data;
  };

  it('creates a select field and a text field', async () => {
    const select = await create(org, { key: 'company_size', entity: 'contact', label: ' Company size ', type: 'select', options: [' 1-10', '11-50 ', '51+'] });
    expect(select).toMatchObject({ key: 'company_size', entity: 'contact', label: 'Company size', type: 'select', options: ['1-10', '11-50', '51+'], archived: false, archivedAt: null });
    expect(select.id).toMatch(/^cf_/);
    const text = await create(org, { key: 'budget_note', entity: 'opportunity', label: 'Budget', type: 'text' });
    expect(text.options).toEqual([]);
    expect((await call('GET', `/api/org/custom-fields/${select.id}`, org)).json().data).toEqual(select);
  });

  it('lists newest first, filtered by entity and archived state, with paging', async () => {
    const fresh = await createOrgWithKey(ctx.database, ctx.clock);
    for (const [key, entity] of [['a1', 'contact'], ['b1', 'opportunity'], ['c1', 'contact']]) {
      ctx.clock.advance(1000);
      await create(fresh, { key, entity, label: key, type: 'number' });
    }
    const all = (await call('GET', '/api/org/custom-fields?limit=2', fresh)).json().data;
    expect(all.items.map((f: { key: string }) => f.key)).toEqual(['c1', 'b1']);
    const rest = (await call('GET', `/api/org/custom-fields?limit=2&cursor=${all.nextCursor}`, fresh)).json().data;
    expect(rest).toMatchObject({ items: [{ key: 'a1' }], nextCursor: null });
    const contacts = (await call('GET', '/api/org/custom-fields?entity=contact', fresh)).json().data.items;
    expect(contacts.map((f: { key: string }) => f.key)).toEqual(['c1', 'a1']);
    await call('POST', `/api/org/custom-fields/${contacts[0].id}/archive`, fresh);
    expect((await call('GET', '/api/org/custom-fields?archived=true', fresh)).json().data.items.map((f: { key: string }) => f.key)).toEqual(['c1']);
    expect((await call('GET', '/api/org/custom-fields?archived=false', fresh)).json().data.items.map((f: { key: string }) => f.key)).toEqual(['b1', 'a1']);
    expect((await call('GET', '/api/org/custom-fields?entity=deal', fresh)).statusCode).toBe(400);
  });

  it('updates label and options, but not the type', async () => {
    const field = await create(org, { key: 'tier', entity: 'contact', label: 'Tier', type: 'select', options: ['gold'] });
    ctx.clock.advance(1000);
    const res = await call('PATCH', `/api/org/custom-fields/${field.id}`, org, { label: 'Customer tier', options: ['gold', 'silver'] });
    expect(res.statusCode).toBe(200);
    expect(res.json().data).toMatchObject({ label: 'Customer tier', options: ['gold', 'silver'], key: 'tier' });
    expect(res.json().data.updatedAt > field.updatedAt).toBe(true);
    const typeChange = await call('PATCH', `/api/org/custom-fields/${field.id}`, org, { type: 'text' });
    expect(typeChange.statusCode).toBe(400);
    expect((await call('PATCH', `/api/org/custom-fields/${field.id}`, org, { options: [] })).json()).toMatchObject({ code: 'VALIDATION_ERROR', field: 'options' });
  });

  it('archives idempotently, restores, and deletes', async () => {
    const field = await create(org, { key: 'source_detail', entity: 'contact', label: 'Source', type: 'text' });
    const archived = (await call('POST', `/api/org/custom-fields/${field.id}/archive`, org)).json().data;
    expect(archived).toMatchObject({ archived: true, archivedAt: expect.any(String) });
    ctx.clock.advance(1000);
    expect((await call('POST', `/api/org/custom-fields/${field.id}/archive`, org)).json().data.archivedAt).toBe(archived.archivedAt);
    expect((await call('POST', `/api/org/custom-fields/${field.id}/unarchive`, org)).json().data).toMatchObject({ archived: false, archivedAt: null });
    expect((await call('DELETE', `/api/org/custom-fields/${field.id}`, org)).json()).toEqual({ success: true, data: { id: field.id, deleted: true } });
    const gone = await call('GET', `/api/org/custom-fields/${field.id}`, org);
    expect(gone.statusCode).toBe(404);
    expect(gone.json().code).toBe('CUSTOM_FIELD_NOT_FOUND');
  });

  it('refuses a key already used in the org with 409, archived or not; another org may use it', async () => {
    const field = await create(org, { key: 'industry', entity: 'contact', label: 'Industry', type: 'text' });
    await call('POST', `/api/org/custom-fields/${field.id}/archive`, org);
    const dup = await call('POST', '/api/org/custom-fields', org, { key: 'industry', entity: 'opportunity', label: 'Again', type: 'text' });
    expect(dup.statusCode).toBe(409);
    expect(dup.json()).toMatchObject({ code: 'CONFLICT', field: 'key' });
    await create(other, { key: 'industry', entity: 'contact', label: 'Industry', type: 'text' });
  });

  it.each([
    ['a key with capitals', { key: 'Size', entity: 'contact', label: 'x', type: 'text' }],
    ['a key starting with a digit', { key: '1size', entity: 'contact', label: 'x', type: 'text' }],
    ['a key too long', { key: `k${'a'.repeat(64)}`, entity: 'contact', label: 'x', type: 'text' }],
    ['an unknown entity', { key: 'k', entity: 'deal', label: 'x', type: 'text' }],
    ['an unknown type', { key: 'k', entity: 'contact', label: 'x', type: 'color' }],
    ['a select without options', { key: 'k', entity: 'contact', label: 'x', type: 'select' }],
    ['a select with empty options', { key: 'k', entity: 'contact', label: 'x', type: 'select', options: [] }],
    ['duplicate options', { key: 'k', entity: 'contact', label: 'x', type: 'select', options: ['a', 'b', 'a '] }],
    ['blank options', { key: 'k', entity: 'contact', label: 'x', type: 'select', options: ['a', '  '] }],
    ['options on a text field', { key: 'k', entity: 'contact', label: 'x', type: 'text', options: ['a'] }],
    ['a blank label', { key: 'k', entity: 'contact', label: '   ', type: 'text' }],
    ['options that are not strings', { key: 'k', entity: 'contact', label: 'x', type: 'select', options: [1, 2] }],
    ['a missing key', { entity: 'contact', label: 'x', type: 'text' }],
    ['an unknown field', { key: 'k', entity: 'contact', label: 'x', type: 'text', required: true }],
  ])('refuses %s with VALIDATION_ERROR and writes nothing', async (_what, body) => {
    const count = async () => (await ctx.database.db.selectFrom('custom_fields').select('id').where('org_id', '=', org.orgId).execute()).length;
    const before = await count();
    const res = await call('POST', '/api/org/custom-fields', org, body);
    expect(res.statusCode).toBe(400);
    expect(res.json().code).toBe('VALIDATION_ERROR');
    expect(await count()).toBe(before);
  });

  it("answers 404 CUSTOM_FIELD_NOT_FOUND for another org's field on every route, and leaves it alone", async () => {
    const theirs = await create(other, { key: 'secret', entity: 'contact', label: 'Secret', type: 'text' });
    const attempts = [
      ['GET', `/api/org/custom-fields/${theirs.id}`, undefined],
      ['PATCH', `/api/org/custom-fields/${theirs.id}`, { label: 'Mine' }],
      ['POST', `/api/org/custom-fields/${theirs.id}/archive`, undefined],
      ['POST', `/api/org/custom-fields/${theirs.id}/unarchive`, undefined],
      ['DELETE', `/api/org/custom-fields/${theirs.id}`, undefined],
      ['GET', `/api/org/custom-fields/${newId('cf')}`, undefined],
    ] as const;
    for (const [method, url, body] of attempts) {
      const res = await call(method, url, org, body);
      expect(res.statusCode).toBe(404);
      expect(res.json().code).toBe('CUSTOM_FIELD_NOT_FOUND');
    }
    expect((await call('GET', `/api/org/custom-fields/${theirs.id}`, other)).json().data).toEqual(theirs);
    expect(JSON.stringify((await call('GET', '/api/org/custom-fields?limit=100', org)).json())).not.toContain(theirs.id);
  });

  it('asks for credentials, and refuses a revoked key', async () => {
    expect((await call('GET', '/api/org/custom-fields', null)).statusCode).toBe(401);
    expect((await call('POST', '/api/org/custom-fields', null, { key: 'k', entity: 'contact', label: 'x', type: 'text' })).statusCode).toBe(401);
    const key = (await call('POST', '/api/org/api-keys', org, { name: 'short-lived' })).json().data;
    await call('POST', `/api/org/api-keys/${key.id}/revoke`, org);
    const res = await ctx.app.inject({ method: 'GET', url: '/api/org/custom-fields', headers: { authorization: `Bearer ${key.key}` } });
    expect(res.statusCode).toBe(401);
    expect(res.json().code).toBe('INVALID_TOKEN');
  });

  it('refuses oversized bodies', async () => {
    const res = await call('POST', '/api/org/custom-fields', org, { key: 'big', entity: 'contact', label: 'x', type: 'select', options: Array.from({ length: 700 }, (_, i) => `option-${i}-${'x'.repeat(90)}`) });
    expect(res.statusCode).toBe(413);
  });
});
