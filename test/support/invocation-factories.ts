import type { App } from '../../src/http/app-type.js';
import type { TestContextOptions } from './context.js';
import type { OrgWithKey } from './org-factories.js';
import { fixedResolver, TEST_DNS } from './tools-factories.js';

/** DNS for tool endpoints in tests: the fixed table, plus `tool.test` on 127.0.0.1 (where the test's HTTPS endpoint listens). */
export const toolHostResolver = () => fixedResolver({ ...TEST_DNS, 'tool.test': ['127.0.0.1'] });

/**
 * A test app whose tool calls reach the loopback HTTPS endpoint: private endpoints allowed (loopback is
 * one), the endpoint's test CA trusted, `tool.test` resolving to it, calls cut at 2 s; `env` adds or overrides.
 */
export function toolEndpointOptions(endpoint: { caFile: string }, env: Record<string, string> = {}): TestContextOptions & { env: Record<string, string> } {
  return {
    env: { TOOL_ALLOW_PRIVATE_ENDPOINTS: '1', TOOL_CA_FILE: endpoint.caFile, TOOL_CALL_TIMEOUT_MS: '2000', ...env },
    deps: { resolveHost: toolHostResolver() },
  };
}

export const BRAND = {
  name: 'Acme',
  primaryColor: '#1a73e8',
  backgroundColor: '#ffffff',
  textColor: '#202124',
  logoUrl: 'https://acme.example/logo.png',
};

type Who = { auth: { authorization: string } };

export async function createAgent(app: App, who: Who, name = 'Support bot'): Promise<{ id: string }> {
  const res = await app.inject({ method: 'POST', url: '/api/org/agents', headers: who.auth, payload: { name, branding: BRAND } });
  if (res.statusCode !== 201) throw new Error(`create agent failed: ${res.statusCode} ${res.body}`);
  return (res.json() as { data: { id: string } }).data;
}

export async function install(app: App, who: OrgWithKey | Who, body: Record<string, unknown>): Promise<{ id: string; name: string; credentialsSet: boolean }> {
  const res = await app.inject({ method: 'POST', url: '/api/org/installations', headers: who.auth, payload: body });
  if (res.statusCode !== 201) throw new Error(`install failed: ${res.statusCode} ${res.body}`);
  return (res.json() as { data: { id: string; name: string; credentialsSet: boolean } }).data;
}

/** A 2025-era MCP `tools/list` without a session, as a client sends it: enough to tell an accepted agent key (200) from a refused one (401). */
export const MCP_HEADERS = { accept: 'application/json, text/event-stream', 'content-type': 'application/json', 'mcp-protocol-version': '2025-11-25' };
export const mcpToolsList = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} });
