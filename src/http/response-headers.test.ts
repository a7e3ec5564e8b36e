import { request, type IncomingHttpHeaders } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sendVisitorMessage, SITE, startSession, visitor, widgetAgent } from '../../test/support/chat-factories.js';
import { createTestContext, testDialects, type TestContext } from '../../test/support/context.js';
import { conversationWithTool, publishedTool, sendMessage } from '../../test/support/conversation-factories.js';
import { json, startHttpsEndpoint, type HttpsEndpoint } from '../../test/support/https-endpoint.js';
import { toolEndpointOptions } from '../../test/support/invocation-factories.js';
import { documentedOperations, sample, type Json } from '../../test/support/openapi.js';
import { createOrgWithKey, type OrgWithKey } from '../../test/support/org-factories.js';
import { startScriptedModel, type ScriptedModel } from '../../test/support/scripted-model.js';

/**
 * Every answer of every route says `X-Content-Type-Options: nosniff` (issue 32): JSON, event streams, refusals
 * and pages are never read by a browser as something else. Walks /openapi.json, so a new route is covered the
 * moment it is documented; the streams (which write their own head) and what the document does not list are
 * asked for by name.
 */
/** A GET whose answer is Server-Sent Events: the Inbox's and a visitor's live streams, open until the client leaves. */
function isLiveStream(document: Json, method: string, path: string): boolean {
  const operation = ((document.paths as Json)[path] as Json)[method.toLowerCase()] as Json;
  const ok = (operation.responses as Json)['200'] as Json | undefined;
  return method === 'GET' && ok?.content !== undefined && 'text/event-stream' in (ok.content as Json);
}

/** The status and headers of a GET that streams, read over a real socket, which is then closed. */
async function headOf(url: string, headers: Record<string, string>): Promise<{ status: number; headers: IncomingHttpHeaders }> {
  return new Promise((resolve, reject) => {
    const req = request(url, { headers, agent: false }, (res) => {
      resolve({ status: res.statusCode ?? 0, headers: res.headers });
      req.destroy();
    });
    req.on('error', reject);
    req.end();
  });
}

describe.each(testDialects())('response headers on %s', (dialect) => {
  let t: TestContext;
  let endpoint: HttpsEndpoint;
  let model: ScriptedModel;
  let org: OrgWithKey;
  let toolId: string;

  beforeAll(async () => {
    endpoint = await startHttpsEndpoint(json(200, { price: 12.5 }));
    model = await startScriptedModel();
    t = await createTestContext(dialect, toolEndpointOptions(endpoint, { MODEL_ALLOW_PRIVATE_ENDPOINTS: '1' }));
    org = await createOrgWithKey(t.database, t.clock);
    toolId = (await publishedTool(t, endpoint)).id;
  });
  afterAll(async () => {
    await t.close();
    await endpoint.close();
    await model.close();
  });

  it('carry nosniff on every documented operation, with and without credentials', async () => {
    const document = (await t.app.inject({ method: 'GET', url: '/openapi.json' })).json() as Json;
    const operations = documentedOperations(document);
    expect(operations.length).toBeGreaterThan(100);
    const missing: string[] = [];
    for (const op of operations) {
      // The live event streams never end of themselves: the next test reads their head over a socket.
      if (isLiveStream(document, op.method, op.path)) continue;
      const url = op.pathParameters.reduce((path, p) => path.replace(`{${p.name}}`, encodeURIComponent(p.example || 'x')), op.path);
      const body = op.body?.type === 'application/json' ? sample(op.body.schema) : undefined;
      for (const headers of [{}, org.auth]) {
        const res = await t.app.inject({ method: op.method, url, headers: { ...headers, ...(body === undefined ? {} : { 'content-type': 'application/json' }) }, ...(body === undefined ? {} : { payload: JSON.stringify(body) }) });
        if (res.headers['x-content-type-options'] !== 'nosniff') missing.push(`${op.name} → ${res.statusCode}`);
      }
    }
    expect(missing).toEqual([]);
  });

  it('carry nosniff on what the document does not list: pages, scripts, the console, unknown paths, refused bodies', async () => {
    for (const url of ['/', '/app/', '/form-embed.js', '/f/no-such-form', '/healthz', '/readyz', '/docs', '/no/such/path']) {
      const res = await t.app.inject({ method: 'GET', url });
      expect(res.headers['x-content-type-options'], `${url} → ${res.statusCode}`).toBe('nosniff');
    }
    const malformed = await t.app.inject({ method: 'POST', url: '/api/org/forms', headers: { ...org.auth, 'content-type': 'application/json' }, payload: '{"name":' });
    expect(malformed.statusCode).toBe(400);
    expect(malformed.headers['x-content-type-options']).toBe('nosniff');
  });

  it('carry nosniff on streamed answers, which write their own head: a conversation\'s events, its UI message stream, the chat widget\'s', async () => {
    const conv = await conversationWithTool(t, model, org, toolId);
    model.script({ text: 'Hello.' });
    const events = await sendMessage(t, conv.id, 'Hi', org, true);
    expect(events.headers['content-type']).toContain('text/event-stream');
    expect(events.headers['x-content-type-options']).toBe('nosniff');

    model.script({ text: 'Hello again.' });
    const ui = await t.app.inject({ method: 'POST', url: `/api/org/conversations/${conv.id}/chat`, headers: org.auth, payload: { id: conv.id, trigger: 'submit-message', messages: [{ id: 'm1', role: 'user', parts: [{ type: 'text', text: 'Hi' }] }] } });
    expect(ui.statusCode, ui.body).toBe(200);
    expect(ui.headers['x-content-type-options']).toBe('nosniff');

    const { chatId } = await widgetAgent(t, model, org, toolId);
    expect((await visitor(t, 'GET', `/${chatId}`)).headers['x-content-type-options']).toBe('nosniff');
    const token = await startSession(t, chatId);
    model.script({ text: 'Welcome.' });
    const widget = await sendVisitorMessage(t, chatId, token, 'Hi');
    expect(widget.statusCode, widget.body).toBe(200);
    expect(widget.headers['content-type']).toContain('text/event-stream');
    expect(widget.headers['x-content-type-options']).toBe('nosniff');

    // The live streams (the Inbox's, a visitor's), which stay open: their head over a real socket.
    const base = await t.app.listen({ port: 0, host: '127.0.0.1' });
    const inbox = await headOf(`${base}/api/org/conversations/events`, org.auth);
    const visitorStream = await headOf(`${base}/api/public/chats/${chatId}/session/events`, { authorization: `Bearer ${token}`, origin: SITE });
    for (const head of [inbox, visitorStream]) {
      expect(head.status).toBe(200);
      expect(head.headers['content-type']).toContain('text/event-stream');
      expect(head.headers['x-content-type-options']).toBe('nosniff');
    }
  });
});
