import type { ToolsTable } from '../db/tables.js';
import type { AuditLog } from '../audit/service.js';
import type { Transact } from '../db/transaction-runner.js';
import { decodeCursor, toPage } from '../http/cursor.js';
import { isoNow, type Clock } from '../lib/clock.js';
import { newId } from '../lib/ids.js';
import { refuseAtDeveloperLimit, type LimitLock } from '../http/tenant-limits.js';
import { checkEndpoint, describeEndpoint, type EndpointPolicy, type EndpointVerdict } from '../net/endpoint-check.js';
import { nameTaken, toolNotFound } from './errors.js';
import { assertValidDefinition, DEFAULTS, normalizeParameters, type ToolDefinition } from './definition.js';
import { columnsFromDefinition, definitionFromRow, presentRevision, presentTool, sameDefinition } from './present.js';
import { createPublishing } from './publishing.js';
import type { ToolChangeFeed } from './changes.js';
import type { ToolsRepo } from './repo.js';
import type { CreateToolBody, OAuthInput, ToolListQuery, ToolRecord, ToolRevisionListQuery, UpdateToolBody } from './schema.js';
import type { KeyRing } from '../lib/secrets.js';
import { AppError } from '../http/errors.js';
import { sealClientSecret } from './client-secret.js';
import { checkOAuthUrls, normalizeOAuthSettings, type OAuthSettings } from './oauth-settings.js';

export interface ToolsServiceDeps {
  repo: ToolsRepo;
  /** A new tool is counted against its developer's limit and inserted in one transaction (`developers` locks the developer's row). */
  transact: Transact<{ tools: ToolsRepo; developers: LimitLock }>;
  clock: Clock;
  endpointPolicy: EndpointPolicy;
  /** Seals oauth2 tools' client secrets (SECRETS_KEY). */
  keys: KeyRing;
  /** `{PUBLIC_URL}/oauth/callback`, shown with an oauth2 tool's settings. */
  redirectUri: string;
  /** Told after a tool's live revision changes (publish, withdrawal, deletion): the tool caches of invocation/ subscribe. */
  liveChanges?: Pick<ToolChangeFeed, 'notify'> | undefined;
  /** Tools published and withdrawn (tool.published, tool.withdrawn). */
  audit: AuditLog;
}

/**
 * A developer's tools: the working copy they edit. Every lookup is by
 * (developer, id), so another developer's tool is indistinguishable from a missing one.
 */
export function createToolsService(deps: ToolsServiceDeps) {
  const { repo, clock, endpointPolicy, keys, redirectUri } = deps;
  const present = (row: ToolsTable) => presentTool(row, redirectUri);

  /** The settings an `oauth` input gives (its client secret apart), or null without one. */
  function oauthFrom(input: OAuthInput | undefined): OAuthSettings | null {
    if (input === undefined) return null;
    const { clientSecret: _secret, ...settings } = input;
    return normalizeOAuthSettings(settings);
  }

  function missingSecret(): AppError {
    return new AppError('VALIDATION_ERROR', 'Invalid request: oauth.clientSecret is required for an oauth2 tool: your client secret at the provider.', {
      field: 'oauth.clientSecret',
      details: [{ path: 'oauth.clientSecret', message: 'is required for an oauth2 tool: your client secret at the provider' }],
    });
  }

  async function ownedRow(developerId: string, toolId: string) {
    const row = await repo.findTool(developerId, toolId);
    if (!row) throw toolNotFound();
    return row;
  }

  async function create(developerId: string, input: CreateToolBody): Promise<ToolRecord> {
    const definition: ToolDefinition = {
      name: input.name,
      description: input.description,
      endpoint: input.endpoint,
      method: input.method ?? DEFAULTS.method,
      authType: input.authType ?? DEFAULTS.authType,
      apiKeyHeader: input.apiKeyHeader ?? DEFAULTS.apiKeyHeader,
      category: input.category ?? DEFAULTS.category,
      parameters: normalizeParameters(input.parameters ?? DEFAULTS.parameters),
      oauth: oauthFrom(input.oauth),
    };
    assertValidDefinition(definition);
    if (definition.oauth !== null && input.oauth?.clientSecret === undefined) throw missingSecret();
    await checkEndpoint(definition.endpoint, endpointPolicy, 'save');
    if (definition.oauth !== null) await checkOAuthUrls(definition.oauth, endpointPolicy, 'save');
    const existing = await repo.findToolByName(developerId, definition.name);
    if (existing) throw nameTaken(definition.name, existing.id);

    const now = isoNow(clock);
    const id = newId('tool');
    const row: ToolsTable = {
      id,
      developer_id: developerId,
      ...columnsFromDefinition(definition),
      status: 'draft',
      version: 0,
      published_revision_id: null,
      has_unpublished_changes: 0,
      created_at: now,
      updated_at: now,
      published_at: null,
      ...(input.oauth?.clientSecret !== undefined ? sealClientSecret(keys, id, input.oauth.clientSecret) : { oauth_client_secret: null, oauth_secret_key_id: null }),
    };
    await deps.transact(async (repos) => {
      await refuseAtDeveloperLimit(repos, developerId, 'tools', () => repos.tools.countTools(developerId));
      // Thrown inside, so the transaction (aborted on PostgreSQL by the unique violation) rolls back.
      if ((await repos.tools.insertTool(row)) === 'name_taken') throw nameTaken(definition.name);
    });
    return present(row);
  }

  async function list(developerId: string, query: ToolListQuery) {
    const limit = query.limit ?? 20;
    const rows = await repo.listTools(developerId, { status: query.status, category: query.category, q: query.q, after: decodeCursor(query.cursor), limit });
    return toPage(rows.map((row) => ({ ...row, createdAt: row.created_at })), limit, present);
  }

  async function get(developerId: string, toolId: string): Promise<ToolRecord> {
    return present(await ownedRow(developerId, toolId));
  }

  /** Partial: only the fields given change (at least one: the body schema says so). On a published tool this edits the working copy only. */
  async function update(developerId: string, toolId: string, input: UpdateToolBody): Promise<ToolRecord> {
    const row = await ownedRow(developerId, toolId);
    const current = definitionFromRow(row);
    const authType = input.authType ?? current.authType;
    const definition: ToolDefinition = {
      name: input.name ?? current.name,
      description: input.description ?? current.description,
      endpoint: input.endpoint ?? current.endpoint,
      method: input.method ?? current.method,
      authType,
      // A header only means something for api_key: switching away drops the old one.
      apiKeyHeader: input.apiKeyHeader !== undefined ? input.apiKeyHeader : authType === 'api_key' ? current.apiKeyHeader : null,
      category: input.category ?? current.category,
      parameters: input.parameters !== undefined ? normalizeParameters(input.parameters) : current.parameters,
      // Replaced whole when given; dropped when the tool stops being oauth2 (the stored secret stays: a live revision may still use it).
      oauth: input.oauth !== undefined ? oauthFrom(input.oauth) : authType === 'oauth2' ? current.oauth : null,
    };
    assertValidDefinition(definition);
    const secret = input.oauth?.clientSecret;
    if (definition.oauth !== null && secret === undefined && row.oauth_client_secret === null) throw missingSecret();
    if (definition.endpoint !== current.endpoint) await checkEndpoint(definition.endpoint, endpointPolicy, 'save');
    if (definition.oauth !== null && input.oauth !== undefined) await checkOAuthUrls(definition.oauth, endpointPolicy, 'save');
    if (definition.name !== current.name) {
      const existing = await repo.findToolByName(developerId, definition.name);
      if (existing) throw nameTaken(definition.name, existing.id);
    }

    const columns = columnsFromDefinition(definition);
    const latest = row.version > 0 ? await repo.findRevision(developerId, toolId, Number(row.version)) : undefined;
    const changes = {
      ...columns,
      has_unpublished_changes: latest && !sameDefinition(columns, latest) ? 1 : 0,
      updated_at: isoNow(clock),
      ...(secret !== undefined ? sealClientSecret(keys, toolId, secret) : {}),
    };
    const result = await repo.updateTool(developerId, toolId, changes);
    if (result === 'name_taken') throw nameTaken(definition.name);
    if (result === 'missing') throw toolNotFound();
    // The secret is the tool's, not a revision's: a live revision's connections use the new one from now on.
    if (secret !== undefined && row.published_revision_id !== null) deps.liveChanges?.notify(toolId);
    return present({ ...row, ...changes });
  }

  /** The published revisions, newest first; `live` marks the one the catalog serves. */
  async function revisions(developerId: string, toolId: string, query: ToolRevisionListQuery) {
    const tool = await ownedRow(developerId, toolId);
    const limit = query.limit ?? 20;
    const rows = await repo.listRevisions(developerId, toolId, limit, decodeCursor(query.cursor));
    return toPage(rows.map((row) => ({ ...row, createdAt: row.created_at })), limit, (row) => presentRevision(row, tool.published_revision_id));
  }

  async function remove(developerId: string, toolId: string): Promise<{ id: string; deleted: true }> {
    if (!(await repo.deleteTool(developerId, toolId))) throw toolNotFound();
    deps.liveChanges?.notify(toolId);
    return { id: toolId, deleted: true };
  }

  /** What save and publish would say of an endpoint, and why (the portal checks it as it is typed). No tool is read or written. */
  function checkEndpointAsTyped(endpoint: string): Promise<EndpointVerdict> {
    return describeEndpoint(endpoint, endpointPolicy);
  }

  /** What connecting the developer's test account needs: the working copy's provider settings and the tool's secret. */
  async function connectionTarget(developerId: string, toolId: string) {
    const row = await ownedRow(developerId, toolId);
    const definition = definitionFromRow(row);
    if (definition.authType !== 'oauth2' || definition.oauth === null) {
      throw new AppError('CONFLICT', `"${definition.name}" does not connect accounts: its authType is ${definition.authType}. Set authType to oauth2 with its provider's settings first.`);
    }
    return { toolId, name: definition.name, settings: definition.oauth, sealedClientSecret: row.oauth_client_secret };
  }

  return { create, list, get, update, revisions, remove, checkEndpointAsTyped, connectionTarget, ...createPublishing({ ...deps, ownedRow, present }) };
}

export type ToolsService = ReturnType<typeof createToolsService>;
