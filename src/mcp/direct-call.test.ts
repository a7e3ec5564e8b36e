import type { IncomingHttpHeaders } from 'node:http';
import { describe, expect, it } from 'vitest';
import { AppError } from '../http/errors.js';
import { callNotLogged } from '../invocation/call-log.js';
import type { ToolCallRequest } from '../invocation/invoker.js';
import { createDirectCallReader } from './direct-call.js';
import { cleanProtocolErrors } from './protocol-errors.js';
import { agentAuthInfo, answerOf, createMcpServerHandler } from './server.js';

/**
 * The direct tools/call path against the SDK, request by request: every request is answered
 * once by `post` (direct when `directToolCall` takes it) and once by the SDK alone (`fetch`),
 * over the same invoker, and the two answers must be the same bytes: status, headers, body.
 * The requests the direct path takes are asserted to be taken, and those it must leave to the
 * SDK (anything the SDK would refuse or treat specially) to be left.
 */
const auth = agentAuthInfo('svc_agt_x', { orgId: 'org_x', agentId: 'agt_x', keyId: 'akey_x' });
const ACCEPT = 'application/json, text/event-stream';
const MODERN = '2026-07-28';
const envelope = {
  'io.modelcontextprotocol/protocolVersion': MODERN,
  'io.modelcontextprotocol/clientInfo': { name: 'test-client', version: '1.0.0' },
  'io.modelcontextprotocol/clientCapabilities': {},
};

function legacyCall(params: unknown, extra: { id?: unknown; headers?: Record<string, string | undefined> } = {}) {
  return {
    headers: { 'content-type': 'application/json', accept: ACCEPT, 'mcp-protocol-version': '2025-11-25', ...extra.headers },
    body: { method: 'tools/call', params, jsonrpc: '2.0', id: 'id' in extra ? extra.id : 1 },
  };
}

function modernCall(params: { name: unknown; arguments?: unknown; _meta?: unknown }, extra: { id?: unknown; headers?: Record<string, string | undefined> } = {}) {
  return {
    headers: {
      'content-type': 'application/json', accept: ACCEPT, 'mcp-protocol-version': MODERN, 'mcp-method': 'tools/call',
      ...(typeof params.name === 'string' ? { 'mcp-name': params.name } : {}), ...extra.headers,
    },
    body: { method: 'tools/call', params: { _meta: envelope, ...params }, jsonrpc: '2.0', id: 'id' in extra ? extra.id : 0 },
  };
}

type Outcome = { result: unknown } | { error: Error };

/** One handler over a scripted invoker: each tool name answers as the script says, the same on both paths. */
function handler() {
  const calls: ToolCallRequest[] = [];
  const outcomes: Record<string, Outcome> = {
    shipping_quote: { result: { quote: 12.5, currency: 'EUR' } },
    list_tool: { result: [1, 2, 3] },
    number_tool: { result: 42 },
    text_tool: { result: { note: 'say "hi" \\ café \u2028 </script> 😀', nested: [null, true, -0, 1e21, { deep: 'x' }] } },
    string_tool: { result: 'a "quoted" string' },
    invalid_args: { error: new AppError('INVALID_ARGUMENTS', 'Invalid arguments: country is required (a string).', { details: [{ path: 'country', message: 'country is required (a string)' }], extra: { callId: 'call_fixed' } }) },
    http_error: { error: new AppError('TOOL_HTTP_ERROR', 'The endpoint answered 503.', { extra: { callId: 'call_fixed', status: 503, body: { error: 'maintenance' } } }) },
    agent_gone: { error: new AppError('AGENT_NOT_FOUND', 'No agent has that id in your organization.') },
    broken: { error: new Error('database unavailable') },
    not_logged: { error: callNotLogged('call_fixed', true, new Error('SQLITE_FULL: database or disk is full')) },
  };
  const invoke = async (request: ToolCallRequest) => {
    calls.push(request);
    const outcome = outcomes[request.name] ?? { error: new AppError('TOOL_NOT_ENABLED', `No tool named "${request.name}" is enabled for this agent.`, { extra: { callId: 'call_fixed' } }) };
    if ('error' in outcome) throw outcome.error;
    return { callId: 'call_fixed', status: 200, durationMs: 3, result: outcome.result };
  };
  const mcp = createMcpServerHandler({ installations: { agentTools: async () => [] }, invoker: { invoke }, version: '9.9.9', log: { error: () => undefined, warn: () => undefined } });
  return { mcp, calls };
}

function webRequest(headers: IncomingHttpHeaders): Request {
  const web = new Headers();
  for (const [name, value] of Object.entries(headers)) if (typeof value === 'string') web.set(name, value);
  return new Request('http://localhost/mcp', { method: 'POST', headers: web });
}

async function bothPaths(request: { headers: Record<string, string | undefined>; body: unknown }) {
  const { mcp, calls } = handler();
  const headers = Object.fromEntries(Object.entries(request.headers).filter(([, value]) => value !== undefined)) as IncomingHttpHeaders;
  // The SDK path needs the web Request; the direct path never builds one.
  let sdkRequests = 0;
  const toRequest = () => {
    sdkRequests++;
    return webRequest(headers);
  };
  const post = await mcp.post({ headers, body: request.body, toRequest }, auth);
  const sdk = await answerOf(await mcp.fetch(webRequest(headers), { authInfo: auth, parsedBody: request.body }));
  return { post, sdk, calls, direct: createDirectCallReader()(headers, request.body) !== undefined, wentToSdk: sdkRequests > 0 };
}

const TAKEN: Array<[string, { headers: Record<string, string | undefined>; body: unknown }]> = [
  ['2025-11-25: a result object', legacyCall({ name: 'shipping_quote', arguments: { weightKg: 2.5, country: 'PT' } })],
  ['2025-11-25: an array result (wrapped as structured {result})', legacyCall({ name: 'list_tool', arguments: {} })],
  ['2025-11-25: a number result, no arguments at all', legacyCall({ name: 'number_tool' })],
  ['2025-11-25: text that JSON escapes (quotes, backslash, U+2028, emoji), nested values', legacyCall({ name: 'text_tool', arguments: {} })],
  ['2025-11-25: a string result', legacyCall({ name: 'string_tool', arguments: {} })],
  ['2025-11-25: invalid arguments (isError with details)', legacyCall({ name: 'invalid_args', arguments: { weightKg: 'heavy' } })],
  ['2025-11-25: an endpoint failure (isError with status and body)', legacyCall({ name: 'http_error', arguments: {} })],
  ['2025-11-25: an unknown tool', legacyCall({ name: 'nope', arguments: {} })],
  ['2025-11-25: our own refusal (a JSON-RPC error in our words)', legacyCall({ name: 'agent_gone', arguments: {} })],
  ['2025-11-25: an unexpected failure (internal error, no detail)', legacyCall({ name: 'broken', arguments: {} })],
  ['2025-11-25: a call whose log row was refused (internal error in our words, with the callId)', legacyCall({ name: 'not_logged', arguments: {} })],
  ['2025-11-25: a string id', legacyCall({ name: 'shipping_quote', arguments: {} }, { id: 'abc-1' })],
  ['2025-06-18 header', legacyCall({ name: 'shipping_quote', arguments: {} }, { headers: { 'mcp-protocol-version': '2025-06-18' } })],
  ['no protocol version header (the SDK assumes the negotiated one)', legacyCall({ name: 'shipping_quote', arguments: {} }, { headers: { 'mcp-protocol-version': undefined } })],
  ['content type with a charset', legacyCall({ name: 'shipping_quote', arguments: {} }, { headers: { 'content-type': 'application/json; charset=utf-8' } })],
  [`${MODERN}: a result object`, modernCall({ name: 'shipping_quote', arguments: { weightKg: 2.5, country: 'PT' } })],
  [`${MODERN}: an array result`, modernCall({ name: 'list_tool', arguments: {} })],
  [`${MODERN}: text that JSON escapes, nested values`, modernCall({ name: 'text_tool', arguments: {} })],
  [`${MODERN}: a string result`, modernCall({ name: 'string_tool', arguments: {} })],
  [`${MODERN}: invalid arguments`, modernCall({ name: 'invalid_args', arguments: {} })],
  [`${MODERN}: an endpoint failure`, modernCall({ name: 'http_error', arguments: {} })],
  [`${MODERN}: an unknown tool`, modernCall({ name: 'nope', arguments: {} })],
  [`${MODERN}: our own refusal`, modernCall({ name: 'agent_gone', arguments: {} })],
  [`${MODERN}: an unexpected failure`, modernCall({ name: 'broken', arguments: {} })],
  [`${MODERN}: a call whose log row was refused`, modernCall({ name: 'not_logged', arguments: {} })],
  [`${MODERN}: a string id, no arguments`, modernCall({ name: 'shipping_quote' }, { id: 'call-7' })],
];

const LEFT: Array<[string, { headers: Record<string, string | undefined>; body: unknown }]> = [
  ['Accept without text/event-stream (406)', legacyCall({ name: 'shipping_quote', arguments: {} }, { headers: { accept: 'application/json' } })],
  ['an unsupported protocol version header', legacyCall({ name: 'shipping_quote', arguments: {} }, { headers: { 'mcp-protocol-version': '2099-01-01' } })],
  ['a name that is not a string', legacyCall({ name: 7, arguments: {} })],
  ['arguments that are an array', legacyCall({ name: 'shipping_quote', arguments: [1] })],
  ['no params', { headers: legacyCall({}).headers, body: { method: 'tools/call', jsonrpc: '2.0', id: 1 } }],
  ['a progress token in _meta', legacyCall({ name: 'shipping_quote', arguments: {}, _meta: { progressToken: 'p1' } })],
  ['a null id', legacyCall({ name: 'shipping_quote', arguments: {} }, { id: null })],
  ['a fractional id', legacyCall({ name: 'shipping_quote', arguments: {} }, { id: 1.5 })],
  ['a notification (no id)', { headers: legacyCall({}).headers, body: { method: 'tools/call', params: { name: 'shipping_quote' }, jsonrpc: '2.0' } }],
  ['a batch of one call', { headers: legacyCall({}).headers, body: [legacyCall({ name: 'shipping_quote', arguments: {} }).body] }],
  ['the wrong jsonrpc version', { headers: legacyCall({}).headers, body: { ...legacyCall({ name: 'shipping_quote' }).body, jsonrpc: '1.0' } }],
  ['a modern header without the envelope', legacyCall({ name: 'shipping_quote', arguments: {} }, { headers: { 'mcp-protocol-version': MODERN } })],
  [`${MODERN}: Mcp-Name disagreeing with the body`, modernCall({ name: 'shipping_quote', arguments: {} }, { headers: { 'mcp-name': 'other_tool' } })],
  [`${MODERN}: no Mcp-Method header`, modernCall({ name: 'shipping_quote', arguments: {} }, { headers: { 'mcp-method': undefined } })],
  [`${MODERN}: no Mcp-Name header`, modernCall({ name: 'shipping_quote', arguments: {} }, { headers: { 'mcp-name': undefined } })],
  [`${MODERN}: the header naming another revision`, modernCall({ name: 'shipping_quote', arguments: {} }, { headers: { 'mcp-protocol-version': '2025-11-25' } })],
  [`${MODERN}: an envelope for an unknown revision`, modernCall({ name: 'shipping_quote', _meta: { ...envelope, 'io.modelcontextprotocol/protocolVersion': '2099-01-01' } }, { headers: { 'mcp-protocol-version': '2099-01-01' } })],
  [`${MODERN}: a name the header must encode`, modernCall({ name: 'café', arguments: {} })],
  [`${MODERN}: an envelope without clientCapabilities`, modernCall({ name: 'shipping_quote', _meta: { 'io.modelcontextprotocol/protocolVersion': MODERN, 'io.modelcontextprotocol/clientInfo': envelope['io.modelcontextprotocol/clientInfo'] } })],
  [`${MODERN}: clientInfo without a version`, modernCall({ name: 'shipping_quote', _meta: { ...envelope, 'io.modelcontextprotocol/clientInfo': { name: 'test-client' } } })],
  [`${MODERN}: clientCapabilities that are not an object`, modernCall({ name: 'shipping_quote', _meta: { ...envelope, 'io.modelcontextprotocol/clientCapabilities': 'all' } })],
];

describe('MCP tools/call: the direct path answers as the SDK does', () => {
  for (const [name, request] of TAKEN) {
    it(`takes and answers alike: ${name}`, async () => {
      const { post, sdk, calls, direct, wentToSdk } = await bothPaths(request);
      expect(direct).toBe(true);
      expect(wentToSdk).toBe(false);
      expect(post).toEqual(sdk);
      expect(post.status).toBe(200);
      // Both paths asked the invoker the same thing, once each.
      expect(calls).toHaveLength(2);
      expect(calls[0]).toEqual(calls[1]);
      expect(calls[0]).toMatchObject({ orgId: 'org_x', agentId: 'agt_x', path: 'mcp' });
    });
  }

  for (const [name, request] of LEFT) {
    it(`leaves to the SDK: ${name}`, async () => {
      const { post, sdk, direct, wentToSdk } = await bothPaths(request);
      expect(direct).toBe(false);
      expect(wentToSdk).toBe(true);
      // The SDK's answer, with its errors in our words (protocol-errors.ts): never zod's raw issue list.
      expect(post).toEqual({ ...sdk, body: cleanProtocolErrors(sdk.body, { error: () => undefined }) });
      expect(post.body).not.toMatch(/"expected"|invalid_type|\\n/);
    });
  }

  it('remembers the SDK\'s decision per headers and envelope, never across them, and forgets within its bound', () => {
    const read = createDirectCallReader();
    const good = modernCall({ name: 'shipping_quote', arguments: {} });
    const bad = modernCall({ name: 'shipping_quote', arguments: {}, _meta: { ...envelope, 'io.modelcontextprotocol/clientInfo': { name: 'test-client' } } });
    const legacyWithModernHeader = legacyCall({ name: 'shipping_quote', arguments: {} }, { headers: { 'mcp-protocol-version': MODERN } });
    for (let round = 0; round < 2; round++) {
      expect(read(good.headers, good.body)).toMatchObject({ name: 'shipping_quote', modern: true });
      expect(read(bad.headers, bad.body)).toBeUndefined();
      expect(read(legacyWithModernHeader.headers, legacyWithModernHeader.body)).toBeUndefined();
      expect(read(legacyCall({ name: 'shipping_quote' }).headers, legacyCall({ name: 'shipping_quote' }).body)).toMatchObject({ modern: false });
    }
    // Many envelopes (as many clients would send): still the right decision for each, past the bound.
    for (let client = 0; client < 600; client++) {
      const call = modernCall({ name: 'shipping_quote', _meta: { ...envelope, 'io.modelcontextprotocol/clientInfo': { name: `client-${client}`, version: '1' } } });
      expect(read(call.headers, call.body)).toMatchObject({ modern: true });
    }
    expect(read(bad.headers, bad.body)).toBeUndefined();
  });

  it('never lets an internal message out on the direct path', async () => {
    const { post } = await bothPaths(legacyCall({ name: 'broken', arguments: {} }));
    expect(post.body).not.toContain('database unavailable');
    expect(JSON.parse(post.body)).toMatchObject({ id: 1, error: { code: -32603 } });
  });

  it('answers a call whose log row was refused with its callId and our words, never the database\'s', async () => {
    const { post } = await bothPaths(legacyCall({ name: 'not_logged', arguments: {} }));
    expect(post.body).not.toContain('SQLITE_FULL');
    expect(JSON.parse(post.body)).toEqual({
      jsonrpc: '2.0', id: 1,
      error: { code: -32603, message: expect.stringContaining('could not be recorded in the call log'), data: { code: 'SERVICE_UNAVAILABLE', callId: 'call_fixed' } },
    });
  });
});
