import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestContext, testDialects, type TestContext } from '../../test/support/context.js';
import { createOrgWithKey, orgCaller, type OrgWithKey } from '../../test/support/org-factories.js';
import { DELIVERY_BODY_TTL_MS } from '../webhooks/service.js';
import { MAX_WEBHOOK_BODIES_DAYS } from './retention.js';

/**
 * An organization's retention settings on GET/PATCH /api/org/organization (docs/operator-api.md, docs/privacy.md):
 * what they show, what a patch changes, what is refused (400 naming the field, never 500), who may change them.
 * The purges that apply them are src/retention-purges.test.ts's.
 */
const NONE = { submissionsDays: null, conversationsDays: null, callLogDays: null, webhookBodiesDays: null };

describe.each(testDialects())('retention settings on %s', (dialect) => {
  let t: TestContext;
  let org: OrgWithKey;
  let other: OrgWithKey;
  let call: ReturnType<typeof orgCaller>;

  beforeAll(async () => {
    t = await createTestContext(dialect);
    call = orgCaller(t.app);
    [org, other] = await Promise.all([createOrgWithKey(t.database, t.clock), createOrgWithKey(t.database, t.clock)]);
  });
  afterAll(async () => {
    await t.close();
  });

  const stored = (orgId: string) => t.database.db.selectFrom('orgs')
    .select(['retention_submissions_days', 'retention_conversations_days', 'retention_call_log_days', 'retention_webhook_bodies_days'])
    .where('id', '=', orgId).executeTakeFirstOrThrow();
  const retentionOf = async (who: OrgWithKey) => (await call('GET', '/api/org/organization', who)).json().data.retention;

  it('shows every setting unset for a new organization, sets the ones given, clears one with null, and leaves another organization as it was', async () => {
    expect(await retentionOf(org)).toEqual(NONE);
    const set = await call('PATCH', '/api/org/organization', org, { retention: { submissionsDays: 30, conversationsDays: 90, callLogDays: 3650, webhookBodiesDays: 1 } });
    expect(set.statusCode, set.body).toBe(200);
    expect(set.json().data.retention).toEqual({ submissionsDays: 30, conversationsDays: 90, callLogDays: 3650, webhookBodiesDays: 1 });

    const some = await call('PATCH', '/api/org/organization', org, { retention: { conversationsDays: null, callLogDays: 365 } });
    expect(some.statusCode, some.body).toBe(200);
    const expected = { submissionsDays: 30, conversationsDays: null, callLogDays: 365, webhookBodiesDays: 1 };
    expect(some.json().data.retention).toEqual(expected);
    expect(await retentionOf(org)).toEqual(expected);
    expect(await stored(org.orgId)).toEqual({ retention_submissions_days: 30, retention_conversations_days: null, retention_call_log_days: 365, retention_webhook_bodies_days: 1 });

    // Other settings in the same patch change with it; another organization is untouched.
    const both = await call('PATCH', '/api/org/organization', org, { name: 'Kept Ltd', retention: { submissionsDays: 31 } });
    expect(both.json().data).toMatchObject({ name: 'Kept Ltd', retention: { ...expected, submissionsDays: 31 } });
    expect(await retentionOf(other)).toEqual(NONE);
    expect(await stored(other.orgId)).toEqual({ retention_submissions_days: null, retention_conversations_days: null, retention_call_log_days: null, retention_webhook_bodies_days: null });
  });

  it('refuses a value that is not a whole number of days in bounds (400 VALIDATION_ERROR naming the field), writing nothing', async () => {
    const fresh = await createOrgWithKey(t.database, t.clock);
    await call('PATCH', '/api/org/organization', fresh, { retention: { callLogDays: 7 } });
    const bad: [string, unknown][] = [
      ['submissionsDays', 0], ['submissionsDays', -1], ['submissionsDays', 3651], ['submissionsDays', 1.5], ['submissionsDays', '30'], ['submissionsDays', true],
      ['conversationsDays', 1e12], ['conversationsDays', {}], ['callLogDays', [30]], ['callLogDays', -0.5],
      ['webhookBodiesDays', MAX_WEBHOOK_BODIES_DAYS + 1], ['webhookBodiesDays', 0],
    ];
    for (const [field, value] of bad) {
      const res = await call('PATCH', '/api/org/organization', fresh, { retention: { [field]: value } });
      expect(res.statusCode, `${field}=${JSON.stringify(value)}: ${res.body}`).toBe(400);
      expect(res.json().code).toBe('VALIDATION_ERROR');
      expect(res.json().field, `${field}=${JSON.stringify(value)}: ${res.body}`).toBe(`retention.${field}`);
    }
    const tooBig = await call('PATCH', '/api/org/organization', fresh, { retention: { submissionsDays: 3651 } });
    expect(tooBig.json().error).toBe('Invalid request: retention.submissionsDays must be a whole number of days from 1 to 3650, or null to keep them.');
    for (const body of [{ retention: {} }, { retention: null }, { retention: 30 }, { retention: { keepForever: true } }, { retention: { submissionsDays: 30, extra: 1 } }]) {
      const res = await call('PATCH', '/api/org/organization', fresh, body);
      expect(res.statusCode, `${JSON.stringify(body)}: ${res.body}`).toBe(400);
      expect(res.json()).toMatchObject({ code: 'VALIDATION_ERROR' });
      expect(JSON.stringify(res.json())).toContain('retention');
    }
    expect(await stored(fresh.orgId)).toEqual({ retention_submissions_days: null, retention_conversations_days: null, retention_call_log_days: 7, retention_webhook_bodies_days: null });
  });

  it('bounds webhook bodies by the 7 days the webhooks feature keeps them anyway', () => {
    expect(MAX_WEBHOOK_BODIES_DAYS * 86_400_000).toBe(DELIVERY_BODY_TTL_MS);
  });

  it('needs credentials, and lets only an owner change retention: a member reads it, gets 403 changing it, and nothing is written', async () => {
    expect((await call('GET', '/api/org/organization', null)).statusCode).toBe(401);
    expect((await call('PATCH', '/api/org/organization', null, { retention: { submissionsDays: 1 } })).statusCode).toBe(401);

    const ORIGIN = 'http://localhost:3000';
    type Browser = { headers: Record<string, string> };
    const send = (method: 'GET' | 'POST' | 'PATCH', url: string, browser: Browser | null, payload?: object) =>
      t.app.inject({ method, url, headers: { origin: ORIGIN, ...browser?.headers }, ...(payload ? { payload } : {}) });
    const browserOf = (res: Awaited<ReturnType<typeof send>>): Browser => ({
      headers: { cookie: /^svc_session=[^;]*/.exec(String(res.headers['set-cookie']))![0], 'x-csrf-token': res.json().data.csrfToken as string },
    });
    const signUp = await send('POST', '/api/auth/signup', null, { email: 'owner-retention@example.com', password: 'violet kettle marathon', name: 'Olive', organizationName: 'Retention Co' });
    expect(signUp.statusCode, signUp.body).toBe(201);
    const owner = browserOf(signUp);
    const orgId = signUp.json().data.organization.id as string;
    const invitation = await send('POST', '/api/org/invitations', owner, { email: 'member-retention@example.com' });
    const token = String(invitation.json().data.url).split('/').pop()!;
    const accepted = await send('POST', `/api/auth/invitations/${token}/accept`, null, { name: 'Max', password: 'amber lantern harbour' });
    expect(accepted.json().data.user.role).toBe('member');
    const member = browserOf(accepted);

    expect((await send('PATCH', '/api/org/organization', owner, { retention: { submissionsDays: 30 } })).statusCode).toBe(200);
    for (const patch of [{ retention: { submissionsDays: 1 } }, { retention: { submissionsDays: null } }, { name: 'Renamed by a member', retention: { callLogDays: 5 } }]) {
      const refused = await send('PATCH', '/api/org/organization', member, patch);
      expect(refused.statusCode, refused.body).toBe(403);
      expect(refused.json()).toMatchObject({ code: 'FORBIDDEN', field: 'retention' });
    }
    expect((await send('GET', '/api/org/organization', member)).json().data).toMatchObject({ name: 'Retention Co', retention: { ...NONE, submissionsDays: 30 } });
    expect(await stored(orgId)).toEqual({ retention_submissions_days: 30, retention_conversations_days: null, retention_call_log_days: null, retention_webhook_bodies_days: null });
  });
});
