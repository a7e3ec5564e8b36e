import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createTestContext, testDialects, type TestContext } from '../../test/support/context.js';
import { conversationWithTool, publishedTool, sendMessage, sseEvents } from '../../test/support/conversation-factories.js';
import { startHttpsEndpoint, type HttpsEndpoint } from '../../test/support/https-endpoint.js';
import { toolEndpointOptions } from '../../test/support/invocation-factories.js';
import { createOrgWithKey, type OrgWithKey } from '../../test/support/org-factories.js';
import { startScriptedModel, type ScriptedModel } from '../../test/support/scripted-model.js';
import { MAX_PARALLEL_TOOL_CALLS } from './loop.js';

/**
 * Several tool calls in one model answer run side by side, but at most MAX_PARALLEL_TOOL_CALLS at once,
 * and every result reaches the model in the order the model asked.
 */
describe.each(testDialects())('parallel tool calls on %s', (dialect) => {
  let t: TestContext;
  let endpoint: HttpsEndpoint;
  let model: ScriptedModel;
  let org: OrgWithKey;
  let toolId: string;
  let inFlight = 0;
  let peak = 0;

  beforeAll(async () => {
    // Holds each call a while, the first ones longest (so they end out of order), and records how many it held at once.
    endpoint = await startHttpsEndpoint((request, response) => {
      const { weightKg } = JSON.parse(request.body.toString('utf8')) as { weightKg: number };
      inFlight++;
      peak = Math.max(peak, inFlight);
      setTimeout(() => {
        inFlight--;
        const body = JSON.stringify({ parcel: weightKg, price: 10 + weightKg });
        response.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
        response.end(body);
      }, 100 + (7 - weightKg) * 40);
    });
    model = await startScriptedModel();
    t = await createTestContext(dialect, toolEndpointOptions(endpoint, { MODEL_ALLOW_PRIVATE_ENDPOINTS: '1' }));
    org = await createOrgWithKey(t.database, t.clock);
    toolId = (await publishedTool(t, endpoint)).id;
  });
  afterEach(() => {
    model.requests.length = 0;
    endpoint.reset();
    peak = 0;
  });
  afterAll(async () => {
    await t.close();
    await endpoint.close();
    await model.close();
  });

  const sixCalls = (name: string) => Array.from({ length: 6 }, (_, i) => ({ id: `call_${i + 1}`, name, arguments: `{"weightKg":${i + 1},"country":"FI"}` }));

  it.each([false, true])('runs six calls of one answer at most 4 at once (streamed: %s), and hands all six results to the model in its order', async (stream) => {
    expect(MAX_PARALLEL_TOOL_CALLS).toBe(4);
    const conv = await conversationWithTool(t, model, org, toolId);
    model.script({ toolCalls: sixCalls(conv.toolName) }, { text: 'Six prices.' });
    const res = await sendMessage(t, conv.id, 'Price six parcels.', org, stream);
    expect(res.statusCode, res.body).toBe(200);
    const messages = stream ? sseEvents(res.body).at(-1)!.messages : res.json().data.messages;
    expect(messages.at(-1)).toMatchObject({ role: 'assistant', content: 'Six prices.', status: 'complete' });

    expect(endpoint.requests).toHaveLength(6);
    expect(peak).toBeGreaterThan(1);
    expect(peak).toBeLessThanOrEqual(MAX_PARALLEL_TOOL_CALLS);

    // The model's next request carries the six results, each for its call, in the order it asked.
    const results = (model.requests[1]!.json.messages as Array<{ role: string; tool_call_id: string; content: string }>).filter((m) => m.role === 'tool');
    expect(results.map((m) => m.tool_call_id)).toEqual(['call_1', 'call_2', 'call_3', 'call_4', 'call_5', 'call_6']);
    expect(results.map((m) => JSON.parse(m.content))).toEqual([1, 2, 3, 4, 5, 6].map((n) => ({ parcel: n, price: 10 + n })));
    const saved = (messages as Array<{ role: string; toolCall: { id: string; outcome: string } | null }>).filter((m) => m.role === 'tool');
    expect(saved.map((m) => [m.toolCall!.id, m.toolCall!.outcome])).toEqual([1, 2, 3, 4, 5, 6].map((n) => [`call_${n}`, 'OK']));
  });
});
