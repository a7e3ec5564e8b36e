import type { App } from '../../src/http/app-type.js';
import type { OrgWithKey } from './org-factories.js';

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
