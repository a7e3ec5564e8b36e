import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestContext, testDialects, type TestContext } from '../../test/support/context.js';
import { developerSession } from '../../test/support/factories.js';
import { json, startHttpsEndpoint, type HttpsEndpoint } from '../../test/support/https-endpoint.js';
import { createAgent, install, toolEndpointOptions } from '../../test/support/invocation-factories.js';
import { createOrgWithKey, orgCaller, type OrgWithKey } from '../../test/support/org-factories.js';
import { createTool, publishTool } from '../../test/support/tools-factories.js';
import { STATS_DAYS } from './developer-calls.js';

type Session = Awaited<ReturnType<typeof developerSession>>;
interface DevCall { id: string; orgRef: string; outcome: string; httpStatus: number | null; durationMs: number; path: string }
interface Day { date: string; calls: number; errors: number; errorRate: number; p50Ms: number | null; p95Ms: number | null; outcomes: Record<string, number> }

/** GET /api/dev/tools/{id}/calls and …/stats: a developer's own tool's calls across organizations. */
describe.each(testDialects())('developer call log on %s', (dialect) => {
  let t: TestContext;
  let endpoint: HttpsEndpoint;
  let dev: Session;
  let stranger: Session;
  let orgA: OrgWithKey;
  let orgB: OrgWithKey;
  let toolId: string;
  let untouchedToolId: string;

  beforeAll(async () => {
    endpoint = await startHttpsEndpoint();
    t = await createTestContext(dialect, toolEndpointOptions(endpoint));
    dev = await developerSession(t.database, t.clock, t.app);
    stranger = await developerSession(t.database, t.clock, t.app);
    [orgA, orgB] = await Promise.all([createOrgWithKey(t.database, t.clock), createOrgWithKey(t.database, t.clock)]);
    const tool = await publishTool(t.app, dev.auth, (await createTool(t.app, dev.auth, { endpoint: `https://tool.test:${endpoint.port}/quote` })).id);
    toolId = tool.id;
    untouchedToolId = (await createTool(t.app, dev.auth)).id;
    const call = orgCaller(t.app);
    for (const [org, outcomes] of [[orgA, [200, 200, 500]], [orgB, [200]]] as const) {
      await install(t.app, org, { toolId });
      const agent = await createAgent(t.app, org);
      for (const status of outcomes) {
        endpoint.respond(json(status, { ok: status === 200 }));
        await call('POST', `/api/org/agents/${agent.id}/tool-calls`, org, { name: tool.name, arguments: { weightKg: 1, country: 'PT' } });
      }
      // An invalid-arguments call is logged too (no request sent).
      if (org === orgB) await call('POST', `/api/org/agents/${agent.id}/tool-calls`, org, { name: tool.name, arguments: { weightKg: 'x' } });
    }
  });
  afterAll(async () => {
    await t.close();
    await endpoint.close();
  });

  const get = (path: string, who: Session = dev) => t.app.inject({ method: 'GET', url: path, headers: who.auth });

  // Every call was answered before this runs, so every one is in the log (no waiting: a call is answered once its row is committed).
  async function allCalls(): Promise<DevCall[]> {
    const res = await get(`/api/dev/tools/${toolId}/calls?limit=100`);
    expect(res.statusCode).toBe(200);
    const items = (res.json() as { data: { items: DevCall[] } }).data.items;
    expect(items).toHaveLength(5);
    return items;
  }

  it('lists the tool\'s calls from every organization, each only as an opaque reference', async () => {
    const items = await allCalls();
    const refs = new Set(items.map((item) => item.orgRef));
    expect(refs.size).toBe(2);
    for (const ref of refs) expect(ref).toMatch(/^orgref_[A-Za-z0-9_-]{22}$/);
    const byRef = [...refs].map((ref) => items.filter((item) => item.orgRef === ref).map((item) => item.outcome).sort());
    expect(byRef.sort()).toEqual([['INVALID_ARGUMENTS', 'OK'], ['OK', 'OK', 'TOOL_HTTP_ERROR']].sort());
    const raw = (await get(`/api/dev/tools/${toolId}/calls?limit=100`)).body;
    for (const secret of [orgA.orgId, orgB.orgId, 'agt_', 'inst_', 'installationId', 'agentId']) expect(raw).not.toContain(secret);
    expect(items[0]).toMatchObject({ id: expect.stringMatching(/^call_/), path: 'operator' });
  });

  it('pages with limit and cursor', async () => {
    await allCalls();
    const first = (await get(`/api/dev/tools/${toolId}/calls?limit=3`)).json() as { data: { items: DevCall[]; nextCursor: string } };
    expect(first.data.items).toHaveLength(3);
    const second = (await get(`/api/dev/tools/${toolId}/calls?limit=3&cursor=${encodeURIComponent(first.data.nextCursor)}`)).json() as { data: { items: DevCall[]; nextCursor: string | null } };
    expect(second.data.items).toHaveLength(2);
    expect(second.data.nextCursor).toBeNull();
    expect(new Set([...first.data.items, ...second.data.items].map((item) => item.id)).size).toBe(5);
  });

  it('gives daily statistics for the last 30 days', async () => {
    await allCalls();
    const res = await get(`/api/dev/tools/${toolId}/stats`);
    expect(res.statusCode).toBe(200);
    const { days } = (res.json() as { data: { days: Day[] } }).data;
    expect(days).toHaveLength(STATS_DAYS);
    const today = t.clock.now().toISOString().slice(0, 10);
    expect(days.at(-1)!.date).toBe(today);
    expect(days.at(-1)).toMatchObject({ calls: 5, errors: 2, errorRate: 0.4, p50Ms: expect.any(Number), p95Ms: expect.any(Number) });
    expect(days.at(-1)!.p95Ms!).toBeGreaterThanOrEqual(days.at(-1)!.p50Ms!);
    expect(days.at(-1)!.outcomes).toEqual({ OK: 3, TOOL_HTTP_ERROR: 1, INVALID_ARGUMENTS: 1 });
    expect(days[0]).toEqual({ date: expect.any(String), calls: 0, errors: 0, errorRate: 0, p50Ms: null, p95Ms: null, outcomes: {} });
    expect(Date.parse(days.at(-1)!.date) - Date.parse(days[0]!.date)).toBe((STATS_DAYS - 1) * 86_400_000);

    const empty = (await get(`/api/dev/tools/${untouchedToolId}/stats`)).json() as { data: { days: Day[] } };
    expect(empty.data.days.every((day) => day.calls === 0)).toBe(true);
  });

  it('filters the calls by outcome, path and time range', async () => {
    await allCalls();
    const ids = async (query: string) => {
      const res = await get(`/api/dev/tools/${toolId}/calls?limit=100&${query}`);
      expect(res.statusCode, res.body).toBe(200);
      return (res.json() as { data: { items: DevCall[] } }).data.items;
    };
    expect((await ids('outcome=OK')).map((item) => item.outcome)).toEqual(['OK', 'OK', 'OK']);
    expect((await ids('outcome=TOOL_HTTP_ERROR')).map((item) => item.httpStatus)).toEqual([500]);
    expect(await ids('outcome=TOOL_TIMEOUT')).toEqual([]);
    expect(await ids('path=test')).toEqual([]);
    expect(await ids('path=operator')).toHaveLength(5);
    // Every call was made at the test clock's time: `from` is inclusive, `to` exclusive, offsets converted.
    const now = t.clock.now();
    const at = (ms: number, offset = 'Z') => encodeURIComponent(new Date(now.getTime() + ms).toISOString().replace('Z', offset));
    expect(await ids(`from=${at(0)}`)).toHaveLength(5);
    expect(await ids(`from=${at(1)}`)).toEqual([]);
    expect(await ids(`to=${at(0)}`)).toEqual([]);
    expect(await ids(`to=${at(1)}&outcome=OK`)).toHaveLength(3);
    // The same instant written in +02:00 (wall clock two hours ahead).
    const shifted = encodeURIComponent(new Date(now.getTime() + 2 * 3_600_000 + 1).toISOString().replace('Z', '+02:00'));
    expect(await ids(`to=${shifted}`)).toHaveLength(5);
    expect(await ids(`from=${shifted}`)).toEqual([]);
  });

  it('refuses bad filter values with 400 VALIDATION_ERROR naming the field', async () => {
    for (const [query, field] of [['outcome=ok', 'outcome'], ['outcome=OK%3B', 'outcome'], ['from=yesterday', 'from'], ['to=2026-13-01T00:00:00Z', 'to'], ['path=cli', 'path'], ['limit=0', 'limit'], ['color=red', 'color']] as const) {
      const res = await get(`/api/dev/tools/${toolId}/calls?${query}`);
      expect(res.statusCode, query).toBe(400);
      const body = res.json() as { code: string; error: string; details: Array<{ path: string }> };
      expect(body.code, query).toBe('VALIDATION_ERROR');
      expect(JSON.stringify(body.details) + body.error, query).toContain(field);
    }
  });

  it('answers 404 for another developer\'s tool and for an unknown id, 401 without a token, 403 without tools:read', async () => {
    for (const path of [`/api/dev/tools/${toolId}/calls`, `/api/dev/tools/${toolId}/stats`]) {
      const res = await get(path, stranger);
      expect(res.statusCode, path).toBe(404);
      expect(res.json()).toMatchObject({ code: 'TOOL_NOT_FOUND' });
      expect(res.body).not.toContain('orgref_');
    }
    expect((await get('/api/dev/tools/tool_doesnotexist000000000000/calls')).statusCode).toBe(404);
    expect((await t.app.inject({ method: 'GET', url: `/api/dev/tools/${toolId}/stats` })).statusCode).toBe(401);
    const writer = await developerSession(t.database, t.clock, t.app, 'tools:write');
    expect((await get(`/api/dev/tools/${toolId}/calls`, writer)).statusCode).toBe(403);
  });

  it('with a console session: reads without a CSRF token; refuses a test call without one, an operator without a developer account, and another developer', async () => {
    const signIn = async (email: string) => {
      const res = await t.app.inject({ method: 'POST', url: '/api/auth/signin', payload: { email, password: 'correct horse battery' } });
      expect(res.statusCode, res.body).toBe(200);
      return { cookie: String(res.headers['set-cookie']).split(';')[0]!, csrf: (res.json() as { data: { csrfToken: string } }).data.csrfToken };
    };
    const mine = await signIn(dev.developer.email);
    const filtered = await t.app.inject({ method: 'GET', url: `/api/dev/tools/${toolId}/calls?outcome=OK`, headers: { cookie: mine.cookie } });
    expect(filtered.statusCode, filtered.body).toBe(200);
    expect((filtered.json() as { data: { items: DevCall[] } }).data.items.map((item) => item.outcome)).toEqual(['OK', 'OK', 'OK']);

    const before = (await allCalls()).length;
    const noCsrf = await t.app.inject({ method: 'POST', url: `/api/dev/tools/${toolId}/test`, headers: { cookie: mine.cookie }, payload: { arguments: { weightKg: 1, country: 'PT' } } });
    expect(noCsrf.statusCode).toBe(403);
    expect(noCsrf.json()).toMatchObject({ code: 'FORBIDDEN' });
    expect((await allCalls()).length).toBe(before);

    const operator = await signIn(orgA.operator.email);
    for (const path of [`/api/dev/tools/${toolId}/calls?outcome=OK`, `/api/dev/tools/${toolId}/stats`]) {
      const res = await t.app.inject({ method: 'GET', url: path, headers: { cookie: operator.cookie } });
      expect(res.statusCode, path).toBe(403);
      expect(res.json()).toMatchObject({ code: 'FORBIDDEN', error: expect.stringMatching(/developer/i) });
      const other = await t.app.inject({ method: 'GET', url: path, headers: { cookie: (await signIn(stranger.developer.email)).cookie } });
      expect(other.statusCode, path).toBe(404);
      expect(other.json()).toMatchObject({ code: 'TOOL_NOT_FOUND' });
      expect((await t.app.inject({ method: 'GET', url: path })).statusCode, path).toBe(401);
    }
  });
});
