import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newId } from '../lib/ids.js';
import { createTestContext, testDialects, type TestContext } from '../../test/support/context.js';
import { createOrgWithKey, orgCaller, type OrgWithKey } from '../../test/support/org-factories.js';

describe.each(testDialects())('Operator API: contacts on %s', (dialect) => {
  let ctx: TestContext;
  let org: OrgWithKey;
  let other: OrgWithKey;
  let call: ReturnType<typeof orgCaller>;

  beforeAll(async () => {
    ctx = await createTestContext(dialect);
    call = orgCaller(ctx.app);
    [org, other] = await Promise.all([createOrgWithKey(ctx.database, ctx.clock, { defaultCountry: 'GB' }), createOrgWithKey(ctx.database, ctx.clock)]);
    await call('POST', '/api/org/custom-fields', org, { key: 'size', entity: 'contact', label: 'Size', type: 'select', options: ['small', 'large'] });
    await call('POST', '/api/org/custom-fields', org, { key: 'seats', entity: 'contact', label: 'Seats', type: 'number' });
    await call('POST', '/api/org/custom-fields', org, { key: 'renewal', entity: 'contact', label: 'Renewal', type: 'date' });
    await call('POST', '/api/org/custom-fields', org, { key: 'deal_only', entity: 'opportunity', label: 'Deal only', type: 'text' });
    const archived = (await call('POST', '/api/org/custom-fields', org, { key: 'legacy', entity: 'contact', label: 'Legacy', type: 'text' })).json().data;
    await call('POST', `/api/org/custom-fields/${archived.id}/archive`, org);
  });
  afterAll(async () => ctx.close());

  const create = async (who: OrgWithKey, body: Record<string, unknown>) => {
    const res = await call('POST', '/api/org/contacts', who, body);
    expect(res.statusCode, res.body).toBe(201);
    return res.json().data;
  };

  it('creates a contact with normalized identity, source api and checked custom values', async () => {
    const contact = await create(org, { email: ' Jane.Doe@Example.COM ', phone: '020 7946 0958', name: ' Jane ', company: 'Acme', custom: { size: 'large', seats: 12, renewal: '2027-02-28' } });
    expect(contact).toMatchObject({ email: 'jane.doe@example.com', phone: '+442079460958', name: 'Jane', company: 'Acme', source: 'api', custom: { size: 'large', seats: 12, renewal: '2027-02-28' } });
    expect(contact.id).toMatch(/^ct_/);
  });

  it('refuses a second contact with the same email or phone with 409 naming the holder', async () => {
    const first = await create(org, { email: 'dup@example.com', phone: '+44 20 7946 0001' });
    const byEmail = await call('POST', '/api/org/contacts', org, { email: 'DUP@example.com' });
    expect(byEmail.statusCode).toBe(409);
    expect(byEmail.json()).toMatchObject({ code: 'CONFLICT', field: 'email', contactId: first.id });
    const byPhone = await call('POST', '/api/org/contacts', org, { phone: '020 7946 0001' });
    expect(byPhone.json()).toMatchObject({ code: 'CONFLICT', field: 'phone' });
    // Another org is another CRM.
    await create(other, { email: 'dup@example.com' });
  });

  it.each([
    ['no email and no phone', { name: 'Nobody' }, 'IDENTITY_REQUIRED', 400],
    ['blank identity', { email: '  ', phone: '' }, 'IDENTITY_REQUIRED', 400],
    ['a malformed email', { email: 'jane@' }, 'VALIDATION_ERROR', 400],
    ['an unparseable phone', { phone: '12345' }, 'VALIDATION_ERROR', 400],
    ['a select value not among options', { email: 'a1@example.com', custom: { size: 'huge' } }, 'VALIDATION_ERROR', 400],
    ['a number as text', { email: 'a2@example.com', custom: { seats: '12' } }, 'VALIDATION_ERROR', 400],
    ['an impossible date', { email: 'a3@example.com', custom: { renewal: '2027-02-30' } }, 'VALIDATION_ERROR', 400],
    ['an unknown custom key', { email: 'a4@example.com', custom: { nope: 'x' } }, 'VALIDATION_ERROR', 400],
    ['an archived custom key', { email: 'a5@example.com', custom: { legacy: 'x' } }, 'VALIDATION_ERROR', 400],
    ["an opportunity field's key", { email: 'a6@example.com', custom: { deal_only: 'x' } }, 'VALIDATION_ERROR', 400],
    ['a custom key that is not a key', { email: 'a7@example.com', custom: { 'Bad Key': 'x' } }, 'VALIDATION_ERROR', 400],
    ['a nested custom value', { email: 'a8@example.com', custom: { size: { $gt: '' } } }, 'VALIDATION_ERROR', 400],
    ['an email that is a number', { email: 42 }, 'VALIDATION_ERROR', 400],
    ['an unknown field', { email: 'a9@example.com', source: 'form' }, 'VALIDATION_ERROR', 400],
  ])('refuses %s and writes nothing', async (_what, body, code, status) => {
    const count = async () => (await ctx.database.db.selectFrom('contacts').select('id').where('org_id', '=', org.orgId).execute()).length;
    const before = await count();
    const res = await call('POST', '/api/org/contacts', org, body);
    expect(res.statusCode).toBe(status);
    expect(res.json().code).toBe(code);
    expect(await count()).toBe(before);
  });

  describe('list', () => {
    let fresh: OrgWithKey;
    beforeAll(async () => {
      fresh = await createOrgWithKey(ctx.database, ctx.clock, { defaultCountry: 'US' });
      for (const body of [
        { email: 'ada@lovelace.example', name: 'Ada Lovelace', company: 'Analytical Engines' },
        { phone: '(415) 555-2671', name: 'Grace Hopper', company: 'Navy' },
        { email: 'alan@turing.example', phone: '+1 212 555 0199', name: 'Alan Turing', company: 'Bletchley 100%' },
      ]) {
        ctx.clock.advance(1000);
        await create(fresh, body);
      }
    });
    const names = async (query: string) => {
      const res = await call('GET', `/api/org/contacts${query}`, fresh);
      expect(res.statusCode, res.body).toBe(200);
      return res.json().data.items.map((c: { name: string }) => c.name);
    };

    it('lists newest first, page by page', async () => {
      const page1 = (await call('GET', '/api/org/contacts?limit=2', fresh)).json().data;
      expect(page1.items.map((c: { name: string }) => c.name)).toEqual(['Alan Turing', 'Grace Hopper']);
      const page2 = (await call('GET', `/api/org/contacts?limit=2&cursor=${page1.nextCursor}`, fresh)).json().data;
      expect(page2).toMatchObject({ items: [{ name: 'Ada Lovelace' }], nextCursor: null });
    });

    it('filters by email and phone after normalizing them', async () => {
      expect(await names('?email=%20ADA@Lovelace.example%20')).toEqual(['Ada Lovelace']);
      expect(await names(`?phone=${encodeURIComponent('415.555.2671')}`)).toEqual(['Grace Hopper']);
      expect(await names(`?phone=${encodeURIComponent('+14155552671')}`)).toEqual(['Grace Hopper']);
      expect(await names('?email=nobody@example.com')).toEqual([]);
      const bad = await call('GET', '/api/org/contacts?phone=12', fresh);
      expect(bad.statusCode).toBe(400);
      expect(bad.json()).toMatchObject({ code: 'VALIDATION_ERROR', field: 'phone' });
    });

    it('searches name, email, phone and company case-insensitively, treating % and _ literally', async () => {
      expect(await names('?q=ada')).toEqual(['Ada Lovelace']);
      expect(await names('?q=NAVY')).toEqual(['Grace Hopper']);
      expect(await names('?q=turing.example')).toEqual(['Alan Turing']);
      expect(await names(`?q=${encodeURIComponent('555-2671')}`)).toEqual(['Grace Hopper']);
      expect(await names(`?q=${encodeURIComponent('100%')}`)).toEqual(['Alan Turing']);
      expect(await names(`?q=${encodeURIComponent('%')}`)).toEqual(['Alan Turing']);
      expect(await names('?q=_')).toEqual([]);
      expect(await names(`?q=${encodeURIComponent("' or 1=1 --")}`)).toEqual([]);
    });

    it('refuses bad paging and over-long filters', async () => {
      expect((await call('GET', '/api/org/contacts?limit=0', fresh)).statusCode).toBe(400);
      expect((await call('GET', '/api/org/contacts?cursor=abc', fresh)).statusCode).toBe(400);
      expect((await call('GET', `/api/org/contacts?q=${'x'.repeat(201)}`, fresh)).statusCode).toBe(400);
      expect((await call('GET', '/api/org/contacts?sort=name', fresh)).statusCode).toBe(400);
    });
  });

  it('shows one contact with its notes, opportunities and submissions', async () => {
    const contact = await create(org, { email: 'detail@example.com', name: 'Detail' });
    const note = await call('POST', `/api/org/contacts/${contact.id}/notes`, org, { body: 'Called, left a message.' });
    expect(note.statusCode).toBe(201);
    expect(note.json().data).toMatchObject({ body: 'Called, left a message.', source: 'api', submissionId: null });
    const opp = (await call('POST', '/api/org/opportunities', org, { contactId: contact.id, title: 'Upgrade' })).json().data;
    const now = ctx.clock.now().toISOString();
    const formId = newId('frm');
    await ctx.database.db.insertInto('forms').values({
      id: formId, org_id: org.orgId, slug: `f-${formId.slice(4).toLowerCase()}`, title: 'Contact', active: 1, fields: '{}', custom_fields: '[]', consent_text: 'I agree to be contacted.',
      consent_version: 'v1', success_message: 'Thanks', redirect_url: null, agent_id: null, create_opportunity: 0, pipeline_id: null, stage_id: null, created_at: now, updated_at: now, notify_enabled: 1, notify_recipients: null,
    }).execute();
    await ctx.database.db.insertInto('consent_versions').values({ form_id: formId, version: 'v1', text: 'I agree to be contacted.', created_at: now }).execute();
    const submissionId = newId('sub');
    await ctx.database.db.insertInto('submissions').values({
      id: submissionId, org_id: org.orgId, form_id: formId, contact_id: contact.id, opportunity_id: null, field_values: '{"email":"detail@example.com"}', custom: '{}',
      consent_version: 'v1', metadata: '{"utm_source":"news"}', ip: '203.0.113.9', user_agent: 'Test', created_at: now,
    }).execute();
    const res = await call('GET', `/api/org/contacts/${contact.id}`, org);
    expect(res.statusCode).toBe(200);
    const detail = res.json().data;
    expect(detail).toMatchObject({ id: contact.id, email: 'detail@example.com', notes: [{ body: 'Called, left a message.' }], opportunities: [{ id: opp.id, title: 'Upgrade' }] });
    expect(detail.submissions).toEqual([
      { id: submissionId, formId, opportunityId: null, values: { email: 'detail@example.com' }, custom: {}, consentVersion: 'v1', consentText: 'I agree to be contacted.', metadata: { utm_source: 'news' }, ip: '203.0.113.9', userAgent: 'Test', createdAt: now },
    ]);
  });

  it('updates only what is given: null clears, custom merges, identity stays unique and present', async () => {
    const contact = await create(org, { email: 'upd@example.com', phone: '020 7946 0002', name: 'Up', company: 'Co', custom: { size: 'small', seats: 2 } });
    ctx.clock.advance(1000);
    const res = await call('PATCH', `/api/org/contacts/${contact.id}`, org, { company: null, custom: { seats: null, renewal: '2030-01-01' }, name: ' Upton ' });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().data).toMatchObject({ email: 'upd@example.com', phone: '+442079460002', name: 'Upton', company: null, custom: { size: 'small', renewal: '2030-01-01' } });
    expect(res.json().data.custom).not.toHaveProperty('seats');
    expect(res.json().data.updatedAt > contact.updatedAt).toBe(true);
    expect((await call('PATCH', `/api/org/contacts/${contact.id}`, org, { phone: null })).json().data.phone).toBeNull();
    const both = await call('PATCH', `/api/org/contacts/${contact.id}`, org, { email: null });
    expect(both.statusCode).toBe(400);
    expect(both.json().code).toBe('IDENTITY_REQUIRED');
    await create(org, { email: 'taken@example.com' });
    const taken = await call('PATCH', `/api/org/contacts/${contact.id}`, org, { email: 'Taken@example.com' });
    expect(taken.statusCode).toBe(409);
    expect((await call('PATCH', `/api/org/contacts/${contact.id}`, org, {})).statusCode).toBe(400);
    expect((await call('PATCH', `/api/org/contacts/${contact.id}`, org, { custom: { size: 'giant' } })).statusCode).toBe(400);
    expect((await call('GET', `/api/org/contacts/${contact.id}`, org)).json().data.email).toBe('upd@example.com');
  });

  it('deletes a contact with its notes and opportunities', async () => {
    const contact = await create(org, { email: 'bye@example.com' });
    await call('POST', `/api/org/contacts/${contact.id}/notes`, org, { body: 'x' });
    const opp = (await call('POST', '/api/org/opportunities', org, { contactId: contact.id, title: 'Gone' })).json().data;
    expect((await call('DELETE', `/api/org/contacts/${contact.id}`, org)).json()).toEqual({ success: true, data: { id: contact.id, deleted: true } });
    expect((await call('GET', `/api/org/contacts/${contact.id}`, org)).json().code).toBe('CONTACT_NOT_FOUND');
    expect((await call('GET', `/api/org/opportunities/${opp.id}`, org)).statusCode).toBe(404);
    expect(await ctx.database.db.selectFrom('notes').select('id').where('contact_id', '=', contact.id).execute()).toEqual([]);
  });

  it('refuses blank notes', async () => {
    const contact = await create(org, { email: 'notes@example.com' });
    expect((await call('POST', `/api/org/contacts/${contact.id}/notes`, org, { body: '  ' })).statusCode).toBe(400);
    expect((await call('POST', `/api/org/contacts/${contact.id}/notes`, org, { body: 'x'.repeat(10001) })).statusCode).toBe(400);
    expect((await call('POST', `/api/org/contacts/${contact.id}/notes`, org, {})).statusCode).toBe(400);
  });

  it("answers 404 CONTACT_NOT_FOUND for another org's contact on every route, and leaves it alone", async () => {
    const theirs = await create(other, { email: 'theirs@example.com', name: 'Theirs' });
    const attempts = [
      ['GET', `/api/org/contacts/${theirs.id}`, undefined],
      ['PATCH', `/api/org/contacts/${theirs.id}`, { name: 'Mine' }],
      ['DELETE', `/api/org/contacts/${theirs.id}`, undefined],
      ['POST', `/api/org/contacts/${theirs.id}/notes`, { body: 'hello' }],
      ['GET', `/api/org/contacts/${newId('ct')}`, undefined],
    ] as const;
    for (const [method, url, body] of attempts) {
      const res = await call(method, url, org, body);
      expect(res.statusCode, `${method} ${url}`).toBe(404);
      expect(res.json().code).toBe('CONTACT_NOT_FOUND');
    }
    expect((await call('GET', '/api/org/contacts?email=theirs@example.com', org)).json().data.items).toEqual([]);
    expect((await call('GET', '/api/org/contacts?q=Theirs', org)).json().data.items).toEqual([]);
    const still = (await call('GET', `/api/org/contacts/${theirs.id}`, other)).json().data;
    expect(still).toMatchObject({ name: 'Theirs', notes: [] });
  });

  it('asks for credentials', async () => {
    expect((await call('GET', '/api/org/contacts', null)).statusCode).toBe(401);
    expect((await call('POST', '/api/org/contacts', null, { email: 'x@example.com' })).statusCode).toBe(401);
  });
});
