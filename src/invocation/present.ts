import type { ToolCallsTable } from '../db/tables.js';
import type { CallPath, DeveloperToolCall, ToolCallLogEntry } from './schema.js';

/** What every view of a logged call shows: how it came in, how it went, and when. */
function callOutcome(row: ToolCallsTable) {
  return {
    path: row.path as CallPath,
    outcome: row.outcome,
    httpStatus: row.http_status === null ? null : Number(row.http_status),
    durationMs: Number(row.duration_ms),
    requestBytes: Number(row.request_bytes),
    responseBytes: Number(row.response_bytes),
    createdAt: row.created_at,
  };
}

/** A call as its organization's operators see it (the Operator API's call log). */
export function presentCall(row: ToolCallsTable): ToolCallLogEntry {
  return {
    id: row.id,
    agentId: row.agent_id,
    toolId: row.tool_id,
    revisionId: row.revision_id,
    installationId: row.installation_id,
    conversationId: row.conversation_id,
    ...callOutcome(row),
  };
}

/** A call as the tool's developer sees it: the organization only as `orgRef(orgId)`, an opaque reference. */
export function presentDeveloperCall(row: ToolCallsTable, orgRef: (orgId: string) => string): DeveloperToolCall {
  // A test call belongs to no organization and ran the working copy, not a revision.
  const test = row.path === 'test';
  return {
    id: row.id,
    orgRef: test ? null : orgRef(row.org_id),
    revisionId: test ? null : row.revision_id,
    ...callOutcome(row),
  };
}
