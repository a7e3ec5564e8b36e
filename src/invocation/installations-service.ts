import type { CatalogService } from '../catalog/service.js';
import type { AuditContext } from '../audit/context.js';
import type { AuditRepo } from '../audit/repo.js';
import type { AuditLog } from '../audit/service.js';
import type { ConnectionStatus } from '../connections/schema.js';
import { presentStatus, type ConnectionsService, type ConnectionTarget } from '../connections/service.js';
import type { InstallationCredentialsTable, InstallationsTable } from '../db/tables.js';
import type { Transact } from '../db/transaction-runner.js';
import { decodeCursor, toPage } from '../http/cursor.js';
import { AppError, type ErrorDetail } from '../http/errors.js';
import { isoNow, type Clock } from '../lib/clock.js';
import { newId } from '../lib/ids.js';
import type { KeyRing } from '../lib/secrets.js';
import type { AgentsService } from '../orgs/agents-service.js';
import { CREDENTIAL_FIELDS, type AuthType } from '../tools/definition.js';
import type { AgentTool, CallableTool, ResolvedAgentTools } from './agent-tools.js';
import { openCredential, sealCredentials } from './credentials.js';
import { installationNotFound, toolNotEnabled } from './errors.js';
import type { InvocationRepo } from './repo.js';
import type { Credentials, Installation, InstallationCreate, InstallationPatch } from './schema.js';
import { agentToolsKey, orgTag, toolTag, type ToolCache } from './tool-cache.js';
import type { Loaded } from '../lib/tagged-cache.js';

export interface InstallationsServiceDeps {
  repo: InvocationRepo;
  /** An installation's row, agent links and credentials are written in one transaction. */
  transact: Transact<{ invocation: InvocationRepo; audit: AuditRepo }>;
  /** Credentials set, changed or removed (installation.credentials_set). */
  audit: AuditLog;
  /** The tools' own service for their live revisions: this feature never reads the tools' tables. */
  catalog: Pick<CatalogService, 'liveRevisions'>;
  /** The orgs feature's agents: an id of another org's agent answers AGENT_NOT_FOUND. */
  agents: Pick<AgentsService, 'get'>;
  clock: Clock;
  keys: KeyRing;
  /** oauth2 installations' connections, for their status (connections/service.ts). */
  connections?: Pick<ConnectionsService, 'statuses' | 'disconnectOwned'> | undefined;
  /**
   * The per-node cache of each agent's resolved tools (tool-cache.ts). This service drops an
   * org's entries after every installation write; without a cache every call reads the database.
   */
  cache?: ToolCache | undefined;
}

interface Scope {
  allAgents: boolean;
  agentIds: string[];
}

function overlaps(a: Scope, b: Scope): boolean {
  if (a.allAgents || b.allAgents) return true;
  const set = new Set(a.agentIds);
  return b.agentIds.some((id) => set.has(id));
}

function validationError(details: ErrorDetail[]): AppError {
  const first = details[0]!;
  return new AppError('VALIDATION_ERROR', `Invalid request: ${details.map((d) => `${d.path} ${d.message}`).join('; ')}.`, {
    details,
    ...(details.length === 1 ? { field: first.path } : {}),
  });
}

/**
 * Installations: an organization enables a published tool for all or some of its agents,
 * under the tool's name or an alias, with the credentials its authType takes (sealed with
 * AES-256-GCM, never returned).
 */
export function createInstallationsService(deps: InstallationsServiceDeps) {
  const { repo, transact, catalog, agents, clock, keys, cache, connections, audit } = deps;
  /** After a write commits: this org's agents resolve their tools again on their next call. */
  const changed = (orgId: string) => cache?.invalidate(orgTag(orgId));

  function checkCredentials(authType: AuthType, credentials: Credentials): Array<[keyof Credentials, string]> {
    const wanted = CREDENTIAL_FIELDS[authType];
    const details: ErrorDetail[] = [];
    const given = Object.entries(credentials).filter(([, value]) => value !== undefined) as Array<[keyof Credentials, string]>;
    for (const [field] of given) {
      if (!wanted.includes(field)) {
        details.push({
          path: `credentials.${field}`,
          message: wanted.length === 0
            ? `is not taken: this tool's authType is none, so send no credentials`
            : `is not taken by authType ${authType}, which takes ${wanted.join(' and ')}`,
        });
      }
    }
    for (const field of wanted) {
      if (!given.some(([name]) => name === field)) details.push({ path: `credentials.${field}`, message: `is required for authType ${authType}` });
    }
    if (details.length > 0) throw validationError(details);
    return given;
  }

  async function checkAgents(orgId: string, agentIds: readonly string[]): Promise<void> {
    for (const agentId of agentIds) {
      try {
        await agents.get(orgId, agentId);
      } catch (error) {
        if (error instanceof AppError && error.code === 'AGENT_NOT_FOUND') {
          throw new AppError('AGENT_NOT_FOUND', `No agent has the id ${JSON.stringify(agentId)} in your organization.`, { field: 'agentIds' });
        }
        throw error;
      }
    }
  }

  /** 409 when an agent this installation reaches already has another tool under the same name. */
  async function checkNameFree(orgId: string, candidate: { id: string; name: string } & Scope): Promise<void> {
    const others = (await repo.allInstallations(orgId)).filter((row) => row.id !== candidate.id);
    if (others.length === 0) return;
    const live = await catalog.liveRevisions(others.map((row) => row.tool_id));
    const named = others.filter((row) => (row.alias ?? live.get(row.tool_id)?.definition.name) === candidate.name);
    if (named.length === 0) return;
    const links = await repo.agentLinks(orgId, named.map((row) => row.id));
    for (const row of named) {
      const scope = { allAgents: Number(row.all_agents) === 1, agentIds: links.filter((l) => l.installation_id === row.id).map((l) => l.agent_id) };
      if (overlaps(candidate, scope)) {
        throw new AppError(
          'CONFLICT',
          `Another installation (${row.id}) already gives ${candidate.allAgents || scope.allAgents ? 'these agents' : 'one of these agents'} a tool named "${candidate.name}". Give one of them an alias.`,
          { field: 'alias' },
        );
      }
    }
  }

  async function present(orgId: string, rows: InstallationsTable[]): Promise<Installation[]> {
    const ids = rows.map((row) => row.id);
    const [live, links, fields] = await Promise.all([
      catalog.liveRevisions(rows.map((row) => row.tool_id)),
      repo.agentLinks(orgId, ids),
      repo.credentialFields(ids),
    ]);
    const connected = rows.filter((row) => live.get(row.tool_id)?.definition.authType === 'oauth2').map((row) => row.id);
    const statuses = connected.length > 0 && connections ? await connections.statuses(orgId, connected) : new Map<string, ConnectionStatus>();
    return rows.map((row) => {
      const revision = live.get(row.tool_id);
      const oauth2 = revision?.definition.authType === 'oauth2';
      const connection = oauth2 ? statuses.get(row.id) ?? presentStatus(undefined) : null;
      const stored = new Set(fields.filter((f) => f.installation_id === row.id).map((f) => f.field));
      const needed = revision ? CREDENTIAL_FIELDS[revision.definition.authType] : [];
      const allAgents = Number(row.all_agents) === 1;
      return {
        id: row.id,
        toolId: row.tool_id,
        toolName: revision?.definition.name ?? null,
        name: revision ? row.alias ?? revision.definition.name : null,
        alias: row.alias,
        enabled: revision !== undefined,
        allAgents,
        agentIds: allAgents ? [] : links.filter((l) => l.installation_id === row.id).map((l) => l.agent_id),
        authType: revision?.definition.authType ?? null,
        credentialsSet: oauth2 ? connection?.status === 'connected' : revision ? needed.length > 0 && needed.every((field) => stored.has(field)) : stored.size > 0,
        connection,
        createdAt: row.created_at,
        updatedAt: row.updated_at,
      };
    });
  }

  async function owned(orgId: string, id: string): Promise<InstallationsTable> {
    const row = await repo.findInstallation(orgId, id);
    if (!row) throw installationNotFound();
    return row;
  }

  /** What connecting an oauth2 installation's account needs: its live revision's provider settings and the tool's secret. */
  async function connectionTarget(orgId: string, id: string): Promise<ConnectionTarget> {
    const row = await owned(orgId, id);
    const live = (await catalog.liveRevisions([row.tool_id])).get(row.tool_id);
    if (!live) throw toolNotEnabled(row.alias ?? row.tool_id);
    const { definition } = live;
    if (definition.authType !== 'oauth2' || definition.oauth === null) {
      throw new AppError('CONFLICT', `"${row.alias ?? definition.name}" does not connect accounts: its authType is ${definition.authType}. Set its credentials with PATCH /api/org/installations/${id}.`);
    }
    return { toolId: row.tool_id, name: row.alias ?? definition.name, settings: definition.oauth, sealedClientSecret: live.sealedClientSecret };
  }

  async function get(orgId: string, id: string): Promise<Installation> {
    return (await present(orgId, [await owned(orgId, id)]))[0]!;
  }

  async function create(orgId: string, input: InstallationCreate, context: AuditContext): Promise<Installation> {
    const live = (await catalog.liveRevisions([input.toolId])).get(input.toolId);
    if (!live) throw new AppError('TOOL_NOT_FOUND', 'No published tool has that id: pick one from GET /api/catalog/tools.', { field: 'toolId' });
    const agentIds = input.agentIds ?? [];
    await checkAgents(orgId, agentIds);
    const given = input.credentials ? checkCredentials(live.definition.authType, input.credentials) : [];

    const now = isoNow(clock);
    const row: InstallationsTable = {
      id: newId('inst'),
      org_id: orgId,
      tool_id: input.toolId,
      alias: input.alias ?? null,
      all_agents: input.agentIds === undefined ? 1 : 0,
      created_at: now,
      updated_at: now,
    };
    await checkNameFree(orgId, { id: row.id, name: row.alias ?? live.definition.name, allAgents: row.all_agents === 1, agentIds });
    const sealed = sealCredentials(keys, row.id, given);
    // A second installation of the same tool fails the unique index: the unit ends there and nothing is written.
    await transact(async ({ invocation, audit: auditRepo }) => {
      if ((await invocation.insertInstallation(row)) === 'exists') {
        throw new AppError('CONFLICT', 'Your organization already installed this tool. Change that installation with PATCH /api/org/installations/{id}.', { field: 'toolId' });
      }
      await invocation.replaceAgentLinks(orgId, row.id, agentIds);
      await invocation.replaceCredentials(row.id, sealed);
      // Which fields were set, never their values.
      if (given.length > 0) await audit.record(context, { action: 'installation.credentials_set', orgId, target: row.id, details: { toolId: row.tool_id, fields: given.map(([field]) => field) } }, { audit: auditRepo });
    });
    changed(orgId);
    return get(orgId, row.id);
  }

  async function update(orgId: string, id: string, patch: InstallationPatch, context: AuditContext): Promise<Installation> {
    const row = await owned(orgId, id);
    const live = (await catalog.liveRevisions([row.tool_id])).get(row.tool_id);
    const changes: InstallationsTable = { ...row, updated_at: isoNow(clock) };
    if (patch.alias !== undefined) changes.alias = patch.alias;
    let agentIds: string[] | undefined;
    if (patch.agentIds !== undefined) {
      agentIds = patch.agentIds ?? [];
      await checkAgents(orgId, agentIds);
      changes.all_agents = patch.agentIds === null ? 1 : 0;
    }
    let credentials: InstallationCredentialsTable[] | undefined;
    if (patch.credentials !== undefined) {
      if (patch.credentials === null) credentials = [];
      else {
        if (!live) throw toolNotEnabledForCredentials();
        credentials = sealCredentials(keys, row.id, checkCredentials(live.definition.authType, patch.credentials));
      }
    }
    if (live && (patch.alias !== undefined || agentIds !== undefined)) {
      const scopeIds = agentIds ?? (await repo.agentLinks(orgId, [row.id])).map((l) => l.agent_id);
      await checkNameFree(orgId, { id: row.id, name: changes.alias ?? live.definition.name, allAgents: Number(changes.all_agents) === 1, agentIds: scopeIds });
    }
    const updated = await transact(async ({ invocation, audit: auditRepo }) => {
      if (!(await invocation.updateInstallation(changes))) return false;
      if (agentIds !== undefined) await invocation.replaceAgentLinks(orgId, row.id, agentIds);
      if (credentials !== undefined) {
        await invocation.replaceCredentials(row.id, credentials);
        await audit.record(context, { action: 'installation.credentials_set', orgId, target: row.id, details: { toolId: row.tool_id, fields: credentials.map((c) => c.field), removed: credentials.length === 0 } }, { audit: auditRepo });
      }
      return true;
    });
    if (!updated) throw installationNotFound();
    changed(orgId);
    return get(orgId, id);
  }

  function toolNotEnabledForCredentials(): AppError {
    return new AppError('TOOL_NOT_ENABLED', 'The tool is not published right now, so its authType is unknown: enter credentials once it is published again.', { field: 'credentials' });
  }

  async function list(orgId: string, query: { limit?: number | undefined; cursor?: string | undefined }) {
    const limit = query.limit ?? 20;
    const rows = await repo.listInstallations(orgId, limit, decodeCursor(query.cursor));
    const page = toPage(rows.map((row) => ({ ...row, createdAt: row.created_at })), limit, (row) => row);
    return { items: await present(orgId, page.items), nextCursor: page.nextCursor };
  }

  async function remove(orgId: string, id: string): Promise<{ id: string; deleted: true }> {
    const row = await owned(orgId, id);
    // A connected account is revoked at its provider first, as a disconnect does (its row goes with the installation).
    if (connections) await connections.disconnectOwned({ kind: 'installation', orgId, installationId: row.id }).catch(() => undefined);
    if (!(await transact(({ invocation }) => invocation.deleteInstallation(orgId, id)))) throw installationNotFound();
    changed(orgId);
    return { id, deleted: true };
  }

  /**
   * Reads what an agent may call: its installations, their live revisions and, for each
   * callable name, the credentials opened. Tagged with the org and every installed tool
   * (live or not), so a publish of a withdrawn tool reaches the entry too.
   */
  async function resolve(orgId: string, agentId: string): Promise<Loaded<ResolvedAgentTools>> {
    await agents.get(orgId, agentId);
    const rows = await repo.installationsForAgent(orgId, agentId);
    const live = await catalog.liveRevisions(rows.map((row) => row.tool_id));
    const seen = new Set<string>();
    const tools: AgentTool[] = [];
    for (const row of rows) {
      const revision = live.get(row.tool_id);
      if (!revision) continue;
      const name = row.alias ?? revision.definition.name;
      if (seen.has(name)) continue;
      seen.add(name);
      tools.push({ installationId: row.id, name, live: revision });
    }
    const needing = tools.filter((tool) => CREDENTIAL_FIELDS[tool.live.definition.authType].length > 0).map((tool) => tool.installationId);
    const stored = await repo.credentialsOf(needing);
    const byName = new Map<string, CallableTool>();
    for (const tool of tools) {
      const credentials: CallableTool['credentials'] = {};
      let credentialsUnreadable = false;
      for (const row of stored) {
        if (row.installation_id !== tool.installationId) continue;
        try {
          credentials[row.field as keyof Credentials] = openCredential(keys, row);
        } catch {
          credentialsUnreadable = true;
        }
      }
      byName.set(tool.name, { ...tool, credentials, credentialsUnreadable });
    }
    return { value: { tools, byName }, tags: [orgTag(orgId), ...new Set(rows.map((row) => toolTag(row.tool_id)))] };
  }

  /** From the cache when there is one; AGENT_NOT_FOUND (not cached) for an id that is not the org's agent. */
  async function resolved(orgId: string, agentId: string): Promise<ResolvedAgentTools> {
    if (!cache) return (await resolve(orgId, agentId)).value;
    const key = agentToolsKey(orgId, agentId);
    const hit = cache.peek(key);
    if (hit !== undefined) return hit;
    // resolve() throws rather than answering undefined, so a value is always there.
    return (await cache.get(key, () => resolve(orgId, agentId)))!;
  }

  /**
   * The agent's callable tools, oldest installation first; a name that two installations
   * came to share (a developer renamed a tool) goes to the older one.
   */
  async function agentTools(orgId: string, agentId: string): Promise<AgentTool[]> {
    return (await resolved(orgId, agentId)).tools;
  }

  /** The tool the agent calls by this name, with its credentials opened; TOOL_NOT_ENABLED when there is none. */
  async function callable(orgId: string, agentId: string, name: string): Promise<CallableTool> {
    const tool = (await resolved(orgId, agentId)).byName.get(name);
    if (!tool) throw toolNotEnabled(name);
    return tool;
  }

  return { create, list, get, update, remove, agentTools, callable, connectionTarget };
}

export type InstallationsService = ReturnType<typeof createInstallationsService>;
