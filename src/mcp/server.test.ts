import { describe, expect, it, vi } from 'vitest';
import { AppError } from '../http/errors.js';
import { agentAuthInfo, createMcpServerHandler } from './server.js';

/** The MCP server alone (no HTTP, stub invoker): how failures that are not the tool call's are answered. */
describe('MCP server failures', () => {
  const auth = agentAuthInfo('svc_agt_x', { orgId: 'org_x', agentId: 'agt_x', keyId: 'akey_x' });
  const headers = { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-11-25' };
  const call = { jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 'quote', arguments: {} } };

  function handler(invoke: () => Promise<never>) {
    const log = { error: vi.fn(), warn: vi.fn() };
    const mcp = createMcpServerHandler({ installations: { agentTools: async () => [] }, invoker: { invoke }, version: '0.0.0', log });
    const post = async (extraHeaders: Record<string, string> = {}) =>
      mcp.fetch(new Request('http://localhost/mcp', { method: 'POST', headers: { ...headers, ...extraHeaders } }), { authInfo: auth, parsedBody: call });
    return { post, log };
  }

  it('answers an unexpected error as a JSON-RPC internal error without its message, and logs it', async () => {
    const { post, log } = handler(async () => {
      throw new Error('connection to db failed: password=hunter2');
    });
    const res = await post();
    const text = await res.text();
    expect(JSON.parse(text)).toMatchObject({ id: 3, error: { code: -32603, message: 'Something went wrong on our side. Please try again.' } });
    expect(text).not.toContain('hunter2');
    expect(log.error).toHaveBeenCalledTimes(1);
  });

  it('answers the database being unavailable as an outage in our words, logged as a warning without a stack', async () => {
    const { post, log } = handler(async () => {
      throw Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' });
    });
    const text = await (await post()).text();
    expect(JSON.parse(text)).toMatchObject({ id: 3, error: { code: -32603, message: expect.stringMatching(/cannot reach its database/), data: { code: 'SERVICE_UNAVAILABLE' } } });
    expect(text).not.toContain('5432');
    expect(log.error).not.toHaveBeenCalled();
    expect(log.warn).toHaveBeenCalledTimes(1);
  });

  it('answers our own non-tool refusal as a JSON-RPC error in our words', async () => {
    const { post, log } = handler(async () => {
      throw new AppError('AGENT_NOT_FOUND', 'No agent has that id in your organization.');
    });
    expect(await (await post()).json()).toMatchObject({ id: 3, error: { message: 'No agent has that id in your organization.' } });
    expect(log.error).not.toHaveBeenCalled();
  });

  it('refuses a client that accepts neither JSON nor SSE with 406', async () => {
    const { post } = handler(async () => {
      throw new Error('not reached');
    });
    expect((await post({ accept: 'text/html' })).status).toBe(406);
  });
});
