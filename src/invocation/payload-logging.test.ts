import { Writable } from 'node:stream';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createTestContext, testDialects, type TestContext } from '../../test/support/context.js';
import { developerSession } from '../../test/support/factories.js';
import { delayed, json, raw, startHttpsEndpoint, type HttpsEndpoint } from '../../test/support/https-endpoint.js';
import { createAgent, install, MCP_HEADERS, toolEndpointOptions } from '../../test/support/invocation-factories.js';
import { createOrgWithKey, orgCaller, type OrgWithKey } from '../../test/support/org-factories.js';
import { createTool, publishTool } from '../../test/support/tools-factories.js';

/**
 * The application log never carries a tool call's arguments or its result (docs: the call log
 * keeps no payloads, and neither does the log). Every path a call takes — the Operator API, MCP
 * (the direct tools/call and the SDK's), a developer's test call — is driven at LOG_LEVEL=trace
 * through every outcome: answered, refused arguments, the endpoint's error with a body, a body
 * that is not JSON, a timeout. The arguments and the endpoint's answers carry markers that must
 * appear in no log line, while the log does show the calls were made.
 */
const ARGUMENT = 'argument-marker-7f3c';
const RESULT = 'result-marker-91ad';

describe.each(testDialects())('tool-call payloads and the application log on %s', (dialect) => {
  let t: TestContext;
  let endpoint: HttpsEndpoint;
  let dev: Awaited<ReturnType<typeof developerSession>>;
  let org: OrgWithKey;
  let agentId: string;
  let agentKey: string;
  let toolId: string;
  let toolName: string;
  const lines: string[] = [];

  beforeAll(async () => {
    endpoint = await startHttpsEndpoint();
    const options = toolEndpointOptions(endpoint, { TOOL_CALL_TIMEOUT_MS: '1000', LOG_LEVEL: 'trace' });
    t = await createTestContext(dialect, {
      ...options,
      deps: { ...options.deps, logStream: new Writable({ write(chunk, _encoding, done) { lines.push(String(chunk)); done(); } }) },
    });
    dev = await developerSession(t.database, t.clock, t.app);
    org = await createOrgWithKey(t.database, t.clock);
    agentId = (await createAgent(t.app, org)).id;
    const tool = await publishTool(t.app, dev.auth, (await createTool(t.app, dev.auth, { endpoint: `https://tool.test:${endpoint.port}/quote`, authType: 'none' })).id);
    toolId = tool.id;
    toolName = (await install(t.app, org, { toolId })).name;
    const key = await orgCaller(t.app)('POST', `/api/org/agents/${agentId}/keys`, org, { name: 'logging test' });
    agentKey = (key.json() as { data: { key: string } }).data.key;
  });
  afterEach(() => endpoint.reset());
  afterAll(async () => {
    await t.close();
    await endpoint.close();
  });

  /** What the endpoint answers, each carrying the result marker, and the status each call path then gives. */
  const ANSWERS = [
    ['answered', () => json(200, { quote: RESULT, nested: { note: RESULT } })],
    ['an error with a JSON body', () => json(503, { error: RESULT })],
    ['an error with a text body', () => raw(500, `${RESULT} stack trace`, 'text/plain')],
    ['a 200 that is not JSON', () => raw(200, `<html>${RESULT}</html>`, 'text/html')],
    ['no answer in time', () => delayed(2000, json(200, { late: RESULT }))],
  ] as const;

  const goodArguments = { weightKg: 2, country: ARGUMENT };
  const badArguments = [
    { weightKg: ARGUMENT, country: 'PT' },
    { weightKg: 1, country: 'PT', [ARGUMENT]: ARGUMENT },
    `{"weightKg": 1, "country": "${ARGUMENT}"`,
  ];

  function mcpCall(args: unknown, viaSdk: boolean) {
    // Extra `_meta` sends the call through the SDK's transport instead of the direct path (mcp/direct-call.ts).
    const params = { name: toolName, arguments: args, ...(viaSdk ? { _meta: { progressToken: 7 } } : {}) };
    return t.app.inject({
      method: 'POST', url: '/mcp', headers: { ...MCP_HEADERS, authorization: `Bearer ${agentKey}` },
      payload: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params }),
    });
  }

  const paths = {
    operator: (args: unknown) => orgCaller(t.app)('POST', `/api/org/agents/${agentId}/tool-calls`, org, { name: toolName, arguments: args }),
    mcpDirect: (args: unknown) => mcpCall(args, false),
    mcpSdk: (args: unknown) => mcpCall(args, true),
    developerTest: (args: unknown) => t.app.inject({ method: 'POST', url: `/api/dev/tools/${toolId}/test`, headers: dev.auth, payload: { arguments: args } }),
  };

  it.each(Object.keys(paths) as (keyof typeof paths)[])('logs no argument or result of a call through %s, whatever its outcome', async (path) => {
    const call = paths[path];
    const from = lines.length;
    const statuses: number[] = [];
    for (const [, answer] of ANSWERS) {
      endpoint.respond(answer());
      const response = await call(goodArguments);
      statuses.push(response.statusCode);
      // The caller does get the result or the endpoint's error body: the marker is there to be found.
      if (path === 'operator' && response.statusCode === 200) expect(response.body).toContain(RESULT);
    }
    for (const args of badArguments) statuses.push((await call(args)).statusCode);
    // Every answer reached the endpoint, and not one bad argument did.
    expect(endpoint.requests).toHaveLength(ANSWERS.length);
    expect(statuses.every((status) => status < 500 || status === 502 || status === 504)).toBe(true);

    const logged = lines.slice(from).join('');
    // The calls were logged (request lines at trace), so the absence below means something.
    expect(logged.split('\n').filter((line) => line.includes('"incoming request"')).length).toBe(ANSWERS.length + badArguments.length);
    // A failed call's error line keeps its call id, which leads to the call log.
    if (path === 'operator') expect(logged).toMatch(/"code":"TOOL_HTTP_ERROR".*"extra":\{"callId":"call_\w+"\}/);
    expect(logged).not.toContain(ARGUMENT);
    expect(logged).not.toContain(RESULT);
  });
});
