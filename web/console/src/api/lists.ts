import { useQuery } from '@tanstack/react-query';
import { api, type Query } from './client';
import type { Agent, CustomField, Page, Pipeline } from './types';

/** Every item of a paged list (100 a page), for the small lists pickers need: agents, pipelines, custom fields. */
export async function fetchAll<T>(path: string, query: Query = {}, maxPages = 20): Promise<T[]> {
  const items: T[] = [];
  let cursor: string | null = null;
  for (let page = 0; page < maxPages; page++) {
    const answer: Page<T> = await api.get<Page<T>>(path, { query: { ...query, limit: 100, cursor } });
    items.push(...answer.items);
    cursor = answer.nextCursor;
    if (!cursor) break;
  }
  return items;
}

export const queryKeys = {
  agents: ['agents'] as const,
  agent: (id: string) => ['agents', id] as const,
  customFields: ['custom-fields'] as const,
  pipelines: ['pipelines'] as const,
  forms: ['forms'] as const,
  form: (id: string) => ['forms', id] as const,
  consentVersions: (id: string) => ['forms', id, 'consent-versions'] as const,
  submissions: (id: string) => ['forms', id, 'submissions'] as const,
  formStats: (id: string) => ['forms', id, 'stats'] as const,
  embed: (id: string) => ['forms', id, 'embed'] as const,
  apiKeys: ['api-keys'] as const,
  members: ['members'] as const,
  invitations: ['invitations'] as const,
  organization: ['organization'] as const,
  notificationSettings: ['notification-settings'] as const,
};

export function useAgents() {
  return useQuery({ queryKey: queryKeys.agents, queryFn: () => fetchAll<Agent>('/api/org/agents') });
}

/** All custom field definitions, archived ones included (a form may still refer to one). */
export function useCustomFields() {
  return useQuery({ queryKey: queryKeys.customFields, queryFn: () => fetchAll<CustomField>('/api/org/custom-fields') });
}

export function usePipelines() {
  return useQuery({ queryKey: queryKeys.pipelines, queryFn: () => fetchAll<Pipeline>('/api/org/pipelines') });
}
