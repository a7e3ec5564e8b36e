import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newId } from '../lib/ids.js';
import { createTestContext, testDialects, type TestContext } from '../../test/support/context.js';
import { createOrgWithKey, orgCaller, type OrgWithKey } from '../../test/support/org-factories.js';

describe.each(testDialects())('Operator API: opportunities on %s', (dialect) => {
  let ctx: TestContext;
  let org: OrgWithKey;
  let other: OrgWithKey;
  let call: ReturnType<typeof orgCaller>;
  let contactId: string;
  let theirContactId: string;
  let second: { id: string; stages: { id: string }[] };

  beforeAll(async () => {
    ctx = await createTestContext(dialect);
    call = orgCaller(ctx.app);
    [org, other] = await Promise.all([createOrgWithKey(ctx.database, ctx.clock), createOrgWithKey(ctx.database, ctx.clock)]);
    contactId = (await call('POST', '/api/org/contacts', org, { email: 'buyer@example.com' })).json().data.id;
    theirContactId = (await call('POST', '/api/org/contacts', other, { email: 'buyer@example.com' })).json().data.id;
    second = (await call('POST', '/api/org/pipelines', org, { name: 'Upsell', stages: [{ name: 'Idea' }, { name: 'Pitched' }] })).json().data;
    await call('POST', '/api/org/custom-fields', org, { key: 'amount', entity: 'opportunity', label: 'Amount', type: 'number' });
  });
  afterAll(async () => ctx.close());

  const create = async (body: Record<string, unknown>, who: OrgWithKey = org) => {
    const res = await call('POST', '/api/org/opportunities', who, body);
    expect(res.statusCode, res.body).toBe(201);
    return res.json().data;
  };

  it("creates in the default pipeline's first stage when none is given", async () => {
    const opp = await create({ contactId, title: ' Website redesign ', custom: { amount: 12000 } });
    expect(opp).toMatchObject({ contactId, title: 'Website redesign', pipelineId: org.defaultPipeline.id, stageId: org.defaultPipeline.stages[0]!.id, source: 'api', custom: { amount: 12000 }, submissionId: null });
    expect(opp.id).toMatch(/^opp_/);
    expect((await call('GET', `/api/org/opportunities/${opp.id}`, org)).json().data).toEqual(opp);
  });

  it('creates in a given pipeline (first stage) or a given stage (its pipeline)', async () => {
    expect(await create({ contactId, title: 'A', pipelineId: second.id })).toMatchObject({ pipelineId: second.id, stageId: second.stages[0]!.id });
    expect(await create({ contactId, title: 'B', stageId: second.stages[1]!.id })).toMatchObject({ pipelineId: second.id, stageId: second.stages[1]!.id });
  });

  it('moves an opportunity along and across pipelines, and renames it', async () => {
    const opp = await create({ contactId, title: 'Move me' });
    const moved = await call('PATCH', `/api/org/opportunities/${opp.id}`, org, { stageId: org.defaultPipeline.stages[3]!.id, title: 'Won deal' });
    expect(moved.json().data).toMatchObject({ stageId: org.defaultPipeline.stages[3]!.id, pipelineId: org.defaultPipeline.id, title: 'Won deal' });
    const across = await call('PATCH', `/api/org/opportunities/${opp.id}`, org, { pipelineId: second.id });
    expect(across.json().data).toMatchObject({ pipelineId: second.id, stageId: second.stages[0]!.id });
    const custom = await call('PATCH', `/api/org/opportunities/${opp.id}`, org, { custom: { amount: 5 } });
    expect(custom.json().data.custom).toEqual({ amount: 5 });
    const cleared = await call('PATCH', `/api/org/opportunities/${opp.id}`, org, { custom: { amount: null } });
    expect(cleared.json().data.custom).toEqual({});
  });

  it('lists newest first, with filters and paging', async () => {
    const fresh = await createOrgWithKey(ctx.database, ctx.clock);
    const c1 = (await call('POST', '/api/org/contacts', fresh, { email: 'one@example.com' })).json().data.id;
    const c2 = (await call('POST', '/api/org/contacts', fresh, { email: 'two@example.com' })).json().data.id;
    for (const [title, contact, stage] of [['t1', c1, 0], ['t2', c2, 1], ['t3', c1, 1]] as const) {
      ctx.clock.advance(1000);
      await create({ contactId: contact, title, stageId: fresh.defaultPipeline.stages[stage]!.id }, fresh);
    }
    const titles = async (query: string) => (await call('GET', `/api/org/opportunities${query}`, fresh)).json().data.items.map((o: { title: string }) => o.title);
    expect(await titles('')).toEqual(['t3', 't2', 't1']);
    expect(await titles(`?contactId=${c1}`)).toEqual(['t3', 't1']);
    expect(await titles(`?stageId=${fresh.defaultPipeline.stages[1]!.id}`)).toEqual(['t3', 't2']);
    expect(await titles(`?pipelineId=${fresh.defaultPipeline.id}&limit=1`)).toEqual(['t3']);
    const page = (await call('GET', '/api/org/opportunities?limit=2', fresh)).json().data;
    expect((await call('GET', `/api/org/opportunities?limit=2&cursor=${page.nextCursor}`, fresh)).json().data.items.map((o: { title: string }) => o.title)).toEqual(['t1']);
    expect(await titles(`?contactId=${theirContactId}`)).toEqual([]);
  });

  it('deletes an opportunity', async () => {
    const opp = await create({ contactId, title: 'Drop' });
    expect((await call('DELETE', `/api/org/opportunities/${opp.id}`, org)).json()).toEqual({ success: true, data: { id: opp.id, deleted: true } });
    expect((await call('GET', `/api/org/opportunities/${opp.id}`, org)).json().code).toBe('OPPORTUNITY_NOT_FOUND');
  });

  it.each([
    ['a missing title', () => ({ contactId })],
    ['a blank title', () => ({ contactId, title: '   ' })],
    ['a title that is a number', () => ({ contactId, title: 5 })],
    ['an unknown field', () => ({ contactId, title: 'x', amount: 5 })],
    ['a custom value of the wrong type', () => ({ contactId, title: 'x', custom: { amount: 'lots' } })],
    ['an unknown custom key', () => ({ contactId, title: 'x', custom: { colour: 'red' } })],
  ])('refuses %s with VALIDATION_ERROR and writes nothing', async (_what, body) => {
    const count = async () => (await ctx.database.db.selectFrom('opportunities').select('id').where('org_id', '=', org.orgId).execute()).length;
    const before = await count();
    const res = await call('POST', '/api/org/opportunities', org, body());
    expect(res.statusCode).toBe(400);
    expect(res.json().code).toBe('VALIDATION_ERROR');
    expect(await count()).toBe(before);
  });

  it("refuses another org's contact, pipeline or stage with the right not-found code", async () => {
    const count = async () => (await ctx.database.db.selectFrom('opportunities').select('id').where('org_id', '=', org.orgId).execute()).length;
    const before = await count();
    const contact = await call('POST', '/api/org/opportunities', org, { contactId: theirContactId, title: 'x' });
    expect(contact.statusCode).toBe(404);
    expect(contact.json().code).toBe('CONTACT_NOT_FOUND');
    const pipeline = await call('POST', '/api/org/opportunities', org, { contactId, title: 'x', pipelineId: other.defaultPipeline.id });
    expect(pipeline.statusCode).toBe(422);
    expect(pipeline.json().code).toBe('PIPELINE_NOT_FOUND');
    const stage = await call('POST', '/api/org/opportunities', org, { contactId, title: 'x', stageId: other.defaultPipeline.stages[0]!.id });
    expect(stage.statusCode).toBe(422);
    expect(stage.json().code).toBe('STAGE_NOT_FOUND');
    const mismatch = await call('POST', '/api/org/opportunities', org, { contactId, title: 'x', pipelineId: second.id, stageId: org.defaultPipeline.stages[0]!.id });
    expect(mismatch.json().code).toBe('STAGE_NOT_FOUND');
    expect(await count()).toBe(before);
  });

  it("answers 404 OPPORTUNITY_NOT_FOUND for another org's opportunity, and refuses moving into their pipeline", async () => {
    const theirs = await create({ contactId: theirContactId, title: 'Theirs' }, other);
    for (const [method, body] of [['GET', undefined], ['PATCH', { title: 'Mine' }], ['DELETE', undefined]] as const) {
      const res = await call(method, `/api/org/opportunities/${theirs.id}`, org, body);
      expect(res.statusCode).toBe(404);
      expect(res.json().code).toBe('OPPORTUNITY_NOT_FOUND');
    }
    expect((await call('GET', `/api/org/opportunities/${newId('opp')}`, org)).statusCode).toBe(404);
    expect((await call('GET', `/api/org/opportunities/${theirs.id}`, other)).json().data.title).toBe('Theirs');
    const mine = await create({ contactId, title: 'Mine' });
    const move = await call('PATCH', `/api/org/opportunities/${mine.id}`, org, { stageId: other.defaultPipeline.stages[1]!.id });
    expect(move.statusCode).toBe(422);
    expect(move.json().code).toBe('STAGE_NOT_FOUND');
    expect((await call('GET', `/api/org/opportunities/${mine.id}`, org)).json().data.stageId).toBe(org.defaultPipeline.stages[0]!.id);
  });

  it('asks for credentials', async () => {
    expect((await call('GET', '/api/org/opportunities', null)).statusCode).toBe(401);
    expect((await call('POST', '/api/org/opportunities', null, { contactId, title: 'x' })).statusCode).toBe(401);
  });
});
