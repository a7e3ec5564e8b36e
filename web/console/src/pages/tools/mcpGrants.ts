import { api, seg } from '../../api/client';

/**
 * The apps connected to an agent through OAuth 2.1 for `/mcp` (issue 34): each grant is one MCP host a person
 * approved on the consent page (/app/authorize). Revoking one ends its tokens at once.
 *
 * The wire shapes are declared here until the routes are in the OpenAPI document; then they become aliases
 * into schema.d.ts in api/types.ts.
 */

export interface McpGrant {
  id: string;
  /** The client as it described itself when approved (not verified). */
  client: { id: string; name: string };
  /** Who approved it; null when that person's account is gone. */
  approvedBy: { id: string; name: string } | null;
  createdAt: string;
  lastUsedAt: string | null;
}

export interface McpGrantList {
  items: McpGrant[];
}

export interface RevokedMcpGrant {
  id: string;
  revoked: true;
}

export const mcpGrantKeys = {
  list: (agentId: string) => ['agents', agentId, 'mcp-grants'] as const,
};

export const fetchMcpGrants = (agentId: string, signal?: AbortSignal) =>
  api.get<McpGrantList>(`/api/org/agents/${seg(agentId)}/mcp-grants`, signal ? { signal } : {});

export const revokeMcpGrant = (agentId: string, grantId: string) =>
  api.delete<RevokedMcpGrant>(`/api/org/agents/${seg(agentId)}/mcp-grants/${seg(grantId)}`);

/** The URL a person pastes into an MCP host: the service's public address (not the console's, which may be internal) and `/mcp`. */
export function mcpUrl(publicUrl: string): string {
  return `${publicUrl.replace(/\/+$/, '')}/mcp`;
}
