import { api, seg } from '../../../api/client';
import type { components } from '../../../api/schema';
import type { Credentials, DeveloperTool, OAuthConnection, Page } from '../../../api/types';
import { localMidnight } from '../../tools/api';

/** The tool page's reads and writes: the Developer API with the session (docs/developer-api.md). */

type Schemas = components['schemas'];
export type ToolRevision = Schemas['ToolRevision'];
export type ToolTestResult = Schemas['ToolTestResult'];
export type DeveloperToolCall = Schemas['DeveloperToolCall'];
export type ToolCallDay = Schemas['ToolCallDay'];

export interface DeveloperCallFilters {
  outcome: string;
  path: string;
  /** First and last day shown (`YYYY-MM-DD`, the browser's days, both included); empty: no bound. */
  from: string;
  to: string;
}

export const REVISIONS_PAGE = 10;
export const CALLS_PAGE = 25;

export const toolPageKeys = {
  tool: (id: string) => ['developer', 'tools', id] as const,
  revisions: (id: string) => ['developer', 'tools', id, 'revisions'] as const,
  calls: (id: string, filters?: DeveloperCallFilters) => (filters ? (['developer', 'tools', id, 'calls', filters] as const) : (['developer', 'tools', id, 'calls'] as const)),
  stats: (id: string) => ['developer', 'tools', id, 'stats'] as const,
  testConnection: (id: string) => ['developer', 'tools', id, 'test-connection'] as const,
};

const base = (id: string) => `/api/dev/tools/${seg(id)}`;
const opts = (signal?: AbortSignal) => (signal ? { signal } : {});

export const fetchDeveloperTool = (id: string, signal?: AbortSignal) => api.get<DeveloperTool>(base(id), opts(signal));
export const fetchRevisions = (id: string, cursor: string | null, signal?: AbortSignal) =>
  api.get<Page<ToolRevision>>(`${base(id)}/revisions`, { query: { limit: REVISIONS_PAGE, cursor }, ...opts(signal) });
export const publishTool = (id: string) => api.post<DeveloperTool>(`${base(id)}/publish`);
export const unpublishTool = (id: string) => api.post<DeveloperTool>(`${base(id)}/unpublish`);
export const deleteTool = (id: string) => api.delete<{ id: string; deleted: true }>(base(id));
export const testTool = (id: string, body: { arguments?: Record<string, unknown>; credentials?: Credentials }) => api.post<ToolTestResult>(`${base(id)}/test`, body);
/** The developer's own test account of an oauth2 tool (never shared with an organization). */
export const testConnectionPath = (id: string) => `${base(id)}/test-connection`;
export const fetchTestConnection = (id: string, signal?: AbortSignal) => api.get<OAuthConnection>(testConnectionPath(id), opts(signal));
export const fetchStats = (id: string, signal?: AbortSignal) => api.get<{ toolId: string; days: ToolCallDay[] }>(`${base(id)}/stats`, opts(signal));

export const fetchDeveloperCalls = (id: string, filters: DeveloperCallFilters, cursor: string | null, signal?: AbortSignal) =>
  api.get<Page<DeveloperToolCall>>(`${base(id)}/calls`, {
    // The API's `to` is exclusive: the last day chosen is included by asking up to the next midnight.
    query: { outcome: filters.outcome, path: filters.path, from: localMidnight(filters.from), to: localMidnight(filters.to, 1), limit: CALLS_PAGE, cursor },
    ...opts(signal),
  });
