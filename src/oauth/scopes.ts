/** The Developer API's scopes (spec: Authentication, Developer API, item 2). */
export const SCOPES = ['tools:read', 'tools:write', 'tools:publish'] as const;
export type Scope = (typeof SCOPES)[number];

export function isScope(value: string): value is Scope {
  return (SCOPES as readonly string[]).includes(value);
}

/** Splits a space-separated scope string (RFC 6749 §3.3), dropping duplicates and empty parts. */
export function parseScopeList(value: string): string[] {
  return [...new Set(value.split(' ').filter((part) => part !== ''))];
}

export function formatScopes(scopes: readonly string[]): string {
  return SCOPES.filter((scope) => scopes.includes(scope)).join(' ');
}
