import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { testDialects } from '../../test/support/context.js';
import { createForm, createPipeline, getConfig, submit } from '../../test/support/form-factories.js';
import { newContactRow } from '../crm/service.js';
import { newTimeOrderedId } from '../lib/ids.js';
import { createNewLeadWriter } from './new-lead-statement.js';
import { createWebhooksRepo } from '../webhooks/repo.js';
import type { Subscriptions } from '../webhooks/subscriptions.js';
import { startHttpsEndpoint, type HttpsEndpoint } from '../../test/support/https-endpoint.js';
import { toolHostResolver } from '../../test/support/invocation-factories.js';
import { createOrgWithKey, orgCaller, type OrgWithKey } from '../../test/support/org-factories.js';
import { createWebhookTestContext, type WebhookTestContext } from '../../test/support/webhook-context.js';

/**
 * A form submission's webhook events (docs/webhooks.md), end to end: submitted through the public API,
 * written by the outbox in the submission's transaction, delivered by the worker to a loopback HTTPS
 * receiver. On PostgreSQL a new person's submission is first tried as one statement
 * (new-lead-statement.ts), which writes its events with it.
 */
describe.each(testDialects())('submission webhook events on %s', (dialect) => {
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

  async function webhook(events: string[], who: OrgWithKey = org) {
    const res = await call('POST', '/api/org/webhooks', who, { url: receiver.url('/hook'), events });
    expect(res.statusCode, res.body).toBe(201);
    return res.json().data as { id: string };
  }
  /** Delivers what is due and answers the bodies received, in order. */
  async function delivered(): Promise<Array<{ id: string; type: string; createdAt: string; data: Record<string, unknown> }>> {
    await t.services.webhookWorker.runUntilIdle();
    return receiver.requests.map((request) => JSON.parse(request.body.toString('utf8')));
  }
  const eventRows = async (orgId: string) => {
    await t.dispatch();
    return t.database.db.selectFrom('webhook_events').selectAll().where('org_id', '=', orgId).execute();
  };
  const contactJson = async (id: string) => {
    const { notes: _n, opportunities: _o, submissions: _s, ...contact } = (await call('GET', `/api/org/contacts/${id}`, org)).json().data;
    return contact;
  };

  it('a new lead emits contact.created, opportunity.created and submission.created with the documented payloads', async () => {
    await webhook(['submission.created', 'contact.created', 'contact.updated', 'opportunity.created']);
    const form = await createForm(t.app, org, { createOpportunity: true, fields: { message: { enabled: true, required: false } } });
    // The form's opportunity target is cached: on PostgreSQL the one-statement path is tried first.
    expect((await getConfig(t.app, form.slug)).statusCode).toBe(200);
    const res = await submit(t.app, form.slug, {
      consentVersion: form.consentVersion, email: 'Ada@Example.com', name: 'Ada', message: 'Call me',
      metadata: { utm_source: 'newsletter', utm_campaign: 'spring' },
    });
    expect(res.statusCode, res.body).toBe(200);
    const submission = await t.database.db.selectFrom('submissions').selectAll().where('form_id', '=', form.id).executeTakeFirstOrThrow();
    expect(submission.opportunity_id).not.toBeNull();

    const bodies = await delivered();
    expect(bodies.map((body) => body.type).sort()).toEqual(['contact.created', 'opportunity.created', 'submission.created']);
    const byType = Object.fromEntries(bodies.map((body) => [body.type, body]));
    expect(byType['submission.created']!.data).toEqual({
      submissionId: submission.id,
      form: { id: form.id, slug: form.slug, title: form.title },
      values: { email: 'ada@example.com', name: 'Ada', message: 'Call me' },
      custom: {},
      consentVersion: form.consentVersion,
      utm: { source: 'newsletter', medium: null, campaign: 'spring', term: null, content: null },
      contact: { id: submission.contact_id, created: true },
      opportunityId: submission.opportunity_id,
    });
    expect(byType['contact.created']!.data).toEqual({ contact: await contactJson(submission.contact_id) });
    const opportunity = (await call('GET', `/api/org/opportunities/${submission.opportunity_id}`, org)).json().data;
    expect(byType['opportunity.created']!.data).toEqual({ opportunity });

    // The same person again: contact.updated, and submission.created says the contact was not created.
    receiver.reset();
    expect((await submit(t.app, form.slug, { consentVersion: form.consentVersion, email: 'ada@example.com', name: 'Ada Lovelace' })).statusCode).toBe(200);
    const again = await delivered();
    expect(again.map((body) => body.type).sort()).toEqual(['contact.updated', 'opportunity.created', 'submission.created']);
    const updated = again.find((body) => body.type === 'contact.updated')!;
    expect(updated.data).toEqual({ contact: await contactJson(submission.contact_id) });
    expect((updated.data.contact as { name: string }).name).toBe('Ada Lovelace');
    expect(again.find((body) => body.type === 'submission.created')!.data).toMatchObject({ contact: { id: submission.contact_id, created: false } });
  });

  it('a submission refused mid-transaction emits nothing', async () => {
    await webhook(['submission.created', 'contact.created', 'opportunity.created']);
    const pipeline = await createPipeline(t.app, org);
    const form = await createForm(t.app, org, { createOpportunity: true, pipelineId: pipeline.id });
    expect((await getConfig(t.app, form.slug)).statusCode).toBe(200);
    // Deleted behind the API's back (it refuses while a form uses it): the contact is written, then the opportunity fails.
    await t.database.db.deleteFrom('stages').where('pipeline_id', '=', pipeline.id).execute();
    await t.database.db.deleteFrom('pipelines').where('id', '=', pipeline.id).execute();
    const res = await submit(t.app, form.slug, { consentVersion: form.consentVersion, email: 'lost@example.com' });
    expect(res.statusCode).toBe(422);
    expect(res.json()).toMatchObject({ success: false, code: 'PIPELINE_NOT_FOUND' });
    expect(await t.database.db.selectFrom('contacts').select('id').where('org_id', '=', org.orgId).execute()).toEqual([]);
    expect(await eventRows(org.orgId)).toEqual([]);
    expect(await delivered()).toEqual([]);
  });

  it('an org without webhooks, or without these events, writes no event rows', async () => {
    const form = await createForm(t.app, org, { createOpportunity: true });
    expect((await getConfig(t.app, form.slug)).statusCode).toBe(200);
    expect((await submit(t.app, form.slug, { consentVersion: form.consentVersion, email: 'quiet@example.com' })).statusCode).toBe(200);
    expect((await submit(t.app, form.slug, { consentVersion: form.consentVersion, email: 'quiet@example.com', name: 'Again' })).statusCode).toBe(200);
    await webhook(['tool_call.failed']);
    expect((await submit(t.app, form.slug, { consentVersion: form.consentVersion, email: 'other@example.com' })).statusCode).toBe(200);
    // A disabled endpoint receives nothing either.
    const off = await webhook(['submission.created']);
    expect((await call('PATCH', `/api/org/webhooks/${off.id}`, org, { enabled: false })).statusCode).toBe(200);
    expect((await submit(t.app, form.slug, { consentVersion: form.consentVersion, email: 'third@example.com' })).statusCode).toBe(200);
    expect(await t.database.db.selectFrom('submissions').select('id').where('form_id', '=', form.id).execute()).toHaveLength(4);
    expect(await eventRows(org.orgId)).toEqual([]);
    expect(await delivered()).toEqual([]);
  });

  it.runIf(dialect === 'postgres')('the one-statement new lead writes its events with it, and never against stale subscriptions', async () => {
    const writer = createNewLeadWriter(t.database.db, createWebhooksRepo(t.database.db));
    const rows = (email: string, formId: string) => {
      const now = t.clock.now().toISOString();
      const contact = newContactRow({ orgId: org.orgId, email }, { email, phone: null }, 'form', now);
      const submission = { id: newTimeOrderedId('sub', now), org_id: org.orgId, form_id: formId, contact_id: contact.id, opportunity_id: null, field_values: '{}', custom: '{}', consent_version: '1', metadata: '{}', ip: null, user_agent: null, created_at: now, values_cleared_at: null, conversation_id: null };
      return { contact, note: null, opportunity: null, submission, notice: null };
    };
    const contactCreated = (lead: ReturnType<typeof rows>) => (subscriptions: Subscriptions) =>
      subscriptions.has('contact.created') ? [{ orgId: org.orgId, type: 'contact.created' as const, data: { contact: { id: lead.contact.id } } }] : [];
    const form = await createForm(t.app, org);
    // No webhooks: the lead alone, one statement; the node now keeps the org's (empty) subscriptions.
    const first = rows('fast@example.com', form.id);
    expect(await writer(first, contactCreated(first))).toBe('written');
    expect(await writer(rows('fast@example.com', form.id), contactCreated(first))).toBe('not-new');
    expect(await eventRows(org.orgId)).toEqual([]);

    // A webhook added behind the node's back (as on another node): the kept subscriptions are stale, the
    // statement writes nothing, reads them again and writes the lead with its event and delivery.
    const hook = await webhook(['contact.created']);
    const second = rows('second@example.com', form.id);
    expect(await writer(second, contactCreated(second))).toBe('written');
    const events = await eventRows(org.orgId);
    expect(events.map((event) => [event.type, JSON.parse(event.payload)])).toEqual([['contact.created', { contact: { id: second.contact.id } }]]);
    const deliveries = await t.database.db.selectFrom('webhook_deliveries').selectAll().where('org_id', '=', org.orgId).execute();
    expect(deliveries).toMatchObject([{ endpoint_id: hook.id, event_id: events[0]!.id, status: 'pending', attempts: 0, next_attempt_at: second.submission.created_at }]);

    // Disabled: stale again; the next lead is written without an event.
    expect((await call('PATCH', `/api/org/webhooks/${hook.id}`, org, { enabled: false })).statusCode).toBe(200);
    const third = rows('third@example.com', form.id);
    expect(await writer(third, contactCreated(third))).toBe('written');
    expect(await eventRows(org.orgId)).toHaveLength(1);
    expect(await t.database.db.selectFrom('contacts').select('email').where('org_id', '=', org.orgId).orderBy('email').execute())
      .toEqual([{ email: 'fast@example.com' }, { email: 'second@example.com' }, { email: 'third@example.com' }]);
  });

  it('another org\'s webhook receives nothing of this org\'s submissions', async () => {
    const other = await createOrgWithKey(t.database, t.clock);
    await webhook(['submission.created', 'contact.created'], other);
    const form = await createForm(t.app, org);
    expect((await submit(t.app, form.slug, { consentVersion: form.consentVersion, email: 'mine@example.com' })).statusCode).toBe(200);
    expect(await eventRows(org.orgId)).toEqual([]);
    expect(await eventRows(other.orgId)).toEqual([]);
    expect(await delivered()).toEqual([]);
  });
});
