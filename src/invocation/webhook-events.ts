import type { ToolCallsTable } from '../db/tables.js';
import { recordWebhookEvents } from '../webhooks/outbox.js';
import type { Subscriptions } from '../webhooks/subscriptions.js';
import type { WebhooksRepo } from '../webhooks/repo.js';

export interface ToolCallEventRepos {
  webhooks: WebhooksRepo;
}

/**
 * Which call-log rows emit `tool_call.failed` (docs/webhooks.md): every failed call an organization's
 * agent made — the Operator API (`operator`), MCP (`mcp`) and a conversation's model (`conversation`). Not a developer's `test` calls: those are the developer's, made from the portal against a tool
 * under construction, and no organization's agent made them.
 */
export function emitsToolCallFailed(row: ToolCallsTable): boolean {
  return row.outcome !== 'OK' && row.path !== 'test';
}

/**
 * The `tool_call.failed` events of a batch's failed rows, in the call log's transaction. The payload is
 * the row's metadata only: the call log keeps no arguments or results, and neither does the event.
 */
export async function recordToolCallFailed(repos: ToolCallEventRepos, failed: ReadonlyArray<{ row: ToolCallsTable; toolName: string | undefined }>): Promise<void> {
  const subscriptionsByOrg = new Map<string, Subscriptions>();
  for (const { row, toolName } of failed) {
    let subscriptions = subscriptionsByOrg.get(row.org_id);
    if (subscriptions === undefined) {
      subscriptions = await repos.webhooks.subscriptions(row.org_id);
      subscriptionsByOrg.set(row.org_id, subscriptions);
    }
    if (!subscriptions.has('tool_call.failed')) continue;
    await recordWebhookEvents(repos, subscriptions, [{
      orgId: row.org_id,
      type: 'tool_call.failed',
      data: {
        callId: row.id,
        tool: { id: row.tool_id, name: toolName ?? null },
        agentId: row.agent_id,
        conversationId: row.conversation_id,
        path: row.path,
        outcome: row.outcome,
        httpStatus: row.http_status,
        durationMs: row.duration_ms,
      },
    }], row.created_at);
  }
}
