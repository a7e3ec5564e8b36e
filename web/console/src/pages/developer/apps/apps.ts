import { useQuery } from '@tanstack/react-query';
import { fetchAll } from '../../../api/lists';
import type { DeveloperApp } from '../../../api/types';

/** The React Query key of the developer's apps (the Apps page, and the count on the Overview). */
export const appKeys = { all: ['developer', 'apps'] as const };

/** All the developer's apps, newest first (a developer has a handful: fetchAll pages through 100 at a time). */
export function useApps() {
  return useQuery({ queryKey: appKeys.all, queryFn: () => fetchAll<DeveloperApp>('/api/dev/apps') });
}

export type Scope = DeveloperApp['scopes'][number];

/** The Developer API's scopes, in the order the API lists them, with what each lets an app do. */
export const SCOPES: { scope: Scope; hint: string }[] = [
  { scope: 'tools:read', hint: 'List and read your tools, their calls and stats.' },
  { scope: 'tools:write', hint: 'Create, change, test and delete your tools.' },
  { scope: 'tools:publish', hint: 'Publish and unpublish your tools in the catalog.' },
];

export const ALL_SCOPES: Scope[] = SCOPES.map((s) => s.scope);

/** The scopes in the API's order, so a list reads the same everywhere. */
export function orderedScopes(scopes: readonly Scope[]): Scope[] {
  return ALL_SCOPES.filter((scope) => scopes.includes(scope));
}

/**
 * The token request for an app (client_credentials, HTTP Basic). With the secret (just shown once)
 * it is set first in a shell variable; without it the person sets CLIENT_SECRET themselves.
 */
export function tokenRequest(origin: string, clientId: string, secret?: string): string {
  const call = [`curl -s ${origin}/api/dev/oauth/token \\`, `  -u "${clientId}:$CLIENT_SECRET" \\`, '  -d grant_type=client_credentials'].join('\n');
  return secret ? `CLIENT_SECRET='${secret}'\n${call}` : call;
}
