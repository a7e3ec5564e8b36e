import { createHmac } from 'node:crypto';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createTestContext, testDialects, type TestContext } from '../../test/support/context.js';
import { developerSession } from '../../test/support/factories.js';
import { json, startHttpsEndpoint, type HttpsEndpoint } from '../../test/support/https-endpoint.js';
import { createOrgWithKey, orgCaller } from '../../test/support/org-factories.js';
import { toolEndpointOptions } from '../../test/support/invocation-factories.js';
import { createTool, publishTool, updateTool } from '../../test/support/tools-factories.js';
import { VERSION } from '../version.js';

type Session = Awaited<ReturnType<typeof developerSession>>;
interface TestAnswer {
  callId: string;
  request: { method: string; url: string; headers: Record<string, string>; body: string };
  response: { ok: boolean; status?: number; durationMs: number; result?: unknown; code?: string; message?: string; body?: unknown };
}

const SECRET = 'whsec_test_only_secret';
const TOKEN = 'test-bearer-token-value';

/** POST /api/dev/tools/{id}/test against a real HTTPS endpoint on 127.0.0.1 (test CA). */
describe.each(testDialects())('testing a working copy on %s', (dialect) => {
  let t: TestContext;
  let endpoint: HttpsEndpoint;
  let dev: Session;
  let url: (path: string) => string;

  beforeAll(async () => {
    endpoint = await startHttpsEndpoint();
    url = (path) => `https://tool.test:${endpoint.port}${path}`;
    t = await createTestContext(dialect, toolEndpointOptions(endpoint));
    dev = await developerSession(t.database, t.clock, t.app);
  });
  afterEach(() => {
    endpoint.respond(json(200, { ok: true }));
    endpoint.reset();
  });
  afterAll(async () => {
    await t.close();
    await endpoint.close();
  });

  const run = (toolId: string, payload: unknown, who: Session = dev) =>
    t.app.inject({ method: 'POST', url: `/api/dev/tools/${toolId}/test`, headers: who.auth, payload: payload as object });

  it('calls a draft with an HMAC secret: the exact request (signature verifiable over the body shown) and the response', async () => {
    const draft = await createTool(t.app, dev.auth, { endpoint: url('/hook'), authType: 'hmac' });
    endpoint.respond(json(200, { quote: 9.9 }));
    const res = await run(draft.id, { arguments: { weightKg: 1.5, country: 'PT' }, credentials: { secret: SECRET } });
    expect(res.statusCode).toBe(200);
    const answer = (res.json() as { data: TestAnswer }).data;
    expect(answer.response).toEqual({ ok: true, status: 200, durationMs: expect.any(Number), result: { quote: 9.9 } });

    expect(endpoint.requests).toHaveLength(1);
    const received = endpoint.requests[0]!;
    expect(received.body.toString('utf8')).toBe(answer.request.body);
    expect(answer.request).toMatchObject({ method: 'POST', url: url('/hook') });
    expect(answer.request.headers).toMatchObject({ 'Content-Type': 'application/json', Accept: 'application/json', 'User-Agent': `Switchboard/${VERSION}` });
    const timestamp = answer.request.headers['X-Svc-Timestamp']!;
    const expected = `sha256=${createHmac('sha256', SECRET).update(`${timestamp}.${answer.request.body}`).digest('hex')}`;
    expect(answer.request.headers['X-Svc-Signature']).toBe(expected);
    expect(received.headers['x-svc-signature']).toBe(expected);
    expect(JSON.parse(answer.request.body)).toEqual({
      weightKg: 1.5, country: 'PT',
      _svc_context: { agentId: 'agt_test', orgId: 'org_test', timestamp: expect.any(String), callId: answer.callId, toolId: draft.id },
    });
    expect(res.body).not.toContain(SECRET);
  });

  it('masks a bearer token in the request shown, and sends the real one', async () => {
    const draft = await createTool(t.app, dev.auth, { endpoint: url('/hook'), authType: 'bearer' });
    const res = await run(draft.id, { arguments: { weightKg: 1, country: 'PT' }, credentials: { token: TOKEN } });
    expect(res.statusCode).toBe(200);
    const answer = (res.json() as { data: TestAnswer }).data;
    expect(answer.request.headers.Authorization).toBe('Bearer ********');
    expect(res.body).not.toContain(TOKEN);
    expect(endpoint.requests[0]!.headers.authorization).toBe(`Bearer ${TOKEN}`);
    // Nothing is stored: no installation credentials exist at all.
    expect(await t.database.db.selectFrom('installation_credentials').selectAll().execute()).toEqual([]);
  });

  it('uses the working copy, not the published revision', async () => {
    const tool = await publishTool(t.app, dev.auth, (await createTool(t.app, dev.auth, { endpoint: url('/v1') })).id);
    await updateTool(t.app, dev.auth, tool.id, { endpoint: url('/v2') });
    const res = await run(tool.id, { arguments: { weightKg: 1, country: 'PT' } });
    expect(res.statusCode).toBe(200);
    expect(endpoint.requests[0]!.path).toBe('/v2');
  });

  it('reports an endpoint failure as the outcome an agent would get', async () => {
    const draft = await createTool(t.app, dev.auth, { endpoint: url('/hook') });
    endpoint.respond(json(503, { error: 'down for maintenance' }));
    const res = await run(draft.id, { arguments: { weightKg: 1, country: 'PT' } });
    expect(res.statusCode).toBe(200);
    expect((res.json() as { data: TestAnswer }).data.response).toMatchObject({ ok: false, code: 'TOOL_HTTP_ERROR', status: 503, body: { error: 'down for maintenance' } });
  });

  it('refuses invalid arguments and missing or foreign credentials without sending anything', async () => {
    const draft = await createTool(t.app, dev.auth, { endpoint: url('/hook'), authType: 'hmac' });
    const invalid = await run(draft.id, { arguments: { weightKg: 'heavy' }, credentials: { secret: SECRET } });
    expect(invalid.statusCode).toBe(400);
    expect(invalid.json()).toMatchObject({ code: 'INVALID_ARGUMENTS', details: expect.any(Array) });
    const missing = await run(draft.id, { arguments: { weightKg: 1, country: 'PT' } });
    expect(missing.statusCode).toBe(400);
    expect(missing.json()).toMatchObject({ code: 'VALIDATION_ERROR', details: [{ path: 'credentials.secret' }] });
    const foreign = await run(draft.id, { arguments: { weightKg: 1, country: 'PT' }, credentials: { secret: SECRET, token: TOKEN } });
    expect(foreign.statusCode).toBe(400);
    expect(endpoint.requests).toHaveLength(0);
  });

  it('logs a sent test call with path test: in the developer\'s call list (no organization, no revision), out of the stats and of every organization\'s log', async () => {
    const draft = await createTool(t.app, dev.auth, { endpoint: url('/hook'), authType: 'bearer' });
    endpoint.respond(json(502, { error: 'upstream' }));
    const answer = (await run(draft.id, { arguments: { weightKg: 1, country: 'PT' }, credentials: { token: TOKEN } })).json() as { data: TestAnswer };
    // Invalid arguments send nothing, so they log nothing.
    expect((await run(draft.id, { arguments: { weightKg: 'heavy' }, credentials: { token: TOKEN } })).statusCode).toBe(400);

    const calls = async () => {
      const res = await t.app.inject({ method: 'GET', url: `/api/dev/tools/${draft.id}/calls`, headers: dev.auth });
      return (res.json() as { data: { items: Array<Record<string, unknown>> } }).data.items;
    };
    // In the log as soon as it was answered.
    expect(await calls()).toHaveLength(1);
    expect((await calls())[0]).toEqual({
      id: answer.data.callId, orgRef: null, revisionId: null, path: 'test', outcome: 'TOOL_HTTP_ERROR', httpStatus: 502,
      durationMs: expect.any(Number), requestBytes: Buffer.byteLength(answer.data.request.body), responseBytes: expect.any(Number), createdAt: expect.any(String),
    });

    const stats = await t.app.inject({ method: 'GET', url: `/api/dev/tools/${draft.id}/stats`, headers: dev.auth });
    const days = (stats.json() as { data: { days: Array<{ calls: number }> } }).data.days;
    expect(days.reduce((sum, day) => sum + day.calls, 0)).toBe(0);

    const org = await createOrgWithKey(t.database, t.clock);
    const orgLog = await orgCaller(t.app)('GET', `/api/org/tool-calls?toolId=${draft.id}`, org);
    expect((orgLog.json() as { data: { items: unknown[] } }).data.items).toEqual([]);
    // Like every call log row, no payload and no credential.
    const rows = JSON.stringify(await t.database.db.selectFrom('tool_calls').selectAll().where('id', '=', answer.data.callId).execute());
    expect(rows).not.toContain(TOKEN);
    expect(rows).not.toContain('weightKg');
  });

  it('answers 404 for another developer\'s tool and 403 without tools:write', async () => {
    const draft = await createTool(t.app, dev.auth, { endpoint: url('/hook') });
    const stranger = await developerSession(t.database, t.clock, t.app);
    const res = await run(draft.id, { arguments: { weightKg: 1, country: 'PT' } }, stranger);
    expect(res.statusCode).toBe(404);
    expect(res.json()).toMatchObject({ code: 'TOOL_NOT_FOUND' });
    const reader = await developerSession(t.database, t.clock, t.app, 'tools:read');
    expect((await run(draft.id, { arguments: { weightKg: 1, country: 'PT' } }, reader)).statusCode).toBe(403);
    expect(endpoint.requests).toHaveLength(0);
  });
});
