import { useQuery } from '@tanstack/react-query';
import { api } from '../api/client';
import type { DeveloperLimits, LimitUsage, OrgLimits } from '../api/types';

/** Query keys of the limits: a create or delete on a limited list invalidates `all`. */
export const limitKeys = {
  all: ['limits'] as const,
  org: ['limits', 'org'] as const,
  developer: ['limits', 'developer'] as const,
};

/** From this share of a limit on, the list page says how much of it is used. */
export const NEAR_LIMIT = 0.8;

/** How close a tenant is to a limit: nothing to say below 80 %, `near` from there, `reached` at the limit (or past it, once lowered). */
export function limitState(usage: LimitUsage | undefined): 'none' | 'near' | 'reached' {
  if (!usage) return 'none';
  if (usage.used >= usage.limit) return 'reached';
  return usage.used >= usage.limit * NEAR_LIMIT ? 'near' : 'none';
}

// Read each time a list page opens (staleTime 0): a create elsewhere changes the count.
export function useOrgLimits() {
  return useQuery({ queryKey: limitKeys.org, queryFn: () => api.get<OrgLimits>('/api/org/limits'), staleTime: 0 });
}

export function useDeveloperLimits() {
  return useQuery({ queryKey: limitKeys.developer, queryFn: () => api.get<DeveloperLimits>('/api/dev/limits'), staleTime: 0 });
}
