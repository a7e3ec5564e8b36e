import type { AgentKeysTable } from '../db/tables.js';
import type { Transact } from '../db/transaction-runner.js';
import { invalidToken } from '../http/auth-errors.js';
import { decodeCursor, toPage } from '../http/cursor.js';
import { isoNow, type Clock } from '../lib/clock.js';
import { hashSecret } from '../lib/hashing.js';
import { newId, newSecret } from '../lib/ids.js';
import { agentKeyNotFound, agentNotFound } from './errors.js';
import { keyTag, lookupKey, type KeyCache } from './key-cache.js';
import type { OrgsRepo } from './repo.js';
import type { AgentKey, CreatedAgentKey } from './schema.js';
import { requiredText } from '../http/required-text.js';
import { refuseAtOrgLimit } from '../http/tenant-limits.js';
import type { AuditContext } from '../audit/context.js';
import type { AuditRepo } from '../audit/repo.js';
import type { AuditLog } from '../audit/service.js';

export const AGENT_KEY_PREFIX = 'svc_agt_';
/** `last_used_at` is informational: written at most once a minute. */
const TOUCH_INTERVAL_MS = 60_000;

export function presentAgentKey(row: AgentKeysTable): AgentKey {
  return { id: row.id, agentId: row.agent_id, name: row.name, lastFour: row.last_four, createdAt: row.created_at, lastUsedAt: row.last_used_at };
}

/** Whom an agent key speaks for. */
export interface AgentPrincipal {
  orgId: string;
  agentId: string;
  keyId: string;
}

/**
 * Agent keys (`svc_agt_…`): one agent's credential for the MCP endpoint. Shown once,
 * stored as SHA-256 like org API keys; deleting a key stops it at once.
 */
export function createAgentKeysService(deps: { repo: OrgsRepo; transact: Transact<{ orgs: OrgsRepo; audit: AuditRepo }>; clock: Clock; keyCache?: KeyCache | undefined; audit: AuditLog }) {
  const { repo, transact, clock, keyCache, audit } = deps;

  async function agentOf(orgId: string, agentId: string): Promise<void> {
    if (!(await repo.findAgent(orgId, agentId))) throw agentNotFound();
  }

  async function create(orgId: string, agentId: string, input: { name: string }, context: AuditContext): Promise<CreatedAgentKey> {
    await agentOf(orgId, agentId);
    const key = newSecret('svc_agt');
    const row: AgentKeysTable = {
      id: newId('akey'),
      agent_id: agentId,
      org_id: orgId,
      name: requiredText(input.name, 'name', 'a name for the key'),
      key_hash: hashSecret(key),
      last_four: key.slice(-4),
      created_at: isoNow(clock),
      last_used_at: null,
      revoked_at: null,
    };
    // Counted against the org's limit per agent, and inserted, in one transaction.
    await transact(async (repos) => {
      await refuseAtOrgLimit(repos, orgId, 'agentKeysPerAgent', () => repos.orgs.countAgentKeys(orgId, agentId));
      await repos.orgs.insertAgentKey(row);
      await audit.record(context, { action: 'agent_key.created', orgId, target: row.id, details: { name: row.name, agentId, lastFour: row.last_four } }, repos);
    });
    return { ...presentAgentKey(row), key };
  }

  async function list(orgId: string, agentId: string, query: { limit?: number | undefined; cursor?: string | undefined }) {
    await agentOf(orgId, agentId);
    const limit = query.limit ?? 20;
    const rows = await repo.listAgentKeys(orgId, agentId, limit, decodeCursor(query.cursor));
    return toPage(rows.map((row) => ({ ...row, createdAt: row.created_at })), limit, presentAgentKey);
  }

  async function remove(orgId: string, agentId: string, id: string, context: AuditContext): Promise<{ id: string; deleted: true }> {
    await agentOf(orgId, agentId);
    const result = await transact(async (repos) => {
      const deleted = await repos.orgs.deleteAgentKey(orgId, agentId, id);
      if (Number(deleted.numDeletedRows) > 0) await audit.record(context, { action: 'agent_key.revoked', orgId, target: id, details: { agentId } }, repos);
      return deleted;
    });
    if (Number(result.numDeletedRows) === 0) throw agentKeyNotFound();
    // Refused from the next request on, on every node.
    keyCache?.invalidate(keyTag(id));
    return { id, deleted: true };
  }

  /** The agent a presented key speaks for; 401 INVALID_TOKEN for anything else. */
  async function authenticate(token: string): Promise<AgentPrincipal> {
    const invalid = (message: string) => invalidToken(message);
    if (!token.startsWith(AGENT_KEY_PREFIX)) throw invalid('This is not an agent key. Agent keys start with svc_agt_.');
    const hash = hashSecret(token);
    const key = await lookupKey(keyCache, hash, async () => {
      const row = await repo.findAgentKeyByHash(hash);
      return row && { id: row.id, orgId: row.org_id, agentId: row.agent_id, lastFour: row.last_four, lastUsedAt: row.last_used_at, revoked: row.revoked_at !== null };
    });
    if (!key?.agentId) throw invalid('The agent key is not valid.');
    const now = clock.now();
    if (key.lastUsedAt === null || now.getTime() - Date.parse(key.lastUsedAt) >= TOUCH_INTERVAL_MS) {
      // Set first, so the requests arriving meanwhile do not write it too.
      key.lastUsedAt = now.toISOString();
      await repo.touchAgentKey(key.id, key.lastUsedAt);
    }
    return { orgId: key.orgId, agentId: key.agentId, keyId: key.id };
  }

  return { create, list, remove, authenticate };
}

export type AgentKeysService = ReturnType<typeof createAgentKeysService>;
