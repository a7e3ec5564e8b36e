import { createHmac } from 'node:crypto';
import { decodeCursor, toPage } from '../http/cursor.js';
import type { Clock } from '../lib/clock.js';
import type { ToolsService } from '../tools/service.js';
import { presentDeveloperCall } from './present.js';
import type { InvocationRepo } from './repo.js';
import type { DeveloperCallListQuery, ToolCallDay } from './schema.js';

export const STATS_DAYS = 30;

/**
 * An organization as a tool's developer sees it: `orgref_` + 22 characters of an HMAC of its id,
 * stable for one organization (calls can be grouped by it) and meaningless without the key.
 */
export function orgReference(key: Buffer, orgId: string): string {
  return `orgref_${createHmac('sha256', key).update(orgId).digest('base64url').slice(0, 22)}`;
}

/** The p-th percentile (nearest rank) of sorted numbers. */
function percentile(sorted: number[], p: number): number | null {
  if (sorted.length === 0) return null;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))]!;
}

/**
 * The Developer API's view of the call log: a developer's own tool's calls across every
 * organization, with each organization only as an opaque reference, and daily statistics.
 * Ownership is the tools feature's answer (`tools.get`: another developer's tool is 404).
 */
export function createDeveloperCallsService(deps: {
  repo: Pick<InvocationRepo, 'listToolCalls' | 'toolCallTimings'>;
  tools: Pick<ToolsService, 'get'>;
  /** Key of the org references: derived from SECRETS_KEY in services.ts. */
  orgRefKey: Buffer;
  clock: Clock;
}) {
  const { repo, tools, orgRefKey, clock } = deps;

  async function list(developerId: string, toolId: string, query: DeveloperCallListQuery) {
    await tools.get(developerId, toolId);
    const limit = query.limit ?? 20;
    // Times are compared as stored text (UTC, milliseconds): an offset like +02:00 is converted first.
    const iso = (value: string | undefined) => (value === undefined ? undefined : new Date(value).toISOString());
    const rows = await repo.listToolCalls(toolId, {
      outcome: query.outcome, path: query.path, from: iso(query.from), to: iso(query.to), after: decodeCursor(query.cursor), limit,
    });
    return toPage(rows.map((row) => ({ ...row, createdAt: row.created_at })), limit, (row) => presentDeveloperCall(row, (orgId) => orgReference(orgRefKey, orgId)));
  }

  /** The last 30 UTC days, oldest first, today included; days without calls are there with zeros. */
  async function stats(developerId: string, toolId: string): Promise<{ toolId: string; days: ToolCallDay[] }> {
    await tools.get(developerId, toolId);
    const today = clock.now().toISOString().slice(0, 10);
    const first = new Date(Date.parse(`${today}T00:00:00.000Z`) - (STATS_DAYS - 1) * 86_400_000);
    const rows = await repo.toolCallTimings(toolId, first.toISOString());
    const byDay = new Map<string, { durations: number[]; errors: number; outcomes: Record<string, number> }>();
    for (let i = 0; i < STATS_DAYS; i++) byDay.set(new Date(first.getTime() + i * 86_400_000).toISOString().slice(0, 10), { durations: [], errors: 0, outcomes: {} });
    for (const row of rows) {
      const day = byDay.get(String(row.created_at).slice(0, 10));
      if (!day) continue;
      day.durations.push(Number(row.duration_ms));
      if (row.outcome !== 'OK') day.errors++;
      day.outcomes[row.outcome] = (day.outcomes[row.outcome] ?? 0) + 1;
    }
    const days = [...byDay.entries()].map(([date, { durations, errors, outcomes }]) => {
      durations.sort((a, b) => a - b);
      return {
        date,
        calls: durations.length,
        errors,
        errorRate: durations.length === 0 ? 0 : errors / durations.length,
        p50Ms: percentile(durations, 50),
        p95Ms: percentile(durations, 95),
        outcomes,
      };
    });
    return { toolId, days };
  }

  return { list, stats };
}

export type DeveloperCallsService = ReturnType<typeof createDeveloperCallsService>;
