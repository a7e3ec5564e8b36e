import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestContext, testDialects, type TestContext } from '../test/support/context.js';
import { createAgent, createForm } from '../test/support/form-factories.js';
import { createOrgWithKey, orgCaller, type OrgWithKey } from '../test/support/org-factories.js';
import { createExpiryPurger, type ExpiryPurge } from './db/expiry-purger.js';
import { randomBase62 } from './lib/ids.js';
import { Repos } from './repos.js';
import { RETENTION_BATCHES_PER_RUN, retentionPurges } from './retention-purges.js';

/**
 * Each organization's retention settings applied by the expiry purger (docs/privacy.md, "Retention"), with the
 * test's clock: what is older than the setting goes (submissions' values cleared, the rows kept), what is newer
 * stays, organizations without a setting or with another keep theirs, and the batches stay bounded.
 */
const DAY = 86_400_000;
const quietLog = { debug: () => {}, warn: () => {} };
const id = (prefix: string) => `${prefix}_${randomBase62(20)}`;

interface Seeded {
  org: OrgWithKey;
  formId: string;
  contactId: string;
  agentId: string;
  endpointId: string;
  eventId: string;
}

describe.each(testDialects())('retention purges on %s', (dialect) => {
  let t: TestContext;
  let call: ReturnType<typeof orgCaller>;
  let purges: ExpiryPurge[];

  beforeAll(async () => {
    t = await createTestContext(dialect);
    call = orgCaller(t.app);
    purges = retentionPurges(new Repos(t.database.db));
  });
  afterAll(async () => {
    await t.close();
  });

  const db = () => t.database.db;
  const ago = (ms: number) => new Date(t.clock.now().getTime() - ms).toISOString();

  /** The purger over the retention purges (or those named), each batch's count recorded. */
  function purger(options: { batchSize?: number; only?: string } = {}) {
    const batches: number[] = [];
    const recorded = purges.filter((p) => options.only === undefined || p.name === options.only).map((p): ExpiryPurge => ({
      ...p,
      purgeBatch: async (now, limit) => {
        const n = await p.purgeBatch(now, limit);
        batches.push(n);
        return n;
      },
    }));
    return { purger: createExpiryPurger({ purges: recorded, clock: t.clock, log: quietLog, schedule: { batchSize: options.batchSize ?? 500, pauseMs: 0 } }), batches };
  }

  async function seedOrg(retention: Record<string, number> | null): Promise<Seeded> {
    const org = await createOrgWithKey(t.database, t.clock);
    if (retention) {
      const set = await call('PATCH', '/api/org/organization', org, { retention });
      expect(set.statusCode, set.body).toBe(200);
    }
    const formId = (await createForm(t.app, org)).id;
    const agentId = (await createAgent(t.app, org)).id;
    const now = t.clock.now().toISOString();
    const contactId = id('ct');
    await db().insertInto('contacts').values({ id: contactId, org_id: org.orgId, email: `${contactId.toLowerCase()}@example.com`, phone: null, name: 'Ada', company: null, source: 'form', custom: '{}', created_at: now, updated_at: now }).execute();
    const endpointId = id('whe');
    await db().insertInto('webhook_endpoints').values({ id: endpointId, org_id: org.orgId, url: 'https://hooks.example.com/in', events: '["contact.created"]', description: null, secret_sealed: 'sealed', secret_key_id: 'k1', enabled: 1, disabled_reason: null, failing_since: null, created_at: now, updated_at: now }).execute();
    const eventId = id('evt');
    await db().insertInto('webhook_events').values({ id: eventId, org_id: org.orgId, type: 'contact.created', payload: '{}', created_at: now }).execute();
    return { org, formId, contactId, agentId, endpointId, eventId };
  }

  async function addSubmissions(s: Seeded, createdAt: string, count = 1): Promise<string[]> {
    const rows = Array.from({ length: count }, () => ({
      id: id('sub'), org_id: s.org.orgId, form_id: s.formId, contact_id: s.contactId, opportunity_id: null,
      field_values: '{"email":"ada@example.com","message":"Call me"}', custom: '{"size":"L"}', consent_version: '1',
      metadata: '{"utm_source":"news"}', ip: '203.0.113.9', user_agent: 'Firefox', created_at: createdAt, values_cleared_at: null,
    }));
    for (let i = 0; i < rows.length; i += 200) await db().insertInto('submissions').values(rows.slice(i, i + 200)).execute();
    return rows.map((row) => row.id);
  }

  async function addConversation(s: Seeded, lastActive: string, options: { messages?: number; turnRunning?: boolean } = {}): Promise<string> {
    const conversationId = id('conv');
    await db().insertInto('conversations').values({
      id: conversationId, org_id: s.org.orgId, agent_id: s.agentId, source: 'widget', message_count: options.messages ?? 2, input_tokens: 0, output_tokens: 0,
      turn_started_at: options.turnRunning ? lastActive : null, turn_reserved_tokens: 0, created_at: lastActive, updated_at: lastActive, page_url: null, utm: null,
      status: 'bot', assignee_id: null, handoff_requested_at: null, handoff_deadline_at: null,
    }).execute();
    const messages = Array.from({ length: options.messages ?? 2 }, (_, seq) => ({
      id: id('msg'), conversation_id: conversationId, seq, role: seq % 2 === 0 ? 'user' : 'assistant', content: `Message ${seq}`, status: 'complete',
      error_code: null, tool_call_id: null, tool_name: null, tool_arguments: null, tool_result: null, tool_outcome: null, tool_duration_ms: null, call_id: null,
      input_tokens: null, output_tokens: null, created_at: lastActive, author_id: null, author_name: null, event_data: null,
    }));
    for (let i = 0; i < messages.length; i += 200) await db().insertInto('conversation_messages').values(messages.slice(i, i + 200)).execute();
    return conversationId;
  }

  async function addToolCall(s: Seeded, createdAt: string): Promise<string> {
    const callId = id('call');
    await db().insertInto('tool_calls').values({
      id: callId, org_id: s.org.orgId, agent_id: s.agentId, tool_id: 'tool_x', revision_id: 'rev_x', installation_id: 'inst_x', path: 'operator', outcome: 'OK',
      http_status: 200, duration_ms: 5, request_bytes: 10, response_bytes: 10, created_at: createdAt, conversation_id: null,
    }).execute();
    return callId;
  }

  async function addDelivery(s: Seeded, createdAt: string, status: 'pending' | 'succeeded' = 'succeeded'): Promise<string> {
    const deliveryId = id('whd');
    await db().insertInto('webhook_deliveries').values({
      id: deliveryId, org_id: s.org.orgId, endpoint_id: s.endpointId, event_id: s.eventId, status, attempts: 1, next_attempt_at: status === 'pending' ? createdAt : null,
      locked_until: null, last_status: 200, last_duration_ms: 5, last_error: null, request_body: '{"contact":{"email":"ada@example.com"}}', response_body: 'ok',
      created_at: createdAt, updated_at: createdAt, delivered_at: status === 'pending' ? null : createdAt,
    }).execute();
    return deliveryId;
  }

  const submission = (subId: string) => db().selectFrom('submissions').selectAll().where('id', '=', subId).executeTakeFirst();
  const cleared = async (subId: string) => {
    const row = await submission(subId);
    expect(row, subId).toBeDefined();
    return row!.values_cleared_at !== null && row!.field_values === '{}' && row!.custom === '{}' && row!.metadata === '{}' && row!.ip === null && row!.user_agent === null;
  };
  const conversationExists = async (conversationId: string) => (await db().selectFrom('conversations').select('id').where('id', '=', conversationId).executeTakeFirst()) !== undefined;
  const messagesOf = async (conversationId: string) => (await db().selectFrom('conversation_messages').select('id').where('conversation_id', '=', conversationId).execute()).length;
  const callExists = async (callId: string) => (await db().selectFrom('tool_calls').select('id').where('id', '=', callId).executeTakeFirst()) !== undefined;
  const bodyKept = async (deliveryId: string) => {
    const row = await db().selectFrom('webhook_deliveries').select(['request_body', 'response_body']).where('id', '=', deliveryId).executeTakeFirstOrThrow();
    return row.request_body !== null && row.response_body !== null;
  };
  const formCounts = async (s: Seeded) => (await call('GET', `/api/org/forms/${s.formId}`, s.org)).json().data.submissions as number;

  it('removes what is older than each organization\'s setting, keeps what is newer, and leaves organizations without a setting (or with another) alone', async () => {
    const thirty = await seedOrg({ submissionsDays: 30, conversationsDays: 30, callLogDays: 30, webhookBodiesDays: 2 });
    const unset = await seedOrg(null);
    const ninety = await seedOrg({ submissionsDays: 90, conversationsDays: 90, callLogDays: 90, webhookBodiesDays: 5 });
    const rows = async (s: Seeded) => ({
      subs: { d100: (await addSubmissions(s, ago(100 * DAY)))[0]!, d60: (await addSubmissions(s, ago(60 * DAY)))[0]!, d10: (await addSubmissions(s, ago(10 * DAY)))[0]! },
      convs: { d100: await addConversation(s, ago(100 * DAY), { messages: 3 }), d60: await addConversation(s, ago(60 * DAY)), d10: await addConversation(s, ago(10 * DAY)), running: await addConversation(s, ago(100 * DAY), { turnRunning: true }) },
      calls: { d100: await addToolCall(s, ago(100 * DAY)), d60: await addToolCall(s, ago(60 * DAY)), d10: await addToolCall(s, ago(10 * DAY)) },
      deliveries: { d6: await addDelivery(s, ago(6 * DAY)), d3: await addDelivery(s, ago(3 * DAY)), h1: await addDelivery(s, ago(3_600_000)), pending: await addDelivery(s, ago(6 * DAY), 'pending') },
    });
    const [a, b, c] = [await rows(thirty), await rows(unset), await rows(ninety)];
    const countsBefore = await Promise.all([thirty, unset, ninety].map(formCounts));
    expect(countsBefore).toEqual([3, 3, 3]);

    const { purger: run } = purger();
    const deleted = await run.runOnce();
    expect(deleted).toEqual({
      'submissions (retention)': 3, // 30 days: 100 and 60 days old; 90 days: 100 days old
      'conversations (retention)': (3 + 2) + 2 + 3 + 1, // messages, then conversations: 100 (3 messages) and 60 days old at 30 days; 100 days old at 90
      'tool_calls (retention)': 3,
      'webhook_deliveries (bodies, retention)': 3, // 2 days: 6 and 3 days old; 5 days: 6 days old
    });

    // 30 days
    expect([await cleared(a.subs.d100), await cleared(a.subs.d60), await cleared(a.subs.d10)]).toEqual([true, true, false]);
    expect(await submission(a.subs.d10)).toMatchObject({ field_values: '{"email":"ada@example.com","message":"Call me"}', ip: '203.0.113.9', values_cleared_at: null });
    expect(await submission(a.subs.d100)).toMatchObject({ form_id: thirty.formId, contact_id: thirty.contactId, consent_version: '1' });
    expect([await conversationExists(a.convs.d100), await conversationExists(a.convs.d60), await conversationExists(a.convs.d10), await conversationExists(a.convs.running)]).toEqual([false, false, true, true]);
    expect([await messagesOf(a.convs.d100), await messagesOf(a.convs.d10), await messagesOf(a.convs.running)]).toEqual([0, 2, 2]);
    expect([await callExists(a.calls.d100), await callExists(a.calls.d60), await callExists(a.calls.d10)]).toEqual([false, false, true]);
    expect([await bodyKept(a.deliveries.d6), await bodyKept(a.deliveries.d3), await bodyKept(a.deliveries.h1), await bodyKept(a.deliveries.pending)]).toEqual([false, false, true, true]);
    expect(await db().selectFrom('webhook_deliveries').select('id').where('id', '=', a.deliveries.d6).executeTakeFirst()).toBeDefined();
    // No setting: everything as it was.
    expect([await cleared(b.subs.d100), await cleared(b.subs.d60), await cleared(b.subs.d10)]).toEqual([false, false, false]);
    expect([await conversationExists(b.convs.d100), await conversationExists(b.convs.d60), await messagesOf(b.convs.d100)]).toEqual([true, true, 3]);
    expect([await callExists(b.calls.d100), await callExists(b.calls.d60)]).toEqual([true, true]);
    expect([await bodyKept(b.deliveries.d6), await bodyKept(b.deliveries.d3)]).toEqual([true, true]);
    // 90 days
    expect([await cleared(c.subs.d100), await cleared(c.subs.d60), await cleared(c.subs.d10)]).toEqual([true, false, false]);
    expect([await conversationExists(c.convs.d100), await conversationExists(c.convs.d60), await conversationExists(c.convs.d10)]).toEqual([false, true, true]);
    expect([await callExists(c.calls.d100), await callExists(c.calls.d60), await callExists(c.calls.d10)]).toEqual([false, true, true]);
    expect([await bodyKept(c.deliveries.d6), await bodyKept(c.deliveries.d3), await bodyKept(c.deliveries.h1)]).toEqual([false, true, true]);

    // Form analytics count the cleared submissions still; a second run finds nothing more to do.
    expect(await Promise.all([thirty, unset, ninety].map(formCounts))).toEqual(countsBefore);
    expect(Object.values(await run.runOnce())).toEqual([0, 0, 0, 0]);

    // Time passes: what was 10 days old is now 35, past 30 days but not 90.
    t.clock.advance(25 * DAY);
    await run.runOnce();
    expect([await cleared(a.subs.d10), await conversationExists(a.convs.d10), await callExists(a.calls.d10)]).toEqual([true, false, false]);
    expect([await cleared(c.subs.d60), await conversationExists(c.convs.d60), await callExists(c.calls.d60)]).toEqual([false, true, true]);
    expect([await cleared(b.subs.d10), await conversationExists(b.convs.d10), await callExists(b.calls.d10)]).toEqual([false, true, true]);
  });

  it('works off a large backlog in bounded batches: 1,200 old submissions in 500-row statements, at most 20 batches per run', async () => {
    const s = await seedOrg({ submissionsDays: 1 });
    const ids = await addSubmissions(s, ago(2 * DAY), 1_200);
    const keep = await addSubmissions(s, ago(DAY / 2), 3);
    const other = await seedOrg(null);
    const otherIds = await addSubmissions(other, ago(2 * DAY), 5);

    const first = purger({ only: 'submissions (retention)' });
    expect(await first.purger.runOnce()).toEqual({ 'submissions (retention)': 1_200 });
    expect(first.batches).toEqual([500, 500, 200]);
    const clearedCount = async (list: string[]) => (await db().selectFrom('submissions').select('id').where('id', 'in', list).where('values_cleared_at', 'is not', null).execute()).length;
    expect([await clearedCount(ids), await clearedCount(keep), await clearedCount(otherIds)]).toEqual([1_200, 0, 0]);

    // Smaller statements: the run stops after its 20 batches, the next run finishes.
    const more = await addSubmissions(s, ago(3 * DAY), 1_200);
    const small = purger({ only: 'submissions (retention)', batchSize: 50 });
    expect(await small.purger.runOnce()).toEqual({ 'submissions (retention)': RETENTION_BATCHES_PER_RUN * 50 });
    expect(small.batches).toHaveLength(RETENTION_BATCHES_PER_RUN);
    expect(small.batches.every((n) => n === 50)).toBe(true);
    expect(await clearedCount(more)).toBe(1_000);
    expect(await small.purger.runOnce()).toEqual({ 'submissions (retention)': 200 });
    expect(await clearedCount(more)).toBe(1_200);
    expect(await formCounts(s)).toBe(2_403);
  });

  it('deletes long conversations without one statement growing with them: at most a batch of messages, then the emptied conversations', async () => {
    const s = await seedOrg({ conversationsDays: 7 });
    const long = await addConversation(s, ago(8 * DAY), { messages: 1_100 });
    const fresh = await addConversation(s, ago(DAY), { messages: 4 });
    const run = purger({ only: 'conversations (retention)' });
    await run.purger.runOnce();
    // 500 messages, 500, then the last 100 with the conversation (101), then nothing.
    expect(run.batches).toEqual([500, 500, 101]);
    expect([await conversationExists(long), await messagesOf(long), await conversationExists(fresh), await messagesOf(fresh)]).toEqual([false, 0, true, 4]);
  });
});
