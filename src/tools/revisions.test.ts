import type { LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestContext, testDialects, type TestContext } from '../../test/support/context.js';
import { changedTables, databaseSnapshot } from '../../test/support/db-snapshot.js';
import { createDeveloperWithApp, type DeveloperWithApp } from '../../test/support/factories.js';
import { createOrgWithKey } from '../../test/support/org-factories.js';
import { createTool, fixedResolver, publishTool, updateTool } from '../../test/support/tools-factories.js';

const PASSWORD = 'correct horse battery';
interface Session { cookie: string; csrfToken: string }
interface Revision { id: string; version: number; live: boolean; publishedAt: string; description: string; parameters: Array<{ name: string }> }

/**
 * GET /api/dev/tools/{tool_id}/revisions (issue 20), as the portal calls it: with a developer's console
 * session. Bearer tokens and every operation's refusals are also covered by http/route-security.test.ts.
 */
describe.each(testDialects())('tool revisions on %s', (dialect) => {
  let t: TestContext;
  let ada: DeveloperWithApp;
  let bob: DeveloperWithApp;
  let adaSession: Session;
  let bobSession: Session;
  let operatorSession: Session;

  async function signIn(email: string): Promise<Session> {
    const res = await t.app.inject({ method: 'POST', url: '/api/auth/signin', payload: { email, password: PASSWORD } });
    if (res.statusCode !== 200) throw new Error(`sign-in failed: ${res.statusCode} ${res.body}`);
    return { cookie: String(res.headers['set-cookie']).split(';')[0]!, csrfToken: (res.json() as { data: { csrfToken: string } }).data.csrfToken };
  }
  const as = (session: Session) => ({ cookie: session.cookie, 'x-csrf-token': session.csrfToken });
  const list = (toolId: string, headers: Record<string, string>, query = '') => t.app.inject({ method: 'GET', url: `/api/dev/tools/${toolId}/revisions${query}`, headers });

  async function refused(send: () => Promise<LightMyRequestResponse>) {
    const before = await databaseSnapshot(t.database);
    const res = await send();
    const body = res.json() as { success: boolean; code: string; error: string };
    expect(body.success).toBe(false);
    expect(changedTables(before, await databaseSnapshot(t.database))).toEqual([]);
    return { status: res.statusCode, code: body.code, error: body.error };
  }

  beforeAll(async () => {
    t = await createTestContext(dialect, { deps: { resolveHost: fixedResolver() } });
    ada = await createDeveloperWithApp(t.database, t.clock);
    bob = await createDeveloperWithApp(t.database, t.clock);
    adaSession = await signIn(ada.developer.email);
    bobSession = await signIn(bob.developer.email);
    operatorSession = await signIn((await createOrgWithKey(t.database, t.clock)).operator.email);
  });
  afterAll(async () => t.close());

  it('lists the published revisions newest first, each with its definition, the live one marked', async () => {
    const auth = as(adaSession);
    const tool = await createTool(t.app, auth, { description: 'Version one.' });
    expect((await list(tool.id, auth)).json()).toEqual({ success: true, data: { items: [], nextCursor: null } });

    t.clock.advance(60_000);
    await publishTool(t.app, auth, tool.id);
    const firstAt = t.clock.now().toISOString();
    await updateTool(t.app, auth, tool.id, { description: 'Version two.', parameters: [{ name: 'city', type: 'string', required: true }] });
    t.clock.advance(60_000);
    await publishTool(t.app, auth, tool.id);
    const secondAt = t.clock.now().toISOString();
    // A working-copy edit after that is not a revision.
    await updateTool(t.app, auth, tool.id, { description: 'Unpublished edit.' });

    // A GET needs no CSRF token.
    const res = await list(tool.id, { cookie: adaSession.cookie });
    expect(res.statusCode, res.body).toBe(200);
    const items = (res.json() as { data: { items: Revision[] } }).data.items;
    expect(items.map((r) => [r.version, r.live, r.publishedAt, r.description])).toEqual([
      [2, true, secondAt, 'Version two.'],
      [1, false, firstAt, 'Version one.'],
    ]);
    expect(items[0]).toMatchObject({ id: expect.stringMatching(/^rev_/), name: tool.name, endpoint: tool.endpoint, method: 'POST', authType: 'none', apiKeyHeader: null, category: 'other' });
    expect(items[0]!.parameters).toEqual([{ name: 'city', type: 'string', description: '', required: true }]);
    expect(items[1]!.parameters).toEqual(tool.parameters);

    // Paged like every list.
    const first = (await list(tool.id, auth, '?limit=1')).json() as { data: { items: Revision[]; nextCursor: string } };
    expect(first.data.items.map((r) => r.version)).toEqual([2]);
    const second = (await list(tool.id, auth, `?limit=1&cursor=${encodeURIComponent(first.data.nextCursor)}`)).json() as { data: { items: Revision[]; nextCursor: string | null } };
    expect(second.data.items.map((r) => r.version)).toEqual([1]);
    expect(second.data.nextCursor).toBeNull();

    // Withdrawn: the revisions stay, none is live.
    expect((await t.app.inject({ method: 'POST', url: `/api/dev/tools/${tool.id}/unpublish`, headers: auth })).statusCode).toBe(200);
    const withdrawn = (await list(tool.id, auth)).json() as { data: { items: Revision[] } };
    expect(withdrawn.data.items.map((r) => [r.version, r.live])).toEqual([[2, false], [1, false]]);
  });

  it('refuses no session, another developer, an operator without a developer account and bad query values', async () => {
    const tool = await createTool(t.app, as(adaSession));
    await publishTool(t.app, as(adaSession), tool.id);

    expect(await refused(() => list(tool.id, {}))).toMatchObject({ status: 401, code: 'UNAUTHORIZED' });
    expect(await refused(() => list(tool.id, { cookie: 'svc_session=forged' }))).toMatchObject({ status: 401 });
    const stranger = await refused(() => list(tool.id, as(bobSession)));
    expect(stranger).toEqual({ status: 404, code: 'TOOL_NOT_FOUND', error: 'No tool with that id exists in your account.' });
    expect((await refused(() => list('tool_doesnotexist0000000000', as(adaSession)))).code).toBe('TOOL_NOT_FOUND');
    const operator = await refused(() => list(tool.id, as(operatorSession)));
    expect(operator.status).toBe(403);
    expect(operator.code).toBe('FORBIDDEN');
    expect(operator.error).toMatch(/developer/i);
    for (const query of ['?limit=0', '?limit=101', '?limit=x', '?cursor=forged', '?status=draft']) {
      const bad = await refused(() => list(tool.id, as(adaSession), query));
      expect(bad, query).toMatchObject({ status: 400, code: 'VALIDATION_ERROR' });
    }
  });
});
