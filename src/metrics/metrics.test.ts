import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../config.js';
import { createTestContext, TEST_ENV, testDialects, type TestContext } from '../../test/support/context.js';
import { developerSession } from '../../test/support/factories.js';
import { createForm, nextClientIp, submit } from '../../test/support/form-factories.js';
import { json, startHttpsEndpoint, type HttpsEndpoint } from '../../test/support/https-endpoint.js';
import { createAgent, install, toolEndpointOptions } from '../../test/support/invocation-factories.js';
import { freePort } from '../../test/support/net.js';
import { createOrgWithKey, type OrgWithKey } from '../../test/support/org-factories.js';
import { createTool, publishTool } from '../../test/support/tools-factories.js';

const TOKEN = 'metrics-token-0123456789abcdef0123456789abcdef';

/** One sample's value from the text format: `name{labels…}` with every given label, or undefined. */
function sample(text: string, name: string, labels: Record<string, string> = {}): number | undefined {
  for (const line of text.split('\n')) {
    if (!line.startsWith(`${name}{`) && !line.startsWith(`${name} `)) continue;
    if (Object.entries(labels).every(([key, value]) => line.includes(`${key}="${value}"`))) return Number(line.slice(line.lastIndexOf(' ') + 1));
  }
  return undefined;
}

describe.each(testDialects())('metrics on %s', (dialect) => {
  let t: TestContext;
  let endpoint: HttpsEndpoint;
  let org: OrgWithKey;
  let agentId: string;
  let toolName: string;
  let metricsPort: number;

  const scrape = async (token = TOKEN) => t.app.inject({ method: 'GET', url: '/metrics', headers: { authorization: `Bearer ${token}` } });

  beforeAll(async () => {
    endpoint = await startHttpsEndpoint(json(200, { price: 12.5 }));
    metricsPort = await freePort();
    const options = toolEndpointOptions(endpoint, { METRICS_TOKEN: TOKEN, METRICS_PORT: String(metricsPort), METRICS_HOST: '127.0.0.1' });
    t = await createTestContext(dialect, options);
    await t.app.listen({ port: 0, host: '127.0.0.1' });
    const dev = await developerSession(t.database, t.clock, t.app);
    org = await createOrgWithKey(t.database, t.clock);
    const tool = await publishTool(t.app, dev.auth, (await createTool(t.app, dev.auth, { endpoint: `https://tool.test:${endpoint.port}/quote` })).id);
    toolName = (await install(t.app, org, { toolId: tool.id })).name;
    agentId = (await createAgent(t.app, org)).id;
  });
  afterAll(async () => {
    await t?.close();
    await endpoint?.close();
  });

  it('counts requests, tool calls, submissions, refusals and cache lookups, and the series move with traffic', async () => {
    const before = (await scrape()).body;
    const form = await createForm(t.app, org);
    const ip = nextClientIp();
    expect((await submit(t.app, form.slug, { name: 'Ada', email: 'ada@example.com', consentVersion: form.consentVersion }, { ip })).statusCode).toBe(200);
    expect((await submit(t.app, form.slug, { name: 'Bot', email: 'bot@example.com', consentVersion: form.consentVersion, _hp: 'x' }, { ip })).statusCode).toBe(200);
    expect((await submit(t.app, form.slug, { name: 'Ada' }, { ip })).statusCode).toBe(400);
    const called = await t.app.inject({ method: 'POST', url: `/api/org/agents/${agentId}/tool-calls`, headers: org.auth, payload: { name: toolName, arguments: { weightKg: 2, country: 'PT' } } });
    expect(called.statusCode).toBe(200);
    endpoint.respond(json(500, { error: 'down' }));
    await t.app.inject({ method: 'POST', url: `/api/org/agents/${agentId}/tool-calls`, headers: org.auth, payload: { name: toolName, arguments: { weightKg: 2, country: 'PT' } } });
    endpoint.respond(json(200, { price: 12.5 }));
    // The submit limit per client and form, reached.
    let status = 0;
    for (let i = 0; i < 40 && status !== 429; i++) status = (await submit(t.app, form.slug, { name: 'Ada' }, { ip })).statusCode;
    expect(status).toBe(429);

    const after = await scrape();
    expect(after.statusCode).toBe(200);
    expect(after.headers['content-type']).toContain('text/plain; version=0.0.4');
    const text = after.body;
    const moved = (name: string, labels: Record<string, string>) => (sample(text, name, labels) ?? 0) - (sample(before, name, labels) ?? 0);
    expect(moved('switchboard_form_submissions_total', { outcome: 'accepted' })).toBe(1);
    expect(moved('switchboard_form_submissions_total', { outcome: 'honeypot' })).toBe(1);
    expect(moved('switchboard_form_submissions_total', { outcome: 'CONSENT_REQUIRED' })).toBeGreaterThanOrEqual(1);
    expect(moved('switchboard_tool_calls_total', { outcome: 'OK', path: 'operator' })).toBe(1);
    expect(moved('switchboard_tool_calls_total', { outcome: 'TOOL_HTTP_ERROR', path: 'operator' })).toBe(1);
    expect(moved('switchboard_tool_call_duration_seconds_count', { outcome: 'OK' })).toBe(1);
    expect(moved('switchboard_rate_limit_refusals_total', { rule: 'form-submit' })).toBeGreaterThanOrEqual(1);
    expect(moved('switchboard_cache_lookups_total', { cache: 'form', result: 'hit' })).toBeGreaterThanOrEqual(1);
    expect(moved('switchboard_cache_lookups_total', { cache: 'key', result: 'hit' })).toBeGreaterThanOrEqual(1);
    // Requests by the route's pattern, never the raw path with its ids.
    expect(moved('switchboard_http_requests_total', { route: '/api/org/agents/:id/tool-calls', method: 'POST', status: '200' })).toBe(1);
    expect(moved('switchboard_http_request_duration_seconds_count', { route: '/api/public/forms/:slug/submit', method: 'POST', status: '429' })).toBeGreaterThanOrEqual(1);
    expect(text).not.toContain(agentId);
    expect(text).not.toContain(form.slug);
    // The process defaults, event-loop lag among them.
    expect(sample(text, 'nodejs_eventloop_lag_seconds')).toBeGreaterThanOrEqual(0);
    if (dialect === 'postgres') expect(sample(text, 'switchboard_db_pool_connections', { state: 'idle' })).toBeGreaterThanOrEqual(0);
    else expect(text).not.toContain('switchboard_db_pool_connections');
  });

  it('answers /metrics on the main port only with the token', async () => {
    for (const headers of [{}, { authorization: 'Bearer wrong' }, { authorization: `Bearer ${TOKEN}x` }, { authorization: TOKEN }]) {
      const res = await t.app.inject({ method: 'GET', url: '/metrics', headers });
      expect(res.statusCode).toBe(401);
      expect(res.json()).toMatchObject({ success: false, code: 'UNAUTHORIZED' });
      expect(res.body).not.toContain('switchboard_');
    }
  });

  it('serves the same metrics on METRICS_PORT, and nothing else there', async () => {
    const res = await fetch(`http://127.0.0.1:${metricsPort}/metrics`);
    expect(res.status).toBe(200);
    expect(await res.text()).toContain('switchboard_http_requests_total');
    expect((await fetch(`http://127.0.0.1:${metricsPort}/api/org/agents`)).status).toBe(404);
    expect((await fetch(`http://127.0.0.1:${metricsPort}/metrics`, { method: 'POST' })).status).toBe(404);
  });

  it('is not served at all unless METRICS_PORT or METRICS_TOKEN is set', async () => {
    const plain = await createTestContext(dialect);
    try {
      const res = await plain.app.inject({ method: 'GET', url: '/metrics', headers: { authorization: `Bearer ${TOKEN}` } });
      expect(res.statusCode).toBe(404);
    } finally {
      await plain.close();
    }
  });
});

describe('metrics configuration', () => {
  it('refuses a short token and a port shared with the server', () => {
    expect(() => loadConfig({ ...TEST_ENV, METRICS_TOKEN: 'short' })).toThrow(/METRICS_TOKEN must be at least 32/);
    expect(() => loadConfig({ ...TEST_ENV, PORT: '3000', METRICS_PORT: '3000' })).toThrow(/METRICS_PORT must differ from PORT/);
    expect(() => loadConfig({ ...TEST_ENV, METRICS_PORT: '70000' })).toThrow(/METRICS_PORT must be a whole number/);
    expect(loadConfig({ ...TEST_ENV, HOST: '0.0.0.0', METRICS_PORT: '9464' }).metrics).toEqual({ port: 9464, host: '0.0.0.0', token: undefined });
  });
});
