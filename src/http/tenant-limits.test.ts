import type { LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestContext, testDialects, type TestContext } from '../../test/support/context.js';
import { changedTables, databaseSnapshot } from '../../test/support/db-snapshot.js';
import { createDeveloperWithApp } from '../../test/support/factories.js';
import { createAgent, uniqueSlug } from '../../test/support/form-factories.js';
import { createOrgWithKey, limitsOn } from '../../test/support/org-factories.js';
import { fixedResolver, toolInput } from '../../test/support/tools-factories.js';
import { randomBase62 } from '../lib/ids.js';
import { DEVELOPER_LIMITS, limitOption, limitReached, limitsOf, ORG_LIMITS, type DeveloperLimit, type OrgLimit } from './tenant-limits.js';

type Method = 'GET' | 'POST' | 'DELETE';
type Headers = Record<string, string>;

/** Who creates: an organization (its API key; for agent keys, one of its agents) or a developer (a console session, CSRF token included). */
interface Owner {
  tenantId: string;
  headers: Headers;
  agentId?: string;
}

/** One limited resource, as a client creates and removes it. */
interface Case {
  resource: OrgLimit | DeveloperLimit;
  tenant: 'org' | 'developer';
  path(owner: Owner): string;
  body(): Record<string, unknown>;
  /** What frees a place, when not `DELETE {path}/{id}`. */
  free?(id: string): { method: Method; url: string };
}

const BRANDING = { name: 'Acme Dental', primaryColor: '#1a73e8', backgroundColor: '#ffffff', textColor: '#202124', logoUrl: 'https://acme.example/logo.png' };

const CASES: Case[] = [
  { resource: 'agents', tenant: 'org', path: () => '/api/org/agents', body: () => ({ name: 'Front desk', branding: BRANDING }) },
  { resource: 'forms', tenant: 'org', path: () => '/api/org/forms', body: () => ({ slug: uniqueSlug(), title: 'Book a visit', consentText: 'I agree to be contacted.' }) },
  // Revoking a key frees its place: the limit counts active keys.
  { resource: 'apiKeys', tenant: 'org', path: () => '/api/org/api-keys', body: () => ({ name: 'Zapier' }), free: (id) => ({ method: 'POST', url: `/api/org/api-keys/${id}/revoke` }) },
  { resource: 'agentKeysPerAgent', tenant: 'org', path: (owner) => `/api/org/agents/${owner.agentId}/keys`, body: () => ({ name: 'Claude Desktop' }) },
  { resource: 'modelProviders', tenant: 'org', path: () => '/api/org/model-providers', body: () => ({ name: 'OpenAI', kind: 'openai' }) },
  { resource: 'customFields', tenant: 'org', path: () => '/api/org/custom-fields', body: () => ({ key: `f_${randomBase62(8).toLowerCase()}`, entity: 'contact', label: 'Budget', type: 'text' }) },
  { resource: 'pipelines', tenant: 'org', path: () => '/api/org/pipelines', body: () => ({ name: `Pipeline ${randomBase62(6)}`, stages: [{ name: 'Inbox' }] }) },
  { resource: 'pendingInvitations', tenant: 'org', path: () => '/api/org/invitations', body: () => ({ email: `invitee-${randomBase62(8).toLowerCase()}@example.com` }) },
  { resource: 'webhooks', tenant: 'org', path: () => '/api/org/webhooks', body: () => ({ url: 'https://api.example.com/hooks', events: ['contact.created'] }) },
  { resource: 'apps', tenant: 'developer', path: () => '/api/dev/apps', body: () => ({ name: 'Quote bot', scopes: ['tools:read'] }) },
  { resource: 'tools', tenant: 'developer', path: () => '/api/dev/tools', body: () => toolInput() },
];

it('every limit has a case below', () => {
  expect(CASES.map((c) => c.resource).sort()).toEqual([...Object.keys(ORG_LIMITS.limits), ...Object.keys(DEVELOPER_LIMITS.limits)].sort());
});

/**
 * Every limited resource through the API (issue 32): up to its limit, then 409 LIMIT_REACHED with nothing written;
 * another tenant's count is its own; freeing one makes room; creates racing at the limit pass exactly up to it (on
 * PostgreSQL the tenant's row lock, on SQLite the one writer). Limits are lowered through the CLI's `set`.
 */
describe.each(testDialects())('tenant limits on %s', (dialect) => {
  let t: TestContext;

  beforeAll(async () => {
    t = await createTestContext(dialect, { deps: { resolveHost: fixedResolver() } });
  });
  afterAll(async () => t.close());

  const send = (owner: Owner, method: Method, url: string, payload?: unknown) =>
    t.app.inject({ method, url, headers: owner.headers, ...(payload !== undefined ? { payload: payload as Record<string, unknown> } : {}) });

  async function newOwner(c: Case): Promise<Owner> {
    if (c.tenant === 'org') {
      const org = await createOrgWithKey(t.database, t.clock);
      return { tenantId: org.orgId, headers: org.auth, ...(c.resource === 'agentKeysPerAgent' ? { agentId: (await createAgent(t.app, org)).id } : {}) };
    }
    const { developer } = await createDeveloperWithApp(t.database, t.clock);
    const signIn = await t.app.inject({ method: 'POST', url: '/api/auth/signin', payload: { email: developer.email, password: 'correct horse battery' } });
    expect(signIn.statusCode, signIn.body).toBe(200);
    const cookie = String(signIn.headers['set-cookie']).split(';')[0]!;
    return { tenantId: developer.id, headers: { cookie, 'x-csrf-token': (signIn.json() as { data: { csrfToken: string } }).data.csrfToken } };
  }

  /** The tenant's limit and use of the case's resource, as GET /api/org/limits or /api/dev/limits answers them. */
  async function usage(c: Case, owner: Owner): Promise<{ limit: number; used: number }> {
    const res = await send(owner, 'GET', c.tenant === 'org' ? '/api/org/limits' : '/api/dev/limits');
    expect(res.statusCode, res.body).toBe(200);
    return (res.json() as { data: Record<string, { limit: number; used: number }> }).data[c.resource]!;
  }

  /** Lowers the tenant's limit to `room` more than it uses, as `switchboard org limits` / `developer limits` would. */
  async function leaveRoom(c: Case, owner: Owner, room: number): Promise<number> {
    const limit = (await usage(c, owner)).used + room;
    const limits = limitsOn(t.database, t.clock);
    if (c.tenant === 'org') await limits.orgLimits.set(owner.tenantId, { [c.resource]: limit });
    else await limits.developerLimits.set(owner.tenantId, { [c.resource]: limit });
    return limit;
  }

  const create = (c: Case, owner: Owner) => send(owner, 'POST', c.path(owner), c.body());
  async function created(c: Case, owner: Owner): Promise<string> {
    const res = await create(c, owner);
    expect(res.statusCode, res.body).toBe(201);
    return (res.json() as { data: { id: string } }).data.id;
  }

  function expectLimitReached(res: LightMyRequestResponse, c: Case, limit: number): void {
    expect(res.statusCode, res.body).toBe(409);
    const body = res.json() as { error: string };
    expect(body).toMatchObject({ success: false, code: 'LIMIT_REACHED', resource: c.resource, limit });
    expect(body.error).toContain(` ${limit} `);
    expect(body.error).toContain(`--${limitOption(c.resource)} <n>`);
  }

  it.each(CASES)('$resource: up to the limit, then 409 LIMIT_REACHED with nothing written; another tenant is not counted; freeing one makes room', async (c) => {
    const owner = await newOwner(c);
    const limit = await leaveRoom(c, owner, 2);
    const made = [await created(c, owner), await created(c, owner)];
    expect(await usage(c, owner)).toEqual({ limit, used: limit });

    const before = await databaseSnapshot(t.database);
    expectLimitReached(await create(c, owner), c, limit);
    expect(changedTables(before, await databaseSnapshot(t.database))).toEqual([]);

    // Another tenant held to the same kind of limit creates within its own.
    const other = await newOwner(c);
    await leaveRoom(c, other, 1);
    await created(c, other);

    const free = c.free?.(made[0]!) ?? { method: 'DELETE' as const, url: `${c.path(owner)}/${made[0]}` };
    expect((await send(owner, free.method, free.url)).statusCode).toBe(200);
    await created(c, owner);
    expectLimitReached(await create(c, owner), c, limit);
  });

  it.each(CASES)('$resource: creates racing at the limit pass exactly up to it', async (c) => {
    const owner = await newOwner(c);
    const limit = await leaveRoom(c, owner, 3);
    const answers = await Promise.all(Array.from({ length: 6 }, () => create(c, owner)));
    expect(answers.map((res) => res.statusCode).sort(), answers.map((res) => res.body).join('\n')).toEqual([201, 201, 201, 409, 409, 409]);
    for (const res of answers.filter((answer) => answer.statusCode === 409)) expectLimitReached(res, c, limit);
    expect(await usage(c, owner)).toEqual({ limit, used: limit });
  });

  it('counts agent keys per agent: another agent of the organization has a limit of its own', async () => {
    const org = await createOrgWithKey(t.database, t.clock);
    const [first, second] = [await createAgent(t.app, org), await createAgent(t.app, org)];
    await limitsOn(t.database, t.clock).orgLimits.set(org.orgId, { agentKeysPerAgent: 1 });
    const key = (agentId: string) => t.app.inject({ method: 'POST', url: `/api/org/agents/${agentId}/keys`, headers: org.auth, payload: { name: 'MCP' } });
    expect((await key(first.id)).statusCode).toBe(201);
    expect((await key(second.id)).statusCode).toBe(201);
    const refused = await key(first.id);
    expect(refused.json()).toMatchObject({
      code: 'LIMIT_REACHED',
      error: `This agent has 1 key, the most it may have. Delete a key you no longer use, or ask your Switchboard operator to raise the limit (switchboard org limits ${org.orgId} --agent-keys-per-agent <n>).`,
    });
  });

  it('says what was refused, and what to do, in words', async () => {
    const org = await createOrgWithKey(t.database, t.clock);
    await limitsOn(t.database, t.clock).orgLimits.set(org.orgId, { forms: 0 });
    const res = await t.app.inject({ method: 'POST', url: '/api/org/forms', headers: org.auth, payload: { slug: uniqueSlug(), title: 'Book', consentText: 'I agree.' } });
    expect(res.json()).toEqual({
      success: false,
      code: 'LIMIT_REACHED',
      error: `This organization has 0 forms, the most it may have. Delete a form you no longer need, or ask your Switchboard operator to raise the limit (switchboard org limits ${org.orgId} --forms <n>).`,
      requestId: expect.any(String),
      resource: 'forms',
      limit: 0,
    });
  });

  it('shows every limit at its default until the operator sets one; a value back at the default is no override', async () => {
    const org = await createOrgWithKey(t.database, t.clock);
    const limits = limitsOn(t.database, t.clock).orgLimits;
    const shown = await limits.show(org.orgId);
    expect(Object.fromEntries(Object.entries(shown).map(([name, { limit }]) => [name, limit]))).toEqual(Object.fromEntries(Object.entries(ORG_LIMITS.limits).map(([name, { default: limit }]) => [name, limit])));
    // A new organization has its first API key and its default pipeline.
    expect(shown).toMatchObject({ apiKeys: { used: 1 }, pipelines: { used: 1 }, forms: { used: 0 } });

    await limits.set(org.orgId, { forms: 250, webhooks: 40 });
    await limits.set(org.orgId, { webhooks: null, forms: ORG_LIMITS.limits.forms.default });
    const row = await t.database.db.selectFrom('orgs').select('limits').where('id', '=', org.orgId).executeTakeFirstOrThrow();
    expect(row.limits).toBeNull();
    await expect(limits.set(org.orgId, { forms: -1 })).rejects.toMatchObject({ code: 'VALIDATION_ERROR', field: 'forms' });
    await expect(limits.set('org_missing', { forms: 1 })).rejects.toMatchObject({ code: 'ORG_NOT_FOUND' });
  });
});

describe('limit refusals and stored overrides', () => {
  it('say so when a tenant has more than its limit (lowered below what it has)', () => {
    expect(limitReached(DEVELOPER_LIMITS, 'tools', 'dev_1', 120, 100).message).toBe(
      'Your developer account has 120 tools, more than the 100 it may have. Delete a tool you no longer need, or ask your Switchboard operator to raise the limit (switchboard developer limits dev_1 --tools <n>).',
    );
  });

  it('read only known limits with whole, non-negative values; the rest take their defaults', () => {
    expect(limitsOf(DEVELOPER_LIMITS, JSON.stringify({ apps: 3, tools: -1, widgets: 9 }))).toEqual({ apps: 3, tools: 100 });
    expect(limitsOf(DEVELOPER_LIMITS, null)).toEqual({ apps: 25, tools: 100 });
  });
});
