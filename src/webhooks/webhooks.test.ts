import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { keyRing } from '../lib/secrets.js';
import { testDialects } from '../../test/support/context.js';
import { createOrgWithKey, orgCaller, type OrgWithKey } from '../../test/support/org-factories.js';
import { fixedResolver, TEST_DNS } from '../../test/support/tools-factories.js';
import { createWebhookTestContext, type WebhookTestContext } from '../../test/support/webhook-context.js';
import { openSigningSecret } from './secret.js';
import { ORG_LIMITS } from '../http/tenant-limits.js';

const MAX_WEBHOOKS_PER_ORG = ORG_LIMITS.limits.webhooks.default;

/**
 * The webhook endpoints API (/api/org/webhooks…): owners only, the secret shown once and never again
 * (answers, logs), URLs through the tool endpoints' save-time address policy, another organization's
 * webhook a missing one on every route. Delivery is in delivery.test.ts.
 */
const HOOK = 'https://hooks.example.com/switchboard';
const DNS = { ...TEST_DNS, 'hooks.example.com': ['93.184.215.14'] };
const ORIGIN = 'http://localhost:3000';

describe.each(testDialects())('webhook endpoints on %s', (dialect) => {
  let t: WebhookTestContext;
  let org: OrgWithKey;
  let other: OrgWithKey;
  let call: ReturnType<typeof orgCaller>;
  const secrets: string[] = [];

  beforeAll(async () => {
    t = await createWebhookTestContext(dialect, { resolveHost: fixedResolver(DNS) });
    call = orgCaller(t.app);
    [org, other] = await Promise.all([createOrgWithKey(t.database, t.clock), createOrgWithKey(t.database, t.clock)]);
  });
  afterAll(async () => {
    // No secret in any log line, whatever was done above.
    expect(secrets.length).toBeGreaterThan(0);
    for (const secret of secrets) expect(t.lines.join('\n')).not.toContain(secret);
    await t.close();
  });

  const rows = (orgId: string) => t.database.db.selectFrom('webhook_endpoints').selectAll().where('org_id', '=', orgId).orderBy('id').execute();
  async function webhook(who: OrgWithKey, body: Record<string, unknown> = { url: HOOK, events: ['submission.created'] }) {
    const res = await call('POST', '/api/org/webhooks', who, body);
    expect(res.statusCode, res.body).toBe(201);
    const data = res.json().data as { id: string; secret: string; updatedAt: string };
    secrets.push(data.secret);
    return data;
  }

  it('adds a webhook: 201 with the secret once, sealed at rest and bound to the webhook; never answered again', async () => {
    const res = await call('POST', '/api/org/webhooks', org, { url: HOOK, events: ['submission.created', 'contact.created', 'submission.created'], description: 'Help desk' });
    expect(res.statusCode).toBe(201);
    const created = res.json().data;
    secrets.push(created.secret);
    expect(created).toEqual({
      id: expect.stringMatching(/^wh_[0-9A-Za-z]{20}$/), url: HOOK, events: ['submission.created', 'contact.created'], description: 'Help desk',
      enabled: true, disabledReason: null, failingSince: null, createdAt: expect.any(String), updatedAt: created.createdAt,
      secret: expect.stringMatching(/^whsec_[0-9A-Za-z]{40}$/),
    });
    const [row] = (await rows(org.orgId)).filter((r) => r.id === created.id);
    expect(JSON.stringify(row)).not.toContain(created.secret);
    const keys = keyRing(t.config.secretsKey);
    expect(openSigningSecret(keys, created.id, row!.secret_sealed)).toBe(created.secret);
    expect(() => openSigningSecret(keys, 'wh_aaaaaaaaaaaaaaaaaaaa', row!.secret_sealed)).toThrow();

    const { secret: _secret, ...shown } = created;
    const one = await call('GET', `/api/org/webhooks/${created.id}`, org);
    expect(one.json().data).toEqual(shown);
    const list = await call('GET', '/api/org/webhooks', org);
    expect(list.json().data.items).toContainEqual(shown);
    for (const res of [one, list]) expect(res.body).not.toContain(created.secret);
  });

  it('rotates the secret: a new one, shown once; the old one no longer opens from the row', async () => {
    const created = await webhook(org);
    const res = await call('POST', `/api/org/webhooks/${created.id}/secret`, org);
    expect(res.statusCode).toBe(200);
    const rotated = res.json().data.secret as string;
    secrets.push(rotated);
    expect(rotated).toMatch(/^whsec_/);
    expect(rotated).not.toBe(created.secret);
    const row = (await rows(org.orgId)).find((r) => r.id === created.id)!;
    expect(openSigningSecret(keyRing(t.config.secretsKey), created.id, row.secret_sealed)).toBe(rotated);
    expect((await call('GET', `/api/org/webhooks/${created.id}`, org)).body).not.toContain(rotated);
  });

  it('changes url, events, enabled and description; enabling again clears the service\'s reason and the failure streak', async () => {
    const created = await webhook(org);
    t.clock.advance(1000);
    const res = await call('PATCH', `/api/org/webhooks/${created.id}`, org, { url: 'https://hooks.example.com/v2', events: ['tool_call.failed'], description: null });
    expect(res.statusCode).toBe(200);
    expect(res.json().data).toMatchObject({ url: 'https://hooks.example.com/v2', events: ['tool_call.failed'], description: null, enabled: true });
    expect(res.json().data.updatedAt > created.updatedAt).toBe(true);
    await t.database.db.updateTable('webhook_endpoints').set({ enabled: 0, disabled_reason: 'Every delivery failed for 24 hours', failing_since: '2026-01-01T00:00:00.000Z' }).where('id', '=', created.id).execute();
    const enabled = await call('PATCH', `/api/org/webhooks/${created.id}`, org, { enabled: true });
    expect(enabled.json().data).toMatchObject({ enabled: true, disabledReason: null, failingSince: null });
    expect((await call('PATCH', `/api/org/webhooks/${created.id}`, org, { enabled: false })).json().data).toMatchObject({ enabled: false, disabledReason: null });
  });

  it('refuses URLs the tool endpoint policy refuses (400 ENDPOINT_NOT_ALLOWED, field url) and unknown events, writing nothing', async () => {
    const fresh = await createOrgWithKey(t.database, t.clock);
    const cases: Array<[string, RegExp]> = [
      ['http://hooks.example.com/in', /must use https/],
      ['https://10.0.0.5/in', /private/i],
      ['https://127.0.0.1:8443/in', /loopback/i],
      ['https://internal.example.com/in', /resolves to 10\.0\.0\.5/],
      ['https://rebind.example.com/in', /resolves to 127\.0\.0\.1/],
      ['https://metadata.example.com/latest', /169\.254\.169\.254/],
      ['https://localhost/in', /loopback name/],
      ['https://user:pass@hooks.example.com/in', /user name or password/],
    ];
    for (const [url, message] of cases) {
      const res = await call('POST', '/api/org/webhooks', fresh, { url, events: ['contact.created'] });
      expect(res.statusCode, url).toBe(400);
      expect(res.json(), url).toMatchObject({ code: 'ENDPOINT_NOT_ALLOWED', field: 'url', error: expect.stringMatching(message) });
      expect(res.json().error).toMatch(/^The webhook URL/);
    }
    for (const events of [[], ['ping'], ['submission.deleted']]) {
      const res = await call('POST', '/api/org/webhooks', fresh, { url: HOOK, events });
      expect(res.statusCode, JSON.stringify(events)).toBe(400);
      expect(res.json().code).toBe('VALIDATION_ERROR');
    }
    expect(await rows(fresh.orgId)).toEqual([]);
    const created = await webhook(fresh);
    const before = await rows(fresh.orgId);
    const patched = await call('PATCH', `/api/org/webhooks/${created.id}`, fresh, { url: 'https://internal.example.com/in' });
    expect(patched.statusCode).toBe(400);
    expect(patched.json()).toMatchObject({ code: 'ENDPOINT_NOT_ALLOWED', field: 'url' });
    expect(await rows(fresh.orgId)).toEqual(before);
  });

  it(`refuses a webhook past ${MAX_WEBHOOKS_PER_ORG} per organization (409 LIMIT_REACHED, nothing written); deleting one makes room`, async () => {
    const crowded = await createOrgWithKey(t.database, t.clock);
    const made = [];
    for (let i = 0; i < MAX_WEBHOOKS_PER_ORG; i++) made.push(await webhook(crowded));
    const refused = await call('POST', '/api/org/webhooks', crowded, { url: HOOK, events: ['contact.created'] });
    expect(refused.statusCode).toBe(409);
    expect(refused.json()).toMatchObject({ success: false, code: 'LIMIT_REACHED', resource: 'webhooks', limit: MAX_WEBHOOKS_PER_ORG, error: expect.stringContaining(`${MAX_WEBHOOKS_PER_ORG} webhooks`) });
    expect(await rows(crowded.orgId)).toHaveLength(MAX_WEBHOOKS_PER_ORG);
    // Another organization is not counted against it.
    await webhook(other);
    expect((await call('DELETE', `/api/org/webhooks/${made[0]!.id}`, crowded)).statusCode).toBe(200);
    await webhook(crowded);
  });

  it('deletes a webhook and its deliveries', async () => {
    const created = await webhook(org, { url: 'https://hooks.unresolvable.test/in', events: ['contact.created'] });
    expect((await call('POST', `/api/org/webhooks/${created.id}/test`, org)).statusCode).toBe(200);
    const res = await call('DELETE', `/api/org/webhooks/${created.id}`, org);
    expect(res.json()).toMatchObject({ success: true, data: { id: created.id, deleted: true } });
    expect((await call('GET', `/api/org/webhooks/${created.id}`, org)).statusCode).toBe(404);
    expect(await t.database.db.selectFrom('webhook_deliveries').select('id').where('endpoint_id', '=', created.id).execute()).toEqual([]);
  });

  it('answers 404 for another organization\'s webhook and delivery on every route, and changes nothing', async () => {
    const theirs = await webhook(other, { url: 'https://hooks.unresolvable.test/in', events: ['contact.created'] });
    const ping = (await call('POST', `/api/org/webhooks/${theirs.id}/test`, other)).json().data as { id: string };
    const snapshot = async () => [await rows(other.orgId), await t.database.db.selectFrom('webhook_deliveries').selectAll().where('org_id', '=', other.orgId).orderBy('id').execute()];
    const before = await snapshot();
    const routes: Array<['GET' | 'PATCH' | 'DELETE' | 'POST', string, unknown]> = [
      ['GET', `/api/org/webhooks/${theirs.id}`, undefined],
      ['PATCH', `/api/org/webhooks/${theirs.id}`, { enabled: false }],
      ['DELETE', `/api/org/webhooks/${theirs.id}`, undefined],
      ['POST', `/api/org/webhooks/${theirs.id}/secret`, undefined],
      ['POST', `/api/org/webhooks/${theirs.id}/test`, undefined],
      ['GET', `/api/org/webhooks/${theirs.id}/deliveries`, undefined],
      ['POST', `/api/org/webhooks/${theirs.id}/deliveries/${ping.id}/redeliver`, undefined],
    ];
    for (const [method, url, payload] of routes) {
      const res = await call(method, url, org, payload);
      expect(res.statusCode, `${method} ${url}`).toBe(404);
      expect(res.json()).toMatchObject({ code: 'NOT_FOUND', error: 'No webhook has that id.' });
    }
    // The org's own webhook with another's delivery id: the delivery is missing.
    const mine = await webhook(org, { url: 'https://hooks.unresolvable.test/in', events: ['contact.created'] });
    const res = await call('POST', `/api/org/webhooks/${mine.id}/deliveries/${ping.id}/redeliver`, org);
    expect(res.statusCode).toBe(404);
    expect(res.json()).toMatchObject({ code: 'NOT_FOUND', error: 'This webhook has no delivery with that id.' });
    expect((await call('GET', '/api/org/webhooks', org)).json().data.items.map((w: { id: string }) => w.id)).not.toContain(theirs.id);
    expect(await snapshot()).toEqual(before);
  });

  it('lets only owners in: a member\'s session gets 403 FORBIDDEN on every route, and nothing is written', async () => {
    type Browser = { headers: Record<string, string> };
    const send = (method: 'GET' | 'POST' | 'PATCH' | 'DELETE', url: string, browser: Browser | null, payload?: object) =>
      t.app.inject({ method, url, headers: { origin: ORIGIN, ...browser?.headers }, ...(payload ? { payload } : {}) });
    const browserOf = (res: Awaited<ReturnType<typeof send>>): Browser => ({
      headers: { cookie: /^svc_session=[^;]*/.exec(String(res.headers['set-cookie']))![0], 'x-csrf-token': res.json().data.csrfToken as string },
    });
    const signUp = await send('POST', '/api/auth/signup', null, { email: `owner-${dialect}-hooks@example.com`, password: 'violet kettle marathon', name: 'Olive', organizationName: 'Hooks Co' });
    expect(signUp.statusCode, signUp.body).toBe(201);
    const owner = browserOf(signUp);
    const created = await send('POST', '/api/org/webhooks', owner, { url: HOOK, events: ['contact.created'] });
    expect(created.statusCode).toBe(201);
    secrets.push(created.json().data.secret);
    const id = created.json().data.id as string;
    const invitation = await send('POST', '/api/org/invitations', owner, { email: `member-${dialect}-hooks@example.com` });
    expect(invitation.statusCode, invitation.body).toBe(201);
    // With a mailer the link is emailed, not answered.
    const link = /https?:\/\/\S+/.exec(t.mail.at(-1)!.text)![0];
    const token = link.split('/').pop()!;
    const accepted = await send('POST', `/api/auth/invitations/${token}/accept`, null, { name: 'Max', password: 'amber lantern harbour' });
    const member = browserOf(accepted);
    const before = await rows(signUp.json().data.organization.id);
    const routes: Array<['GET' | 'PATCH' | 'DELETE' | 'POST', string, object | undefined]> = [
      ['POST', '/api/org/webhooks', { url: HOOK, events: ['contact.created'] }],
      ['GET', '/api/org/webhooks', undefined],
      ['GET', `/api/org/webhooks/${id}`, undefined],
      ['PATCH', `/api/org/webhooks/${id}`, { enabled: false }],
      ['DELETE', `/api/org/webhooks/${id}`, undefined],
      ['POST', `/api/org/webhooks/${id}/secret`, undefined],
      ['POST', `/api/org/webhooks/${id}/test`, undefined],
      ['GET', `/api/org/webhooks/${id}/deliveries`, undefined],
    ];
    for (const [method, url, payload] of routes) {
      const res = await send(method, url, member, payload);
      expect(res.statusCode, `${method} ${url}`).toBe(403);
      expect(res.json().code).toBe('FORBIDDEN');
    }
    expect(await rows(signUp.json().data.organization.id)).toEqual(before);
    expect(await t.database.db.selectFrom('webhook_deliveries').select('id').where('endpoint_id', '=', id).execute()).toEqual([]);
  });
});
