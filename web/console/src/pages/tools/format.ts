import type { Agent } from '../../api/types';
import type { Installation } from '../../api/types';

/** Call outcomes as people read them (the code stays beside it for support). */
export const OUTCOMES: Record<string, string> = {
  OK: 'Succeeded',
  INVALID_ARGUMENTS: 'Arguments did not fit',
  TOOL_CREDENTIALS_MISSING: 'Credentials missing',
  TOOL_CONNECTION_EXPIRED: 'Connection needs reconnecting',
  TOOL_BLOCKED: 'Blocked address',
  TOOL_TIMEOUT: 'Timed out',
  TOOL_UNREACHABLE: 'Could not connect',
  TOOL_HTTP_ERROR: 'Tool answered an error',
  TOOL_INVALID_RESPONSE: 'Answer was not JSON',
  TOOL_RESPONSE_TOO_LARGE: 'Answer too large',
};

export function outcomeLabel(outcome: string): string {
  return OUTCOMES[outcome] ?? outcome.toLowerCase().replace(/_/g, ' ').replace(/^./, (c) => c.toUpperCase());
}

export const PATHS: Record<string, string> = { operator: 'Console or API', mcp: 'MCP', test: 'Test', conversation: 'Conversation' };

/** "All agents", or the chosen agents' names (an id stands in for one that is gone). */
export function agentNames(installation: Pick<Installation, 'allAgents' | 'agentIds'>, agents: Agent[] | undefined): string {
  if (installation.allAgents) return 'All agents';
  if (!installation.agentIds.length) return 'No agents';
  return installation.agentIds.map((id) => agents?.find((agent) => agent.id === id)?.name ?? id).join(', ');
}

/** An oauth2 installation's connection: its status, or null for other auth types (and a tool not yet published). */
export function connectionStatus(installation: Pick<Installation, 'authType' | 'connection'>): NonNullable<Installation['connection']>['status'] | null {
  if (installation.authType !== 'oauth2') return null;
  return installation.connection?.status ?? 'not_connected';
}

/** What an installation needs before agents can use it, in a few words; null when it is ready. */
export function installationHint(installation: Installation): string | null {
  if (!installation.enabled) return 'The developer has withdrawn this tool: agents cannot call it until it is published again.';
  const connection = connectionStatus(installation);
  if (connection === 'needs_reconnect') return 'Reconnect the account: the provider stopped accepting the connection, and calls fail until you do.';
  if (connection === 'not_connected') return 'Connect an account: calls fail until you do.';
  if (installation.authType && installation.authType !== 'none' && !installation.credentialsSet) return 'Add credentials: calls fail until you do.';
  return null;
}

/** The Tools list's credentials cell in a word or two, and whether it needs doing. */
export function credentialsCell(installation: Installation): { text: string; needed: boolean } {
  const connection = connectionStatus(installation);
  if (connection === 'connected') return { text: 'Connected', needed: false };
  if (connection === 'needs_reconnect') return { text: 'Reconnect', needed: true };
  if (connection === 'not_connected') return { text: 'Not connected', needed: true };
  if (installation.authType === 'none') return { text: 'Not needed', needed: false };
  return installation.credentialsSet ? { text: 'Set', needed: false } : { text: 'Missing', needed: true };
}

/** Scopes as a list in words: "openid, email", or "none". */
export const scopesText = (scopes: readonly string[]) => (scopes.length ? scopes.join(', ') : 'none');

/** The MCP client configuration for an agent key, as docs/mcp.md gives it. */
export function mcpConfig(origin: string, key: string): string {
  return JSON.stringify({ mcpServers: { switchboard: { type: 'http', url: `${origin}/mcp`, headers: { Authorization: `Bearer ${key}` } } } }, null, 2);
}
