import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newId } from '../lib/ids.js';
import { createTestContext, testDialects, type TestContext } from '../../test/support/context.js';
import { createOrgWithKey, orgCaller, type OrgWithKey } from '../../test/support/org-factories.js';

interface Stage { id: string; name: string; position: number }

describe.each(testDialects())('Operator API: pipelines on %s', (dialect) => {
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

  const create = async (who: OrgWithKey, name: string, stages: string[], isDefault?: boolean) => {
    const res = await call('POST', '/api/org/pipelines', who, { name, stages: stages.map((s) => ({ name: s })), ...(isDefault !== undefined ? { isDefault } : {}) });
    expect(res.statusCode, res.body).toBe(201);
    return res.json().data as { id: string; name: string; isDefault: boolean; stages: Stage[]; updatedAt: string };
  };

  /** A form row written directly: the forms feature owns the API, this test owns the constraint. */
  const insertForm = async (orgId: string, values: { active: boolean; pipelineId?: string | null; stageId?: string | null; title?: string }) => {
    const now = ctx.clock.now().toISOString();
    const id = newId('frm');
    const slug = `form-${id.slice(4).toLowerCase()}`;
    await ctx.database.db.insertInto('forms').values({
      id, org_id: orgId, slug, title: values.title ?? 'Contact us', active: values.active ? 1 : 0, fields: '{}', custom_fields: '[]',
      consent_text: 'I agree', consent_version: 'v1', success_message: 'Thanks', redirect_url: null, agent_id: null,
      create_opportunity: 1, pipeline_id: values.pipelineId ?? null, stage_id: values.stageId ?? null, created_at: now, updated_at: now, notify_enabled: 1, notify_recipients: null,
    }).execute();
    return { id, slug };
  };

  const insertOpportunity = async (who: OrgWithKey, pipelineId: string, stageId: string) => {
    const contact = (await call('POST', '/api/org/contacts', who, { email: `${newId('ct').toLowerCase()}@example.com` })).json().data;
    const res = await call('POST', '/api/org/opportunities', who, { contactId: contact.id, title: 'Deal', pipelineId, stageId });
    expect(res.statusCode, res.body).toBe(201);
    return res.json().data;
  };

  it('a new org has the default pipeline', async () => {
    const list = (await call('GET', '/api/org/pipelines', org)).json().data;
    expect(list.items).toHaveLength(1);
    expect(list.items[0]).toMatchObject({ id: org.defaultPipeline.id, name: 'Sales', isDefault: true });
    expect(list.items[0].stages.map((s: Stage) => s.name)).toEqual(['New', 'Qualified', 'Proposal', 'Won', 'Lost']);
  });

  it('creates a pipeline with ordered stages and gets it', async () => {
    const pipeline = await create(org, 'Partnerships', ['Intro', 'Pilot', 'Signed']);
    expect(pipeline).toMatchObject({ name: 'Partnerships', isDefault: false });
    expect(pipeline.stages.map((s) => [s.name, s.position])).toEqual([['Intro', 0], ['Pilot', 1], ['Signed', 2]]);
    expect((await call('GET', `/api/org/pipelines/${pipeline.id}`, org)).json().data).toEqual(pipeline);
  });

  it('lists pipelines with keyset paging', async () => {
    const fresh = await createOrgWithKey(ctx.database, ctx.clock);
    ctx.clock.advance(1000);
    await create(fresh, 'Second', ['A']);
    ctx.clock.advance(1000);
    await create(fresh, 'Third', ['A']);
    const page1 = (await call('GET', '/api/org/pipelines?limit=2', fresh)).json().data;
    expect(page1.items.map((p: { name: string }) => p.name)).toEqual(['Third', 'Second']);
    const page2 = (await call('GET', `/api/org/pipelines?limit=2&cursor=${page1.nextCursor}`, fresh)).json().data;
    expect(page2.items.map((p: { name: string }) => p.name)).toEqual(['Sales']);
    expect(page2.nextCursor).toBeNull();
  });

  it('renames, reorders, adds and removes stages in one update', async () => {
    const pipeline = await create(org, 'Hiring', ['Applied', 'Screen', 'Offer']);
    const [applied, screen, offer] = pipeline.stages as [Stage, Stage, Stage];
    const res = await call('PATCH', `/api/org/pipelines/${pipeline.id}`, org, {
      name: 'Recruiting',
      stages: [{ id: screen.id, name: 'Phone screen' }, { id: applied.id, name: 'Applied' }, { name: 'Onsite' }],
    });
    expect(res.statusCode, res.body).toBe(200);
    const updated = res.json().data;
    expect(updated.name).toBe('Recruiting');
    expect(updated.stages.map((s: Stage) => [s.name, s.position])).toEqual([['Phone screen', 0], ['Applied', 1], ['Onsite', 2]]);
    expect(updated.stages[0].id).toBe(screen.id);
    expect(updated.stages.map((s: Stage) => s.id)).not.toContain(offer.id);
  });

  it('moves the default to another pipeline; the default pipeline cannot be deleted', async () => {
    const fresh = await createOrgWithKey(ctx.database, ctx.clock);
    const refused = await call('DELETE', `/api/org/pipelines/${fresh.defaultPipeline.id}`, fresh);
    expect(refused.statusCode).toBe(409);
    expect(refused.json()).toMatchObject({ code: 'CONFLICT', error: expect.stringContaining('default pipeline') });
    const next = await create(fresh, 'Enterprise', ['Lead', 'Won'], true);
    expect(next.isDefault).toBe(true);
    const old = (await call('GET', `/api/org/pipelines/${fresh.defaultPipeline.id}`, fresh)).json().data;
    expect(old.isDefault).toBe(false);
    const back = await call('PATCH', `/api/org/pipelines/${fresh.defaultPipeline.id}`, fresh, { isDefault: true });
    expect(back.json().data.isDefault).toBe(true);
    expect((await call('GET', `/api/org/pipelines/${next.id}`, fresh)).json().data.isDefault).toBe(false);
    expect((await call('DELETE', `/api/org/pipelines/${next.id}`, fresh)).json()).toEqual({ success: true, data: { id: next.id, deleted: true } });
    const stages = await ctx.database.db.selectFrom('stages').select('id').where('pipeline_id', '=', next.id).execute();
    expect(stages).toEqual([]);
  });

  it('refuses to delete a pipeline that an active form uses, naming the form; allows it once the form is inactive', async () => {
    const pipeline = await create(org, 'Webinars', ['Registered', 'Attended']);
    const form = await insertForm(org.orgId, { active: true, pipelineId: pipeline.id, title: 'Webinar sign-up' });
    const res = await call('DELETE', `/api/org/pipelines/${pipeline.id}`, org);
    expect(res.statusCode).toBe(409);
    expect(res.json()).toMatchObject({ code: 'CONFLICT', forms: [{ id: form.id, slug: form.slug, title: 'Webinar sign-up' }] });
    expect(res.json().error).toContain('Webinar sign-up');
    expect((await call('GET', `/api/org/pipelines/${pipeline.id}`, org)).statusCode).toBe(200);
    await ctx.database.db.updateTable('forms').set({ active: 0 }).where('id', '=', form.id).execute();
    expect((await call('DELETE', `/api/org/pipelines/${pipeline.id}`, org)).statusCode).toBe(200);
  });

  it('refuses to delete a pipeline whose stage an active form uses', async () => {
    const pipeline = await create(org, 'Events', ['Invited', 'Came']);
    await insertForm(org.orgId, { active: true, stageId: pipeline.stages[1]!.id, title: 'RSVP' });
    const res = await call('DELETE', `/api/org/pipelines/${pipeline.id}`, org);
    expect(res.statusCode).toBe(409);
    expect(res.json().error).toContain('RSVP');
  });

  it('refuses to delete a stage that an active form uses, by either route', async () => {
    const pipeline = await create(org, 'Demos', ['Booked', 'Done']);
    const [booked, done] = pipeline.stages as [Stage, Stage];
    await insertForm(org.orgId, { active: true, pipelineId: pipeline.id, stageId: booked.id, title: 'Book a demo' });
    const direct = await call('DELETE', `/api/org/pipelines/${pipeline.id}/stages/${booked.id}`, org);
    expect(direct.statusCode).toBe(409);
    expect(direct.json().error).toContain('Book a demo');
    const viaPatch = await call('PATCH', `/api/org/pipelines/${pipeline.id}`, org, { name: 'Renamed', stages: [{ id: done.id, name: 'Done' }] });
    expect(viaPatch.statusCode).toBe(409);
    const after = (await call('GET', `/api/org/pipelines/${pipeline.id}`, org)).json().data;
    expect(after.name).toBe('Demos');
    expect(after.stages.map((s: Stage) => s.id)).toEqual([booked.id, done.id]);
    // The other stage is free: deleting it closes the gap in positions.
    const removed = await call('DELETE', `/api/org/pipelines/${pipeline.id}/stages/${done.id}`, org);
    expect(removed.statusCode).toBe(200);
    expect(removed.json().data.stages).toEqual([{ id: booked.id, name: 'Booked', position: 0 }]);
  });

  it('ignores inactive forms, but refuses while opportunities sit in the stage', async () => {
    const pipeline = await create(org, 'Renewals', ['Due', 'Renewed', 'Churned']);
    const [due, renewed, churned] = pipeline.stages as [Stage, Stage, Stage];
    await insertForm(org.orgId, { active: false, stageId: due.id });
    expect((await call('DELETE', `/api/org/pipelines/${pipeline.id}/stages/${due.id}`, org)).statusCode).toBe(200);
    const opportunity = await insertOpportunity(org, pipeline.id, renewed.id);
    const refused = await call('DELETE', `/api/org/pipelines/${pipeline.id}/stages/${renewed.id}`, org);
    expect(refused.statusCode).toBe(409);
    expect(refused.json().error).toMatch(/1 opportunity/);
    expect((await call('DELETE', `/api/org/pipelines/${pipeline.id}`, org)).statusCode).toBe(409);
    await call('PATCH', `/api/org/opportunities/${opportunity.id}`, org, { stageId: churned.id });
    expect((await call('DELETE', `/api/org/pipelines/${pipeline.id}/stages/${renewed.id}`, org)).statusCode).toBe(200);
  });

  it('refuses to delete the last stage', async () => {
    const pipeline = await create(org, 'Solo', ['Only']);
    const res = await call('DELETE', `/api/org/pipelines/${pipeline.id}/stages/${pipeline.stages[0]!.id}`, org);
    expect(res.statusCode).toBe(409);
  });

  it.each([
    ['no stages', { name: 'X', stages: [] }],
    ['a blank name', { name: '  ', stages: [{ name: 'A' }] }],
    ['a blank stage', { name: 'X', stages: [{ name: ' ' }] }],
    ['duplicate stage names', { name: 'X', stages: [{ name: 'A' }, { name: 'a' }] }],
    ['stages as strings', { name: 'X', stages: ['A'] }],
    ['too many stages', { name: 'X', stages: Array.from({ length: 51 }, (_, i) => ({ name: `S${i}` })) }],
    ['an unknown field', { name: 'X', stages: [{ name: 'A' }], color: 'red' }],
    ['a stage id on create', { name: 'X', stages: [{ id: 'stg_x', name: 'A' }] }],
  ])('refuses %s on create with VALIDATION_ERROR', async (_what, body) => {
    const count = async () => (await ctx.database.db.selectFrom('pipelines').select('id').where('org_id', '=', org.orgId).execute()).length;
    const before = await count();
    const res = await call('POST', '/api/org/pipelines', org, body);
    expect(res.statusCode).toBe(400);
    expect(res.json().code).toBe('VALIDATION_ERROR');
    expect(await count()).toBe(before);
  });

  it("refuses stage ids from elsewhere in an update, and isDefault false", async () => {
    const pipeline = await create(org, 'Guarded', ['A', 'B']);
    const foreign = await call('PATCH', `/api/org/pipelines/${pipeline.id}`, org, { stages: [{ id: other.defaultPipeline.stages[0]!.id, name: 'Stolen' }] });
    expect(foreign.statusCode).toBe(400);
    expect(foreign.json()).toMatchObject({ code: 'VALIDATION_ERROR', field: 'stages.0.id' });
    const twice = await call('PATCH', `/api/org/pipelines/${pipeline.id}`, org, { stages: [{ id: pipeline.stages[0]!.id, name: 'A' }, { id: pipeline.stages[0]!.id, name: 'A2' }] });
    expect(twice.statusCode).toBe(400);
    expect((await call('PATCH', `/api/org/pipelines/${pipeline.id}`, org, { isDefault: false })).statusCode).toBe(400);
    expect((await call('PATCH', `/api/org/pipelines/${pipeline.id}`, org, {})).statusCode).toBe(400);
    expect((await call('GET', `/api/org/pipelines/${pipeline.id}`, org)).json().data.stages.map((s: Stage) => s.name)).toEqual(['A', 'B']);
    const theirStage = await ctx.database.db.selectFrom('stages').select('name').where('id', '=', other.defaultPipeline.stages[0]!.id).executeTakeFirstOrThrow();
    expect(theirStage.name).toBe('New');
  });

  it("answers 404 for another org's pipeline or stage on every route, and leaves them alone", async () => {
    const theirs = other.defaultPipeline;
    const mine = await create(org, 'Mine', ['A', 'B']);
    const attempts = [
      ['GET', `/api/org/pipelines/${theirs.id}`, undefined],
      ['PATCH', `/api/org/pipelines/${theirs.id}`, { name: 'Taken' }],
      ['DELETE', `/api/org/pipelines/${theirs.id}`, undefined],
      ['DELETE', `/api/org/pipelines/${theirs.id}/stages/${theirs.stages[0]!.id}`, undefined],
      ['DELETE', `/api/org/pipelines/${mine.id}/stages/${theirs.stages[0]!.id}`, undefined],
      ['GET', `/api/org/pipelines/${newId('pipe')}`, undefined],
    ] as const;
    for (const [method, url, body] of attempts) {
      const res = await call(method, url, org, body);
      expect(res.statusCode, `${method} ${url}`).toBe(404);
      expect(res.json().code).toBe('NOT_FOUND');
    }
    const still = (await call('GET', `/api/org/pipelines/${theirs.id}`, other)).json().data;
    expect(still.name).toBe('Sales');
    expect(still.stages).toHaveLength(5);
  });

  it('asks for credentials', async () => {
    expect((await call('GET', '/api/org/pipelines', null)).statusCode).toBe(401);
    expect((await call('DELETE', `/api/org/pipelines/${org.defaultPipeline.id}`, null)).statusCode).toBe(401);
  });
});
