import type { QueryClient } from '@tanstack/react-query';
import { api, seg } from '../../api/client';
import { fetchAll } from '../../api/lists';
import type {
  AgentKey, AuthType, CatalogTool, Installation, McpToolDefinition, Page, ToolCall, ToolCallResult, ToolCategory,
} from '../../api/types';

/**
 * Fetchers of the tools pages (docs/operator-api.md: "Installations", "Agent tools and
 * tool calls", "The call log", "Agent keys"; the public catalog in docs/developer-api.md).
 */

export const AUTH_TYPES = ['none', 'api_key', 'bearer', 'basic', 'hmac', 'oauth2'] as const satisfies readonly AuthType[];

export const TOOL_CATEGORIES = ['crm', 'sales', 'marketing', 'support', 'scheduling', 'ecommerce', 'payments', 'finance', 'communication', 'productivity', 'data', 'developer', 'other'] as const satisfies readonly ToolCategory[];

export interface CallFilters {
  agentId: string;
  toolId: string;
  outcome: string;
  /** First and last day shown (`YYYY-MM-DD`, the browser's days, both included); empty: no bound. */
  from: string;
  to: string;
  /** Only one conversation's calls (`conv_…`): set by the links of a conversation's tool calls, no input of its own. */
  conversationId: string;
}

const DAY = /^(\d{4})-(\d{2})-(\d{2})$/;

/** Local midnight of a `YYYY-MM-DD` day, `offset` days later, as the API's ISO time; undefined for anything else. */
export function localMidnight(day: string, offset = 0): string | undefined {
  const match = DAY.exec(day);
  if (!match) return undefined;
  const date = new Date(Number(match[1]), Number(match[2]) - 1, Number(match[3]) + offset);
  return Number.isNaN(date.getTime()) ? undefined : date.toISOString();
}

/** The call log's query: days become times at the browser's midnight, the `to` day included (the API's `to` is exclusive). */
export function callQuery(filters: CallFilters): Record<string, string | undefined> {
  return { agentId: filters.agentId, toolId: filters.toolId, outcome: filters.outcome, from: localMidnight(filters.from), to: localMidnight(filters.to, 1), conversationId: filters.conversationId };
}

export const toolKeys = {
  installations: ['installations'] as const,
  installation: (id: string) => ['installations', id] as const,
  catalog: (q: string, category: string) => ['catalog', q, category] as const,
  catalogTool: (id: string) => ['catalog', 'tool', id] as const,
  calls: (filters: CallFilters) => ['tool-calls', filters] as const,
  allCalls: ['tool-calls'] as const,
  agentTools: (agentId: string) => ['agents', agentId, 'tools'] as const,
  agentKeys: (agentId: string) => ['agents', agentId, 'keys'] as const,
};

const opts = (signal?: AbortSignal) => (signal ? { signal } : {});

export const CATALOG_PAGE = 12;
export const CALLS_PAGE = 25;

export const fetchCatalog = (q: string, category: string, cursor: string | null, signal?: AbortSignal) =>
  api.get<Page<CatalogTool>>('/api/catalog/tools', { query: { q, category, limit: CATALOG_PAGE, cursor }, ...opts(signal) });
export const fetchCatalogTool = (id: string, signal?: AbortSignal) => api.get<CatalogTool>(`/api/catalog/tools/${seg(id)}`, opts(signal));
export const fetchInstallation = (id: string, signal?: AbortSignal) => api.get<Installation>(`/api/org/installations/${seg(id)}`, opts(signal));
export const fetchCalls = (filters: CallFilters, cursor: string | null, limit = CALLS_PAGE, signal?: AbortSignal) =>
  api.get<Page<ToolCall>>('/api/org/tool-calls', { query: { ...callQuery(filters), limit, cursor }, ...opts(signal) });
export const fetchAgentTools = (agentId: string, signal?: AbortSignal) =>
  api.get<{ format: 'mcp'; tools: McpToolDefinition[] }>(`/api/org/agents/${seg(agentId)}/tools`, { query: { format: 'mcp' }, ...opts(signal) });
export const fetchAgentKeys = (agentId: string) => fetchAll<AgentKey>(`/api/org/agents/${seg(agentId)}/keys`);
export const fetchInstallations = () => fetchAll<Installation>('/api/org/installations');
export const callTool = (agentId: string, name: string, args: Record<string, unknown> | undefined) =>
  api.post<ToolCallResult>(`/api/org/agents/${seg(agentId)}/tool-calls`, args === undefined ? { name } : { name, arguments: args });

/** After an installation changed: the lists that show it, and what every agent can call. */
export async function afterInstallationChange(client: QueryClient): Promise<void> {
  await Promise.all([
    client.invalidateQueries({ queryKey: toolKeys.installations, exact: true }),
    client.invalidateQueries({ predicate: (query) => query.queryKey[0] === 'agents' && query.queryKey[2] === 'tools' }),
  ]);
}
