import { api, seg } from '../../api/client';
import { queryKeys } from '../../api/lists';
import type { Contact, ContactDetail, CustomField, FormWithCounts, Opportunity, Page, Pipeline } from '../../api/types';

/**
 * Fetchers of the CRM records the pages read (docs/operator-api.md, "Contacts and
 * notes", "Opportunities").
 */

export interface ContactFilters {
  q: string;
  email: string;
  phone: string;
}

export const crmKeys = {
  all: ['crm'] as const,
  contacts: (filters: ContactFilters) => ['crm', 'contacts', filters] as const,
  contact: (id: string) => ['crm', 'contact', id] as const,
  // Shared with the form editor's pickers (api/lists.ts): a change made here shows there at once.
  pipelines: queryKeys.pipelines,
  pipeline: (id: string) => ['crm', 'pipeline', id] as const,
  opportunities: (pipelineId: string) => ['crm', 'opportunities', pipelineId] as const,
  opportunity: (id: string) => ['crm', 'opportunity', id] as const,
  customFields: queryKeys.customFields,
  forms: ['crm', 'forms'] as const,
};

/** Most lists the pages need whole (pipelines, custom fields, a board's opportunities) are small: read every page, up to 2,000 items. */
export const MAX_PAGES = 20;
export const PAGE_SIZE = 100;

export async function readAll<T>(path: string, query: Record<string, string> = {}, signal?: AbortSignal): Promise<T[]> {
  const items: T[] = [];
  let cursor: string | null = null;
  for (let i = 0; i < MAX_PAGES; i++) {
    const page: Page<T> = await api.get<Page<T>>(path, { query: { ...query, limit: PAGE_SIZE, cursor }, ...(signal ? { signal } : {}) });
    items.push(...page.items);
    cursor = page.nextCursor;
    if (!cursor) break;
  }
  return items;
}

export const fetchContacts = (filters: ContactFilters, cursor: string | null, signal?: AbortSignal) =>
  api.get<Page<Contact>>('/api/org/contacts', { query: { ...filters, limit: 25, cursor }, ...(signal ? { signal } : {}) });
export const fetchContact = (id: string, signal?: AbortSignal) => api.get<ContactDetail>(`/api/org/contacts/${seg(id)}`, signal ? { signal } : {});
export const fetchPipelines = (signal?: AbortSignal) => readAll<Pipeline>('/api/org/pipelines', {}, signal);
export const fetchPipeline = (id: string, signal?: AbortSignal) => api.get<Pipeline>(`/api/org/pipelines/${seg(id)}`, signal ? { signal } : {});
export const fetchOpportunities = (pipelineId: string, signal?: AbortSignal) => readAll<Opportunity>('/api/org/opportunities', { pipelineId }, signal);
export const fetchForms = (signal?: AbortSignal) => readAll<FormWithCounts>('/api/org/forms', {}, signal);
export const fetchCustomFields = (signal?: AbortSignal) => readAll<CustomField>('/api/org/custom-fields', {}, signal);
