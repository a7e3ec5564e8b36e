import type { ModelProvidersTable } from '../db/tables.js';
import type { AuditContext } from '../audit/context.js';
import type { AuditRepo } from '../audit/repo.js';
import type { AuditLog } from '../audit/service.js';
import { isForeignKeyViolation } from '../db/query-helpers.js';
import type { Transact } from '../db/transaction-runner.js';
import { decodeCursor, toPage } from '../http/cursor.js';
import { AppError } from '../http/errors.js';
import { isoNow, type Clock } from '../lib/clock.js';
import { newId } from '../lib/ids.js';
import { requiredText } from '../http/required-text.js';
import type { KeyRing } from '../lib/secrets.js';
import { refuseAtOrgLimit, type LimitLock } from '../http/tenant-limits.js';
import { openApiKey, sealApiKey } from './api-key.js';
import { checkBaseUrl, DEFAULT_BASE_URLS, type BaseUrlPolicy } from './base-url.js';
import { providerNotFound } from './errors.js';
import type { ModelsRepo, ProviderChanges } from './repo.js';
import type { ModelProvider, ModelProviderCreate, ModelProviderPatch, ProviderKind } from './schema.js';

export function presentProvider(row: ModelProvidersTable): ModelProvider {
  return {
    id: row.id,
    name: row.name,
    kind: row.kind as ProviderKind,
    baseUrl: row.base_url,
    hasApiKey: row.api_key_sealed !== null,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

/** What a model client needs to reach a provider; the key in the clear, so never logged or answered. */
export interface ProviderConnection {
  id: string;
  kind: ProviderKind;
  baseUrl: string;
  apiKey: string | undefined;
}

const keyWouldMove = () =>
  new AppError('VALIDATION_ERROR', 'A new baseUrl would send the stored API key to another server: give apiKey again (or null to remove it) in the same request.', { field: 'apiKey' });

/**
 * Model providers of an organization: where its agents' models are (kind and base URL, checked by the tool
 * endpoints' address policy) and the API key, sealed under SECRETS_KEY and never returned.
 */
export function createModelsService(deps: {
  repo: ModelsRepo;
  /** A new provider is counted against the org's limit and inserted in one transaction (`orgs` locks the org's row). */
  transact: Transact<{ models: ModelsRepo; orgs: LimitLock ; audit: AuditRepo }>;
  /** Provider keys set, changed or removed (model_provider.key_set). */
  audit: AuditLog;
  keys: KeyRing;
  clock: Clock;
  baseUrlPolicy: BaseUrlPolicy;
}) {
  const { repo, transact, keys, clock, baseUrlPolicy, audit } = deps;

  async function found(orgId: string, id: string): Promise<ModelProvidersTable> {
    const row = await repo.findProvider(orgId, id);
    if (!row) throw providerNotFound();
    return row;
  }

  async function baseUrlFor(kind: ProviderKind, given: string | undefined): Promise<string> {
    if (given !== undefined) return checkBaseUrl(given, baseUrlPolicy);
    const fallback = DEFAULT_BASE_URLS[kind];
    if (fallback === undefined) throw new AppError('VALIDATION_ERROR', 'An openai-compatible provider needs its baseUrl, e.g. https://openrouter.ai/api/v1.', { field: 'baseUrl' });
    return fallback;
  }

  async function create(orgId: string, input: ModelProviderCreate, context: AuditContext): Promise<ModelProvider> {
    const now = isoNow(clock);
    const id = newId('mp');
    const row: ModelProvidersTable = {
      id,
      org_id: orgId,
      name: requiredText(input.name, 'name', 'a name for the provider'),
      kind: input.kind,
      base_url: await baseUrlFor(input.kind, input.baseUrl),
      ...(input.apiKey !== undefined ? sealApiKey(keys, id, input.apiKey) : { api_key_sealed: null, api_key_key_id: null }),
      created_at: now,
      updated_at: now,
    };
    await transact(async (repos) => {
      await refuseAtOrgLimit(repos, orgId, 'modelProviders', () => repos.models.countProviders(orgId));
      await repos.models.insertProvider(row);
      if (input.apiKey !== undefined) await audit.record(context, { action: 'model_provider.key_set', orgId, target: id, details: { name: row.name, kind: row.kind, key: 'set' } }, repos);
    });
    return presentProvider(row);
  }

  async function update(orgId: string, id: string, patch: ModelProviderPatch, context: AuditContext): Promise<ModelProvider> {
    const row = await found(orgId, id);
    const set: ProviderChanges = { updated_at: isoNow(clock) };
    if (patch.name !== undefined) set.name = requiredText(patch.name, 'name', 'a name for the provider');
    const kind = patch.kind ?? (row.kind as ProviderKind);
    if (patch.kind !== undefined) set.kind = patch.kind;
    if (patch.baseUrl !== undefined) set.base_url = await checkBaseUrl(patch.baseUrl, baseUrlPolicy);
    // A new kind without a baseUrl moves to that kind's own API; openai-compatible keeps the URL it had.
    else if (patch.kind !== undefined && patch.kind !== row.kind) set.base_url = DEFAULT_BASE_URLS[kind] ?? row.base_url;
    // The key was given for one server: whoever may edit a provider must not be able to redirect it elsewhere.
    if (set.base_url !== undefined && set.base_url !== row.base_url && row.api_key_sealed !== null && patch.apiKey === undefined) throw keyWouldMove();
    if (patch.apiKey === null) Object.assign(set, { api_key_sealed: null, api_key_key_id: null });
    else if (patch.apiKey !== undefined) Object.assign(set, sealApiKey(keys, id, patch.apiKey));
    await transact(async (repos) => {
      await repos.models.updateProvider(orgId, id, set);
      if (patch.apiKey !== undefined) await audit.record(context, { action: 'model_provider.key_set', orgId, target: id, details: { name: set.name ?? row.name, kind, key: patch.apiKey === null ? 'removed' : 'set' } }, repos);
    });
    return presentProvider({ ...row, ...set });
  }

  async function remove(orgId: string, id: string): Promise<{ id: string; deleted: true }> {
    let deleted: bigint;
    try {
      deleted = (await repo.deleteUnused(orgId, id)).numDeletedRows;
    } catch (error) {
      // An agent took the provider between the check and the delete: the foreign key refused it.
      if (!isForeignKeyViolation(error)) throw error;
      deleted = 0n;
    }
    if (deleted === 0n) {
      await found(orgId, id);
      const users = await repo.agentsUsing(orgId, id, 4);
      // The last agent let go of it meanwhile.
      if (users.length === 0 && (await repo.deleteUnused(orgId, id)).numDeletedRows > 0n) return { id, deleted: true };
      const names = users.slice(0, 3).map((agent) => agent.name).join(', ') + (users.length > 3 ? ', …' : '');
      throw new AppError('CONFLICT', `Agents use this provider (${names}). Give them another model or clear theirs (PATCH /api/org/agents/{id} with model: null), then delete it.`);
    }
    return { id, deleted: true };
  }

  async function list(orgId: string, query: { limit?: number | undefined; cursor?: string | undefined }) {
    const limit = query.limit ?? 20;
    const rows = await repo.listProviders(orgId, limit, decodeCursor(query.cursor));
    return toPage(rows.map((row) => ({ ...row, createdAt: row.created_at })), limit, presentProvider);
  }

  return {
    create,
    get: async (orgId: string, id: string) => presentProvider(await found(orgId, id)),
    list,
    update,
    remove,
    /** For the agents service: whether the org has this provider. */
    exists: async (orgId: string, id: string) => (await repo.findProvider(orgId, id)) !== undefined,
    /** For the model client (next piece): the provider with its key opened. */
    connection: async (orgId: string, id: string): Promise<ProviderConnection> => {
      const row = await found(orgId, id);
      return { id, kind: row.kind as ProviderKind, baseUrl: row.base_url, apiKey: row.api_key_sealed === null ? undefined : openApiKey(keys, id, row.api_key_sealed) };
    },
  };
}

export type ModelsService = ReturnType<typeof createModelsService>;
