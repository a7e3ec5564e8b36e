import { decodeCursor, toPage } from '../http/cursor.js';
import { presentCall } from './present.js';
import type { InvocationRepo } from './repo.js';
import type { ToolCallListQuery } from './schema.js';

/** An organization's call log: its agents' calls, newest first, without payloads. */
export function createCallsService(deps: { repo: Pick<InvocationRepo, 'listCalls'> }) {
  async function list(orgId: string, query: ToolCallListQuery) {
    const limit = query.limit ?? 20;
    const iso = (value: string | undefined) => (value === undefined ? undefined : new Date(value).toISOString());
    const rows = await deps.repo.listCalls(orgId, {
      agentId: query.agentId,
      toolId: query.toolId,
      conversationId: query.conversationId,
      outcome: query.outcome,
      from: iso(query.from),
      to: iso(query.to),
      after: decodeCursor(query.cursor),
      limit,
    });
    return toPage(rows.map((row) => ({ ...row, createdAt: row.created_at })), limit, presentCall);
  }
  return { list };
}

export type CallsService = ReturnType<typeof createCallsService>;
