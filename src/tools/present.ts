import type { ToolRevisionsTable, ToolsTable } from '../db/tables.js';
import type { AuthType, ToolCategory, ToolDefinition, ToolMethod, ToolParameter, ToolStatus } from './definition.js';
import type { DefinitionColumns } from './repo.js';
import type { OAuthSettings } from './oauth-settings.js';
import type { ToolRecord, ToolRevision } from './schema.js';

/** Rows hold only values the service wrote after validation, so the casts are safe. */
export function definitionFromRow(row: DefinitionColumns | ToolRevisionsTable): ToolDefinition {
  return {
    name: row.name,
    description: row.description,
    endpoint: row.endpoint,
    method: row.method as ToolMethod,
    authType: row.auth_type as AuthType,
    apiKeyHeader: row.api_key_header,
    category: row.category as ToolCategory,
    parameters: JSON.parse(row.parameters) as ToolParameter[],
    oauth: row.oauth === null ? null : (JSON.parse(row.oauth) as OAuthSettings),
  };
}

export function columnsFromDefinition(definition: ToolDefinition): DefinitionColumns {
  return {
    name: definition.name,
    description: definition.description,
    endpoint: definition.endpoint,
    method: definition.method,
    auth_type: definition.authType,
    api_key_header: definition.apiKeyHeader,
    category: definition.category,
    parameters: JSON.stringify(definition.parameters),
    // Normalized by normalizeOAuthSettings (fixed key order), so equal settings have equal text.
    oauth: definition.oauth === null ? null : JSON.stringify(definition.oauth),
  };
}

/** Parameters and OAuth settings are stored in a canonical form, so equal definitions have equal columns. */
export function sameDefinition(a: DefinitionColumns, b: DefinitionColumns): boolean {
  return (
    a.name === b.name && a.description === b.description && a.endpoint === b.endpoint && a.method === b.method &&
    a.auth_type === b.auth_type && a.api_key_header === b.api_key_header && a.category === b.category && a.parameters === b.parameters &&
    a.oauth === b.oauth
  );
}

/** `redirectUri`: `{PUBLIC_URL}/oauth/callback`, shown beside an oauth2 tool's settings for the developer to register. */
export function presentTool(row: ToolsTable, redirectUri: string): ToolRecord {
  const definition = definitionFromRow(row);
  return {
    id: row.id,
    ...definition,
    oauth: definition.oauth === null ? null : { ...definition.oauth, hasClientSecret: row.oauth_client_secret !== null, redirectUri },
    status: row.status as ToolStatus,
    version: Number(row.version),
    hasUnpublishedChanges: Number(row.has_unpublished_changes) === 1,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
    publishedAt: row.published_at,
  };
}

export function presentRevision(row: ToolRevisionsTable, liveRevisionId: string | null): ToolRevision {
  return { id: row.id, version: Number(row.version), live: row.id === liveRevisionId, publishedAt: row.created_at, ...definitionFromRow(row) };
}
