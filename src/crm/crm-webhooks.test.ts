import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { testDialects } from '../../test/support/context.js';
import { createPipeline } from '../../test/support/form-factories.js';
import { startHttpsEndpoint, type HttpsEndpoint } from '../../test/support/https-endpoint.js';
import { toolHostResolver } from '../../test/support/invocation-factories.js';
import { createOrgWithKey, orgCaller, type OrgWithKey } from '../../test/support/org-factories.js';
import { createWebhookTestContext, type WebhookTestContext } from '../../test/support/webhook-context.js';

/**
 * The Operator API's contact and opportunity writes emit contact.created / contact.updated,
 * opportunity.created and opportunity.stage_changed (docs/webhooks.md) through the outbox, in the
 * write's transaction; a refused write emits nothing. Delivered to a loopback HTTPS receiver.
 */
describe.each(testDialects())('CRM webhook events on %s', (dialect) => {
  let t: WebhookTestContext;
  let receiver: HttpsEndpoint;
  let org: OrgWithKey;
  let call: ReturnType<typeof orgCaller>;

  beforeAll(async () => {
    receiver = await startHttpsEndpoint();
    t = await createWebhookTestContext(dialect, {
      env: { TOOL_ALLOW_PRIVATE_ENDPOINTS: '1', TOOL_CA_FILE: receiver.caFile, TOOL_CALL_TIMEOUT_MS: '2000' },
      resolveHost: toolHostResolver(),
    });
    call = orgCaller(t.app);
  });
  afterAll(async () => {
    await t.close();
    await receiver.close();
  });
  beforeEach(async () => {
    org = await createOrgWithKey(t.database, t.clock);
    receiver.reset();
  });

  async function webhook(events: string[]) {
    const res = await call('POST', '/api/org/webhooks', org, { url: receiver.url('/hook'), events });
    expect(res.statusCode, res.body).toBe(201);
  }
  async function delivered(): Promise<Array<{ type: string; data: Record<string, unknown> }>> {
    await t.services.webhookWorker.runUntilIdle();
    const bodies = receiver.requests.map((request) => JSON.parse(request.body.toString('utf8')));
    receiver.reset();
    return bodies;
  }
  const eventCount = async () => (await t.database.db.selectFrom('webhook_events').select('id').where('org_id', '=', org.orgId).execute()).length;
  const contactJson = async (id: string) => {
    const { notes: _n, opportunities: _o, submissions: _s, ...contact } = (await call('GET', `/api/org/contacts/${id}`, org)).json().data;
    return contact;
  };

  it('contact create and update emit contact.created and contact.updated with the contact as GET answers it; a refused write emits nothing', async () => {
    await webhook(['contact.created', 'contact.updated']);
    const created = await call('POST', '/api/org/contacts', org, { email: 'grace@example.com', name: 'Grace' });
    expect(created.statusCode, created.body).toBe(201);
    const id = created.json().data.id as string;
    expect(await delivered()).toEqual([{ id: expect.stringMatching(/^evt_/), type: 'contact.created', createdAt: expect.any(String), data: { contact: await contactJson(id) } }]);

    expect((await call('PATCH', `/api/org/contacts/${id}`, org, { company: 'Navy' })).statusCode).toBe(200);
    const [updated, ...rest] = await delivered();
    expect(rest).toEqual([]);
    expect(updated).toMatchObject({ type: 'contact.updated', data: { contact: await contactJson(id) } });
    expect((updated!.data.contact as { company: string }).company).toBe('Navy');

    // Refused: the email is taken (409), or the change would leave no identity (422). No event row is written.
    const before = await eventCount();
    const taken = await call('POST', '/api/org/contacts', org, { email: 'grace@example.com' });
    expect(taken.statusCode).toBe(409);
    expect(taken.json()).toMatchObject({ success: false, code: 'CONFLICT' });
    const other = (await call('POST', '/api/org/contacts', org, { email: 'ada@example.com' })).json().data.id as string;
    await delivered();
    const clash = await call('PATCH', `/api/org/contacts/${other}`, org, { email: 'grace@example.com' });
    expect(clash.statusCode).toBe(409);
    expect(await eventCount()).toBe(before + 1);
    expect(await delivered()).toEqual([]);
    expect((await contactJson(other)).email).toBe('ada@example.com');
  });

  it('opportunity create emits opportunity.created; a stage move emits opportunity.stage_changed, a rename nothing', async () => {
    await webhook(['opportunity.created', 'opportunity.stage_changed']);
    const contact = (await call('POST', '/api/org/contacts', org, { email: 'lin@example.com' })).json().data.id as string;
    const pipeline = await createPipeline(t.app, org, ['New', 'Won']);
    const [first, second] = pipeline.stages;
    const res = await call('POST', '/api/org/opportunities', org, { contactId: contact, pipelineId: pipeline.id, title: 'Roof repair' });
    expect(res.statusCode, res.body).toBe(201);
    const id = res.json().data.id as string;
    const opportunity = async () => (await call('GET', `/api/org/opportunities/${id}`, org)).json().data;
    expect(await delivered()).toEqual([{ id: expect.stringMatching(/^evt_/), type: 'opportunity.created', createdAt: expect.any(String), data: { opportunity: await opportunity() } }]);

    expect((await call('PATCH', `/api/org/opportunities/${id}`, org, { title: 'Roof and gutters' })).statusCode).toBe(200);
    expect(await delivered()).toEqual([]);
    expect((await call('PATCH', `/api/org/opportunities/${id}`, org, { stageId: second!.id })).statusCode).toBe(200);
    expect(await delivered()).toEqual([
      { id: expect.stringMatching(/^evt_/), type: 'opportunity.stage_changed', createdAt: expect.any(String), data: { opportunity: await opportunity(), previousStageId: first!.id, stageId: second!.id } },
    ]);
    // The same stage again is no change.
    expect((await call('PATCH', `/api/org/opportunities/${id}`, org, { stageId: second!.id })).statusCode).toBe(200);
    expect(await delivered()).toEqual([]);

    // Refused (an unknown contact): nothing written.
    const before = await eventCount();
    const refused = await call('POST', '/api/org/opportunities', org, { contactId: 'ct_0000000000000000000000', title: 'Nobody' });
    expect(refused.statusCode).toBe(404);
    expect(refused.json()).toMatchObject({ success: false, code: 'CONTACT_NOT_FOUND' });
    expect(await eventCount()).toBe(before);
  });

  it('an org without webhooks writes no event rows for CRM writes', async () => {
    const contact = (await call('POST', '/api/org/contacts', org, { email: 'plain@example.com' })).json().data.id as string;
    expect((await call('PATCH', `/api/org/contacts/${contact}`, org, { name: 'Plain' })).statusCode).toBe(200);
    const pipeline = await createPipeline(t.app, org, ['A', 'B']);
    const opp = (await call('POST', '/api/org/opportunities', org, { contactId: contact, pipelineId: pipeline.id, title: 'Deal' })).json().data.id as string;
    expect((await call('PATCH', `/api/org/opportunities/${opp}`, org, { stageId: pipeline.stages[1]!.id })).statusCode).toBe(200);
    expect(await eventCount()).toBe(0);
    expect(await delivered()).toEqual([]);
  });
});
