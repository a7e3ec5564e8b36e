import type { Clock } from '../lib/clock.js';
import { createTaggedCache, type CacheOptions, type TaggedCache } from '../lib/tagged-cache.js';
import type { OrgChangeFeed } from '../orgs/changes.js';
import type { ToolChangeFeed } from '../tools/changes.js';
import type { ResolvedAgentTools } from './agent-tools.js';

export type ToolCache = TaggedCache<ResolvedAgentTools>;

/** Every entry of an org: installations, credentials and agents changed (also the org change feed: an agent deleted). */
export const orgTag = (orgId: string) => `org:${orgId}`;
/** Every entry that read this tool's installation, live or not: publish, withdrawal, deletion. */
export const toolTag = (toolId: string) => `tool:${toolId}`;
export const agentToolsKey = (orgId: string, agentId: string) => `${orgId}/${agentId}`;

/**
 * The per-node cache of agents' callable tools, dropped at once on this node by the writes
 * that matter: installation create/patch/delete (the installations service invalidates the
 * org), tool publish/withdrawal/deletion (the tool change feed), agent deletion (the org
 * change feed); other nodes hear the same through the invalidation bus once attached. The
 * TTL bounds staleness if an invalidation is ever lost.
 */
export function createToolCache(deps: {
  clock: Clock;
  orgChanges: Pick<OrgChangeFeed, 'subscribe'>;
  toolChanges: Pick<ToolChangeFeed, 'subscribe'>;
  ttlMs?: number;
  onLookup?: CacheOptions['onLookup'];
}): ToolCache {
  const cache = createTaggedCache<ResolvedAgentTools>({ clock: deps.clock, onLookup: deps.onLookup, ...(deps.ttlMs !== undefined ? { ttlMs: deps.ttlMs } : {}) });
  deps.orgChanges.subscribe((orgId) => cache.invalidate(orgTag(orgId)));
  deps.toolChanges.subscribe((toolId) => cache.invalidate(toolTag(toolId)));
  return cache;
}
