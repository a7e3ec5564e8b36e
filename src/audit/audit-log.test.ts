import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { MailMessage } from '../lib/mailer.js';
import { testDialects, createTestContext, type TestContext } from '../../test/support/context.js';
import { createOrgWithKey, orgCaller, type OrgWithKey } from '../../test/support/org-factories.js';
import { createDeveloperWithApp, getAccessToken, type DeveloperWithApp } from '../../test/support/factories.js';
import { createTool, fixedResolver, TEST_DNS } from '../../test/support/tools-factories.js';
import { createAgent } from '../../test/support/invocation-factories.js';
import { createForm } from '../../test/support/form-factories.js';
import { runCliWith } from '../../test/support/cli.js';
import { openDatabase } from '../db/database.js';
import { AUDIT_ACTION_NAMES, type AuditAction } from './actions.js';

/**
 * The audit log (issue 36, part 4): every listed action performed through the real HTTP API (and the CLI) leaves
 * its entry, with the actor, address, user agent, action and target; no entry or answer holds a secret; only the
 * organization's owners read its log, a developer only their own; filters and pages; bad filters are 400s.
 */
const ORIGIN = 'http://localhost:3000';
const UA = 'AuditTest/1.0 (table test)';
const PASSWORD = 'correct horse battery';
const DNS = { ...TEST_DNS, 'hooks.example.com': ['93.184.215.14'] };

interface Session { cookie: string; csrf: string; userId: string }
interface Expected { action: AuditAction; actorType: string; actorId: string | null; target: string | null; log: 'org' | 'dev' }

describe.each(testDialects())('audit log on %s', (dialect) => {
  let t: TestContext;
  let org: OrgWithKey;
  let other: OrgWithKey;
  let dev: DeveloperWithApp;
  let owner: Session;
  let devSession: Session;
  const mail: MailMessage[] = [];
  /** Every secret the actions below handled: none may appear in an entry or an answer of the log. */
  const secrets: string[] = [PASSWORD];
  const expected: Expected[] = [];
  const call = () => orgCaller(t.app);

  beforeAll(async () => {
    t = await createTestContext(dialect, { deps: { resolveHost: fixedResolver(DNS), mailer: { send: async (m) => void mail.push(m), close: () => undefined } } });
    [org, other, dev] = await Promise.all([createOrgWithKey(t.database, t.clock), createOrgWithKey(t.database, t.clock), createDeveloperWithApp(t.database, t.clock)]);
    secrets.push(org.apiKey, other.apiKey, dev.app.clientSecret);
  });
  afterAll(async () => {
    await t.close();
    if (cliTarget.dataDir) rmSync(cliTarget.dataDir, { recursive: true, force: true });
  });

  async function signIn(email: string, password: string): Promise<Session> {
    const res = await t.app.inject({ method: 'POST', url: '/api/auth/signin', headers: { origin: ORIGIN, 'user-agent': UA }, payload: { email, password } });
    expect(res.statusCode, res.body).toBe(200);
    return fromSignIn(res);
  }
  function fromSignIn(res: Awaited<ReturnType<TestContext['app']['inject']>>): Session {
    const cookie = String(res.headers['set-cookie']).split(';')[0]!;
    secrets.push(cookie.split('=')[1]!);
    const data = res.json().data as { csrfToken: string; user: { id: string } };
    return { cookie, csrf: data.csrfToken, userId: data.user.id };
  }
  /** A request as the console sends it: the cookie, the CSRF token, a same-site Origin and our user agent. */
  function as(session: Session | null, method: 'GET' | 'POST' | 'PATCH' | 'DELETE', url: string, payload?: unknown, headers: Record<string, string> = {}) {
    return t.app.inject({
      method, url,
      headers: { origin: ORIGIN, 'user-agent': UA, ...(session ? { cookie: session.cookie, 'x-csrf-token': session.csrf } : {}), ...headers },
      ...(payload !== undefined ? { payload: payload as object } : {}),
    });
  }
  const withKey = (method: 'GET' | 'POST' | 'PATCH' | 'DELETE', url: string, payload?: unknown) => as(null, method, url, payload, { authorization: `Bearer ${org.apiKey}` });
  function ok(res: Awaited<ReturnType<TestContext['app']['inject']>>, status = 200) {
    expect(res.statusCode, res.body).toBe(status);
    return res.json().data;
  }
  const expect_ = (e: Expected) => expected.push(e);
  const tokenOf = (prefix: string) => {
    const text = mail.map((m) => m.text).join('\n');
    const found = [...text.matchAll(new RegExp(`${prefix}_[0-9A-Za-z]{40}`, 'g'))].map((m) => m[0]);
    return found[found.length - 1]!;
  };

  it('records every listed action, through the HTTP API and the CLI', async () => {
    // ── Accounts ──
    owner = await signIn(org.operator.email, PASSWORD);
    expect_({ action: 'auth.signin', actorType: 'user', actorId: owner.userId, target: owner.userId, log: 'org' });
    const failed = await t.app.inject({ method: 'POST', url: '/api/auth/signin', headers: { origin: ORIGIN, 'user-agent': UA }, payload: { email: org.operator.email, password: 'not the password at all' } });
    expect(failed.statusCode).toBe(401);
    secrets.push('not the password at all');
    await t.background.idle();
    expect_({ action: 'auth.signin_failed', actorType: 'user', actorId: owner.userId, target: owner.userId, log: 'org' });

    const invitation = ok(await as(owner, 'POST', '/api/org/invitations', { email: 'grace@example.com' }), 201);
    expect_({ action: 'member.invited', actorType: 'user', actorId: owner.userId, target: invitation.id, log: 'org' });
    const invite = tokenOf('svc_inv');
    secrets.push(invite);
    const joined = await t.app.inject({ method: 'POST', url: `/api/auth/invitations/${invite}/accept`, headers: { origin: ORIGIN, 'user-agent': UA }, payload: { name: 'Grace', password: 'grace password 12' } });
    const member = fromSignIn(joined);
    secrets.push('grace password 12');
    expect_({ action: 'member.joined', actorType: 'user', actorId: member.userId, target: member.userId, log: 'org' });

    expect(ok(await as(owner, 'PATCH', `/api/org/members/${member.userId}`, { role: 'owner' })).role).toBe('owner');
    ok(await withKey('PATCH', `/api/org/members/${member.userId}`, { role: 'member' }));
    expect_({ action: 'member.role_changed', actorType: 'user', actorId: owner.userId, target: member.userId, log: 'org' });
    expect_({ action: 'member.role_changed', actorType: 'api_key', actorId: expect.stringMatching(/^key_/) as unknown as string, target: member.userId, log: 'org' });

    const changed = await as(member, 'POST', '/api/auth/password', { currentPassword: 'grace password 12', newPassword: 'grace password 34' });
    const member2 = fromSignIn(changed);
    secrets.push('grace password 34');
    expect_({ action: 'auth.password_changed', actorType: 'user', actorId: member.userId, target: member.userId, log: 'org' });
    ok(await as(member2, 'POST', '/api/auth/signout-all'));
    expect(ok(await as(member2, 'GET', '/api/auth/session'))).toBeNull();
    expect_({ action: 'auth.signout_all', actorType: 'user', actorId: member.userId, target: member.userId, log: 'org' });

    expect((await t.app.inject({ method: 'POST', url: '/api/auth/password-reset', headers: { origin: ORIGIN, 'user-agent': UA }, payload: { email: 'grace@example.com' } })).statusCode).toBe(202);
    await t.background.idle();
    const reset = tokenOf('svc_rst');
    secrets.push(reset, 'grace password 56');
    const confirmed = await t.app.inject({ method: 'POST', url: '/api/auth/password-reset/confirm', headers: { origin: ORIGIN, 'user-agent': UA }, payload: { token: reset, password: 'grace password 56' } });
    const member3 = fromSignIn(confirmed);
    expect_({ action: 'auth.password_reset', actorType: 'user', actorId: member.userId, target: member.userId, log: 'org' });

    // ── Keys ──
    const key = ok(await as(owner, 'POST', '/api/org/api-keys', { name: 'Zapier' }), 201);
    secrets.push(key.key);
    expect_({ action: 'api_key.created', actorType: 'user', actorId: owner.userId, target: key.id, log: 'org' });
    ok(await withKey('POST', `/api/org/api-keys/${key.id}/revoke`));
    expect_({ action: 'api_key.revoked', actorType: 'api_key', actorId: expect.stringMatching(/^key_/) as unknown as string, target: key.id, log: 'org' });
    const agent = await createAgent(t.app, org);
    const agentKey = ok(await as(owner, 'POST', `/api/org/agents/${agent.id}/keys`, { name: 'Claude' }), 201);
    secrets.push(agentKey.key);
    expect_({ action: 'agent_key.created', actorType: 'user', actorId: owner.userId, target: agentKey.id, log: 'org' });
    ok(await as(owner, 'DELETE', `/api/org/agents/${agent.id}/keys/${agentKey.id}`));
    expect_({ action: 'agent_key.revoked', actorType: 'user', actorId: owner.userId, target: agentKey.id, log: 'org' });

    // ── A developer's tool, published with an app's token and installed with credentials ──
    devSession = await signIn(dev.developer.email, PASSWORD);
    const token = await getAccessToken(t.app, dev.app);
    secrets.push(token);
    const tool = await createTool(t.app, { authorization: `Bearer ${token}` }, { authType: 'api_key', apiKeyHeader: 'X-Api-Key' });
    ok(await t.app.inject({ method: 'POST', url: `/api/dev/tools/${tool.id}/publish`, headers: { authorization: `Bearer ${token}`, 'user-agent': UA } }));
    expect_({ action: 'tool.published', actorType: 'api_key', actorId: dev.app.clientId, target: tool.id, log: 'dev' });
    const credential = 'tool-credential-value-0123456789';
    secrets.push(credential, 'tool-credential-value-9876543210');
    const installation = ok(await as(owner, 'POST', '/api/org/installations', { toolId: tool.id, credentials: { apiKey: credential } }), 201);
    ok(await as(owner, 'PATCH', `/api/org/installations/${installation.id}`, { credentials: { apiKey: 'tool-credential-value-9876543210' } }));
    expect_({ action: 'installation.credentials_set', actorType: 'user', actorId: owner.userId, target: installation.id, log: 'org' });
    ok(await as(devSession, 'POST', `/api/dev/tools/${tool.id}/unpublish`));
    expect_({ action: 'tool.withdrawn', actorType: 'user', actorId: devSession.userId, target: tool.id, log: 'dev' });
    const rotated = ok(await as(devSession, 'POST', `/api/dev/apps/${dev.app.clientId}/secret`, {}));
    secrets.push(rotated.clientSecret);
    expect_({ action: 'app.secret_rotated', actorType: 'user', actorId: devSession.userId, target: dev.app.clientId, log: 'dev' });

    // ── Providers, webhooks, forms, settings ──
    const providerKey = 'sk-provider-key-abcdefghijklmnop';
    secrets.push(providerKey);
    const provider = ok(await as(owner, 'POST', '/api/org/model-providers', { name: 'OpenAI', kind: 'openai', apiKey: providerKey }), 201);
    expect_({ action: 'model_provider.key_set', actorType: 'user', actorId: owner.userId, target: provider.id, log: 'org' });
    const hook = ok(await as(owner, 'POST', '/api/org/webhooks', { url: 'https://hooks.example.com/in', events: ['contact.created'] }), 201);
    const hookSecret = ok(await as(owner, 'POST', `/api/org/webhooks/${hook.id}/secret`));
    secrets.push(hook.secret, hookSecret.secret);
    ok(await as(owner, 'DELETE', `/api/org/webhooks/${hook.id}`));
    for (const action of ['webhook.created', 'webhook.secret_rotated', 'webhook.deleted'] as const) expect_({ action, actorType: 'user', actorId: owner.userId, target: hook.id, log: 'org' });
    const form = await createForm(t.app, org);
    ok(await as(owner, 'PATCH', `/api/org/forms/${form.id}`, { consentText: 'I agree to be called back about my visit.' }));
    expect_({ action: 'form.consent_changed', actorType: 'user', actorId: owner.userId, target: form.id, log: 'org' });
    ok(await as(owner, 'PATCH', '/api/org/organization', { name: 'Renamed Ltd' }));
    expect_({ action: 'org.settings_changed', actorType: 'user', actorId: owner.userId, target: org.orgId, log: 'org' });
    ok(await as(owner, 'PATCH', '/api/org/organization', { retention: { submissionsDays: 90 } }));
    expect_({ action: 'org.retention_changed', actorType: 'user', actorId: owner.userId, target: org.orgId, log: 'org' });

    ok(await as(owner, 'DELETE', `/api/org/members/${member3.userId}`));
    expect_({ action: 'member.removed', actorType: 'user', actorId: owner.userId, target: member.userId, log: 'org' });

    // ── The CLI: actor `cli`, no address ──
    const cliRun = await cli('api-key', 'create', '--org', org.orgId, '--name', 'From the CLI', '--json');
    expect(cliRun.code, cliRun.stderr).toBe(0);
    const cliKey = JSON.parse(cliRun.stdout) as { id: string; key: string };
    secrets.push(cliKey.key);
    if (cliTarget.ownDatabase) {
      // On SQLite the CLI wrote its own file: its entry is checked there.
      const database = openDatabase({ dataDir: cliTarget.dataDir });
      const rows = await database.db.selectFrom('audit_log').selectAll().where('action', '=', 'api_key.created').execute();
      await database.close();
      expect(rows).toEqual([expect.objectContaining({ actor_type: 'cli', actor_id: null, ip: null, target_id: cliKey.id })]);
      expect(JSON.stringify(rows)).not.toContain(cliKey.key);
    } else {
      expect_({ action: 'api_key.created', actorType: 'cli', actorId: null, target: cliKey.id, log: 'org' });
    }

    // ── Every expected entry, found in its log with who, from where, what and on which record ──
    const orgLog = await readAll(owner, '/api/org/audit-log');
    const devLog = await readAll(devSession, '/api/dev/audit-log');
    for (const e of expected) {
      const log = e.log === 'org' ? orgLog : devLog;
      const match = log.filter((entry) => entry.action === e.action && entry.target?.id === e.target);
      expect(match, `${e.action} on ${e.target}`).toContainEqual(expect.objectContaining({ actor: expect.objectContaining({ type: e.actorType, id: e.actorId }) }));
      const entry = match.find((m) => m.actor.type === e.actorType)!;
      if (e.actorType === 'cli') expect(entry).toMatchObject({ ip: null, userAgent: null, actor: { label: 'switchboard CLI' } });
      else expect(entry).toMatchObject({ ip: '127.0.0.1', userAgent: UA });
    }
    // Every action of the closed set has an entry; a contact's erasure and export are src/privacy's tests'.
    const built = AUDIT_ACTION_NAMES.filter((name) => !['contact.erased', 'contact.exported'].includes(name));
    expect(new Set([...orgLog, ...devLog].map((e) => e.action))).toEqual(new Set(built));
    expect(orgLog.find((e) => e.action === 'auth.signin')!.actor.label).toBe(org.operator.email);
    expect(orgLog.find((e) => e.action === 'api_key.revoked')!.actor.label).toMatch(/^svc_org_…[0-9A-Za-z]{4}$/);
    expect(orgLog.find((e) => e.action === 'form.consent_changed')!.details).toEqual({ fromVersion: '1', toVersion: '2' });
    expect(orgLog.find((e) => e.action === 'member.role_changed' && e.actor.type === 'user')!.details).toEqual({ from: 'member', to: 'owner' });
    expect(orgLog.find((e) => e.action === 'installation.credentials_set')!.details).toMatchObject({ fields: ['apiKey'] });
    expect(orgLog.find((e) => e.action === 'org.retention_changed')!.details).toEqual({ submissionsDaysFrom: null, submissionsDaysTo: 90 });

    // ── No secret in any row or answer ──
    const rows = await t.database.db.selectFrom('audit_log').selectAll().execute();
    const everything = JSON.stringify(rows) + JSON.stringify(orgLog) + JSON.stringify(devLog);
    for (const secret of secrets) expect(everything, 'a secret in the audit log').not.toContain(secret);
    expect(everything).not.toMatch(/svc_(org|agt|ses|csrf|inv|rst|cs|at)_[0-9A-Za-z]{40}|whsec_/);
  });

  /** The CLI on the test's database (PostgreSQL), or on a SQLite file of its own with the org copied over. */
  const cliTarget = { ownDatabase: false, dataDir: '' };
  async function cli(...args: string[]) {
    if (dialect === 'postgres') {
      cliTarget.dataDir = mkdtempSync(join(tmpdir(), 'audit-cli-'));
      return runCliWith(cliTarget.dataDir, { env: { DATABASE_URL: t.databaseUrl! } }, ...args);
    }
    cliTarget.ownDatabase = true;
    cliTarget.dataDir = mkdtempSync(join(tmpdir(), 'audit-cli-'));
    expect((await runCliWith(cliTarget.dataDir, {}, 'migrate')).code).toBe(0);
    const database = openDatabase({ dataDir: cliTarget.dataDir });
    await database.db.insertInto('orgs').values({ id: org.orgId, name: 'CLI copy', default_country: 'US', created_at: new Date().toISOString(), daily_token_budget: null, limits: null }).execute();
    await database.close();
    return runCliWith(cliTarget.dataDir, {}, ...args);
  }

  type Entry = { id: string; action: string; actor: { type: string; id: string | null; label: string | null }; ip: string | null; userAgent: string | null; target: { type: string; id: string } | null; details: Record<string, unknown>; createdAt: string };
  async function readAll(session: Session, url: string): Promise<Entry[]> {
    const out: Entry[] = [];
    let cursor: string | null = null;
    do {
      const data = ok(await as(session, 'GET', `${url}?limit=100${cursor ? `&cursor=${cursor}` : ''}`)) as { items: Entry[]; nextCursor: string | null };
      out.push(...data.items);
      cursor = data.nextCursor;
    } while (cursor);
    return out;
  }

  it('is the owners\': a member gets 403, another organization sees none of it, no credentials 401', async () => {
    const invitation = ok(await as(owner, 'POST', '/api/org/invitations', { email: 'linus@example.com' }), 201);
    expect(invitation.id).toMatch(/^inv_/);
    const invite = tokenOf('svc_inv');
    const member = fromSignIn(await t.app.inject({ method: 'POST', url: `/api/auth/invitations/${invite}/accept`, headers: { origin: ORIGIN }, payload: { name: 'Linus', password: 'linus password 12' } }));
    const refused = await as(member, 'GET', '/api/org/audit-log');
    expect(refused.statusCode).toBe(403);
    expect(refused.json().code).toBe('FORBIDDEN');
    const theirs = ok(await call()('GET', '/api/org/audit-log?limit=100', other)) as { items: Entry[] };
    expect(theirs.items.filter((e) => e.target?.id !== other.orgId)).toEqual([]);
    expect(JSON.stringify(theirs)).not.toContain(org.orgId);
    // Their filter on our records finds nothing either.
    expect((ok(await call()('GET', `/api/org/audit-log?target=${invitation.id}`, other)) as { items: Entry[] }).items).toEqual([]);
    expect((await t.app.inject({ method: 'GET', url: '/api/org/audit-log' })).statusCode).toBe(401);
    // A developer's log: their session only; a bearer token is refused, another developer sees none of it.
    expect((await t.app.inject({ method: 'GET', url: '/api/dev/audit-log', headers: { authorization: `Bearer ${await getAccessToken(t.app, (await createDeveloperWithApp(t.database, t.clock)).app)}` } })).statusCode).toBe(403);
    const stranger = await createDeveloperWithApp(t.database, t.clock);
    const strangerSession = await signIn(stranger.developer.email, PASSWORD);
    const strangers = ok(await as(strangerSession, 'GET', '/api/dev/audit-log')) as { items: Entry[] };
    expect(strangers.items.map((e) => e.action)).toEqual(['auth.signin']);
    // No route changes or deletes an entry.
    for (const method of ['POST', 'PATCH', 'DELETE'] as const) expect((await as(owner, method, '/api/org/audit-log', method === 'DELETE' ? undefined : {})).statusCode).toBe(404);
  });

  it('filters by actor, action, target and time, and pages', async () => {
    const get = async (query: string) => ok(await as(owner, 'GET', `/api/org/audit-log?${query}`)) as { items: Entry[]; nextCursor: string | null };
    const all = (await get('limit=100')).items;
    expect(all.length).toBeGreaterThan(10);
    expect(all.map((e) => e.createdAt)).toEqual([...all.map((e) => e.createdAt)].sort().reverse());
    const byActor = (await get(`actor=${owner.userId}&limit=100`)).items;
    expect(byActor.length).toBeGreaterThan(0);
    expect(byActor.every((e) => e.actor.id === owner.userId)).toBe(true);
    const byKeys = (await get('actor=api_key&limit=100')).items;
    expect(byKeys.length).toBeGreaterThan(0);
    expect(byKeys.every((e) => e.actor.type === 'api_key')).toBe(true);
    const byAction = (await get('action=webhook.created')).items;
    expect(byAction.map((e) => e.action)).toEqual(['webhook.created']);
    const target = byAction[0]!.target!.id;
    expect((await get(`target=${target}&limit=100`)).items.map((e) => e.action).sort()).toEqual(['webhook.created', 'webhook.deleted', 'webhook.secret_rotated']);
    const oldest = all[all.length - 1]!.createdAt;
    expect((await get(`to=${encodeURIComponent(oldest)}`)).items).toEqual([]);
    expect((await get(`from=${encodeURIComponent(oldest)}&limit=100`)).items.length).toBe(all.length);
    expect((await get('from=2999-01-01T00:00:00Z')).items).toEqual([]);
    expect((await get('from=2026-01-01T00:00:00%2B02:00&limit=100')).items.length).toBe(all.length);

    // Pages of 3 walk the whole log once, newest first.
    const walked: string[] = [];
    let page = await get('limit=3');
    walked.push(...page.items.map((e) => e.id));
    while (page.nextCursor) {
      page = await get(`limit=3&cursor=${page.nextCursor}`);
      walked.push(...page.items.map((e) => e.id));
    }
    expect(walked).toEqual(all.map((e) => e.id));
  });

  it.each([
    ['actor=%3Cscript%3E'], ['action=auth.nothing'], ['target=not-an-id'], ['from=yesterday'], ['to=2026-13-45T99:00:00Z'], ['cursor=bm90IGEgY3Vyc29y'],
    ['limit=0'], ['limit=101'], ['limit=ten'], ['unknown=1'], [`actor=${'a'.repeat(300)}`], ['from=0000-01-01T00:00:00Z'],
  ])('answers 400, never 500, to a malformed filter: %s', async (query) => {
    const res = await as(owner, 'GET', `/api/org/audit-log?${query}`);
    expect(res.statusCode, res.body).toBe(400);
    expect(res.json().code).toBe('VALIDATION_ERROR');
    const dev = await as(devSession, 'GET', `/api/dev/audit-log?${query}`);
    expect(dev.statusCode, dev.body).toBe(400);
  });

  it('keeps entries 400 days, then the expiry purger removes them in batches', async () => {
    const { expiredAuditEntries } = await import('./service.js');
    const { createAuditRepo } = await import('./repo.js');
    const purge = expiredAuditEntries(createAuditRepo(t.database.db));
    const count = async () => Number((await t.database.db.selectFrom('audit_log').select((eb) => eb.fn.countAll().as('n')).executeTakeFirstOrThrow()).n);
    const before = await count();
    expect(await purge.purgeBatch(new Date(t.clock.now().getTime() + 399 * 86_400_000), 500)).toBe(0);
    expect(await count()).toBe(before);
    expect(await purge.purgeBatch(new Date(t.clock.now().getTime() + 401 * 86_400_000), 5)).toBe(5);
    expect(await count()).toBe(before - 5);
  });
});
