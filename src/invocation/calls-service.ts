import type { ToolCallsTable } from '../db/tables.js';
import { decodeCursor, toPage } from '../http/cursor.js';
import type { InvocationRepo } from './repo.js';
import type { CallPath, ToolCallListQuery, ToolCallLogEntry } from './schema.js';

export function presentCall(row: ToolCallsTable): ToolCallLogEntry {
  return {
    id: row.id,
    agentId: row.agent_id,
    toolId: row.tool_id,
    revisionId: row.revision_id,
    installationId: row.installation_id,
    path: row.path as CallPath,
    outcome: row.outcome,
    httpStatus: row.http_status === null ? null : Number(row.http_status),
    durationMs: Number(row.duration_ms),
    requestBytes: Number(row.request_bytes),
    responseBytes: Number(row.response_bytes),
    createdAt: row.created_at,
  };
}

/** An organization's call log: its agents' calls, newest first, without payloads. */
export function createCallsService(deps: { repo: Pick<InvocationRepo, 'listCalls'> }) {
  async function list(orgId: string, query: ToolCallListQuery) {
    const limit = query.limit ?? 20;
    const iso = (value: string | undefined) => (value === undefined ? undefined : new Date(value).toISOString());
    const rows = await deps.repo.listCalls(orgId, {
      agentId: query.agentId,
      toolId: query.toolId,
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
