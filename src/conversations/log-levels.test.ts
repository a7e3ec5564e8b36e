import { Writable } from 'node:stream';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createTestContext, type TestContext } from '../../test/support/context.js';
import { conversationWithTool, MODEL_KEY, publishedTool, sendMessage } from '../../test/support/conversation-factories.js';
import { hangUp, json, startHttpsEndpoint, type HttpsEndpoint } from '../../test/support/https-endpoint.js';
import { toolEndpointOptions } from '../../test/support/invocation-factories.js';
import { createOrgWithKey, orgCaller, type OrgWithKey } from '../../test/support/org-factories.js';
import { startScriptedModel, type Scripted, type ScriptedModel } from '../../test/support/scripted-model.js';

/**
 * Log levels (issue 32): a model provider's failure (401, 429, 5xx, a timeout, a redirect) and a tool endpoint's
 * failure are the outside world's, not ours: each is one warning line with its code and our message, never an
 * error-level line and never a stack trace; the provider's key never appears. Error level means a bug of ours.
 */
type Line = { level: number; msg: string; code?: string; err?: unknown; [field: string]: unknown };

describe('log levels of the outside world\'s failures', () => {
  let t: TestContext;
  let endpoint: HttpsEndpoint;
  let model: ScriptedModel;
  let org: OrgWithKey;
  let toolId: string;
  const raw: string[] = [];
  const lines = () => raw.join('').split('\n').filter((line) => line.startsWith('{')).map((line) => JSON.parse(line) as Line);

  beforeAll(async () => {
    endpoint = await startHttpsEndpoint(json(200, { price: 12.5 }));
    model = await startScriptedModel();
    const logStream = new Writable({ write(chunk, _encoding, done) { raw.push(String(chunk)); done(); } });
    const options = toolEndpointOptions(endpoint, { MODEL_ALLOW_PRIVATE_ENDPOINTS: '1', MODEL_TIMEOUT_MS: '1000', LOG_LEVEL: 'info' });
    t = await createTestContext('sqlite', { ...options, deps: { ...options.deps, logStream } });
    org = await createOrgWithKey(t.database, t.clock);
    toolId = (await publishedTool(t, endpoint)).id;
  });
  beforeEach(() => {
    raw.length = 0;
    model.requests.length = 0;
  });
  afterAll(async () => {
    await t.close();
    await endpoint.close();
    await model.close();
  });

  function expectOneWarning(code: string) {
    const all = lines();
    expect(all.filter((line) => line.level >= 50), JSON.stringify(all)).toEqual([]);
    expect(all.filter((line) => line.err !== undefined || JSON.stringify(line).includes('"stack"'))).toEqual([]);
    const warnings = all.filter((line) => line.level === 40);
    expect(warnings, JSON.stringify(all)).toHaveLength(1);
    expect(warnings[0]).toMatchObject({ code, msg: 'request failed upstream', message: expect.any(String) });
    expect(raw.join('')).not.toContain(MODEL_KEY);
  }

  const failures: Array<[string, Scripted, string]> = [
    ['a 401', { status: 401, error: `Incorrect API key provided: ${MODEL_KEY}.` }, 'MODEL_PROVIDER_ERROR'],
    ['a 429', { status: 429, error: 'Rate limit reached.', headers: { 'retry-after': '7' } }, 'MODEL_PROVIDER_RATE_LIMITED'],
    ['a 500', { status: 500, error: 'The server had an error.' }, 'MODEL_PROVIDER_ERROR'],
    ['a redirect', { status: 302, error: 'Moved.', headers: { location: 'https://elsewhere.example/v1' } }, 'MODEL_PROVIDER_ERROR'],
    ['a timeout', { hang: true }, 'MODEL_PROVIDER_TIMEOUT'],
  ];
  for (const stream of [false, true]) {
    for (const [what, answer, code] of failures) {
      it(`logs a model provider's ${what} as one warning with ${code} (${stream ? 'streamed' : 'JSON'})`, async () => {
        const conv = await conversationWithTool(t, model, org, toolId);
        raw.length = 0;
        model.script(answer);
        const res = await sendMessage(t, conv.id, 'Hello', org, stream);
        expect(res.body).not.toContain(MODEL_KEY);
        expectOneWarning(code);
      });
    }
  }

  it('logs a tool endpoint\'s failure on the Operator API as one warning with its code', async () => {
    const { agentId, toolName: name } = await conversationWithTool(t, model, org, toolId);
    for (const [responder, code] of [[json(500, { oops: true }), 'TOOL_HTTP_ERROR'], [hangUp(), 'TOOL_UNREACHABLE']] as const) {
      endpoint.respond(responder);
      raw.length = 0;
      const res = await orgCaller(t.app)('POST', `/api/org/agents/${agentId}/tool-calls`, org, { name, arguments: { weightKg: 1, country: 'FI' } });
      expect(res.json().code).toBe(code);
      expectOneWarning(code);
    }
    endpoint.respond(json(200, { price: 12.5 }));
  });
});
