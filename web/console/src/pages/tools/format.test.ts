import { describe, expect, it } from 'vitest';
import { callQuery } from './api';
import type { Installation } from '../../api/types';
import { agentNames, credentialsCell, installationHint, mcpConfig, outcomeLabel } from './format';

const inst = (over: Partial<Installation> = {}): Installation => ({
  id: 'inst_1', toolId: 'tool_1', toolName: 'quote', name: 'quote', alias: null, enabled: true, allAgents: true, agentIds: [],
  authType: 'bearer', credentialsSet: true, connection: null, createdAt: '', updatedAt: '', ...over,
});
const agent = (id: string, name: string) => ({ id, name, branding: {} as never, model: null, chat: {} as never, handoff: {} as never, createdAt: '', updatedAt: '' });

describe('tools formatting', () => {
  it('reads outcome codes', () => {
    expect(outcomeLabel('OK')).toBe('Succeeded');
    expect(outcomeLabel('TOOL_TIMEOUT')).toBe('Timed out');
    expect(outcomeLabel('SOMETHING_NEW')).toBe('Something new');
  });

  it('names the agents of an installation', () => {
    expect(agentNames(inst(), [])).toBe('All agents');
    expect(agentNames(inst({ allAgents: false, agentIds: ['agt_a', 'agt_gone'] }), [agent('agt_a', 'Front desk')])).toBe('Front desk, agt_gone');
  });

  it('says what an installation still needs', () => {
    expect(installationHint(inst())).toBeNull();
    expect(installationHint(inst({ credentialsSet: false }))).toMatch(/Add credentials/);
    expect(installationHint(inst({ authType: 'none', credentialsSet: false }))).toBeNull();
    expect(installationHint(inst({ enabled: false, authType: null }))).toMatch(/withdrawn/);
  });

  it('reads an oauth2 installation by its connection', () => {
    const connection = (status: 'connected' | 'needs_reconnect' | 'not_connected') => ({ status, accountLabel: null, scopes: [], connectedAt: null, refreshedAt: null, expiresAt: null, reason: null });
    const oauth = (status: 'connected' | 'needs_reconnect' | 'not_connected' | null) => inst({ authType: 'oauth2', credentialsSet: status === 'connected', connection: status ? connection(status) : null });
    expect(installationHint(oauth('connected'))).toBeNull();
    expect(installationHint(oauth('not_connected'))).toMatch(/^Connect an account/);
    expect(installationHint(oauth('needs_reconnect'))).toMatch(/^Reconnect the account/);
    expect(installationHint(oauth(null))).toMatch(/^Connect an account/);
    expect([oauth('connected'), oauth('needs_reconnect'), oauth('not_connected')].map(credentialsCell)).toEqual([
      { text: 'Connected', needed: false }, { text: 'Reconnect', needed: true }, { text: 'Not connected', needed: true },
    ]);
    expect([inst(), inst({ credentialsSet: false }), inst({ authType: 'none', credentialsSet: false })].map((i) => credentialsCell(i).text)).toEqual(['Set', 'Missing', 'Not needed']);
    expect(outcomeLabel('TOOL_CONNECTION_EXPIRED')).toBe('Connection needs reconnecting');
  });

  it('gives the MCP client configuration of docs/mcp.md', () => {
    expect(JSON.parse(mcpConfig('https://sb.example', 'svc_agt_x'))).toEqual({
      mcpServers: { switchboard: { type: 'http', url: 'https://sb.example/mcp', headers: { Authorization: 'Bearer svc_agt_x' } } },
    });
  });
});

describe('the call log query', () => {
  const none = { agentId: '', toolId: '', outcome: '', from: '', to: '', conversationId: '' };

  it('turns days into local midnights, the last day included', () => {
    const query = callQuery({ ...none, from: '2026-11-01', to: '2026-11-03' });
    expect(query.from).toBe(new Date(2026, 10, 1).toISOString());
    // The API's `to` is exclusive: the day after the last one shown.
    expect(query.to).toBe(new Date(2026, 10, 4).toISOString());
    expect(callQuery({ ...none, to: '2026-12-31' }).to).toBe(new Date(2027, 0, 1).toISOString());
  });

  it('leaves out days that are not set or not days, and passes the other filters on', () => {
    expect(callQuery({ ...none, agentId: 'agt_1', outcome: 'OK', from: 'soon' })).toEqual({ agentId: 'agt_1', toolId: '', outcome: 'OK', from: undefined, to: undefined, conversationId: '' });
  });
});
