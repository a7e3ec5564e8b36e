import type { ModelMessage } from 'ai';
import type { ConversationMessagesTable, ConversationsTable } from '../db/tables.js';
import type { Conversation, ConversationMessage, Utm } from './schema.js';

/** Rows ↔ the wire, and rows → the history the model is sent. */

/** A conversation row with its assignee's name (repo.ts reads it joined). */
export type ConversationRow = ConversationsTable & { assignee_name?: string | null };

export function presentConversation(row: ConversationRow): Conversation {
  return {
    id: row.id,
    agentId: row.agent_id,
    source: row.source,
    pageUrl: row.page_url,
    utm: parsedUtm(row.utm),
    status: row.status,
    assignee: row.assignee_id === null ? null : { id: row.assignee_id, name: row.assignee_name ?? '' },
    handoffRequestedAt: row.handoff_requested_at,
    messageCount: row.message_count,
    usage: { inputTokens: row.input_tokens, outputTokens: row.output_tokens },
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

const parsed = (text: string | null): unknown => (text === null ? null : JSON.parse(text));

/** Only the five UTM keys, as text: what the wire shape promises, whatever the column holds. */
function parsedUtm(text: string | null): Utm | null {
  const value = parsed(text);
  if (typeof value !== 'object' || value === null) return null;
  const utm: Record<string, string> = {};
  for (const key of UTM_KEYS) {
    const item = (value as Record<string, unknown>)[key];
    if (typeof item === 'string') utm[key] = item;
  }
  return Object.keys(utm).length === 0 ? null : utm;
}

const UTM_KEYS = ['source', 'medium', 'campaign', 'term', 'content'] as const;

export function presentMessage(row: ConversationMessagesTable): ConversationMessage {
  return {
    id: row.id,
    role: row.role,
    content: row.role === 'tool' ? null : row.content,
    status: row.status,
    error: row.error_code === null ? null : { code: row.error_code, message: row.content ?? '' },
    toolCall: row.role !== 'tool'
      ? null
      : {
          id: row.tool_call_id ?? '',
          name: row.tool_name ?? '',
          arguments: parsed(row.tool_arguments),
          result: parsed(row.tool_result),
          outcome: row.tool_outcome ?? '',
          durationMs: row.tool_duration_ms ?? 0,
          callId: row.call_id,
        },
    usage: row.role === 'assistant' && row.input_tokens !== null ? { inputTokens: row.input_tokens, outputTokens: row.output_tokens ?? 0 } : null,
    author: row.author_id === null ? null : { id: row.author_id, name: row.author_name ?? '' },
    createdAt: row.created_at,
  };
}

/**
 * The transcript as the model is sent it: user texts; each assistant answer with the tool calls it
 * made, followed by their results exactly as first handed over. Failed answers (status error) are
 * left out, as is an answer with neither text nor calls (providers refuse empty messages).
 *
 * Hand-off (issue 35): a member's replies (`operator`) are assistant texts, as they are: to the visitor they
 * came from the same chat, so after a release the model continues from what the person said and promised.
 * Events (status changes) are left out; the model learns of a hand-off from its `request_human` call's result.
 */
export function historyOf(rows: readonly ConversationMessagesTable[]): ModelMessage[] {
  const history: ModelMessage[] = [];
  for (let i = 0; i < rows.length; i++) {
    const row = rows[i]!;
    if (row.role === 'user') {
      history.push({ role: 'user', content: row.content ?? '' });
      continue;
    }
    if (row.role === 'operator') {
      if ((row.content ?? '') !== '') history.push({ role: 'assistant', content: row.content ?? '' });
      continue;
    }
    if (row.role !== 'assistant') continue;
    const calls: ConversationMessagesTable[] = [];
    while (rows[i + 1]?.role === 'tool') calls.push(rows[++i]!);
    if (row.status === 'error') continue;
    const answered = calls.filter((call) => call.tool_result !== null);
    const text = row.content ?? '';
    if (text === '' && answered.length === 0) continue;
    history.push({
      role: 'assistant',
      content: [
        ...(text === '' ? [] : [{ type: 'text' as const, text }]),
        ...answered.map((call) => ({ type: 'tool-call' as const, toolCallId: call.tool_call_id!, toolName: call.tool_name!, input: parsed(call.tool_arguments) })),
      ],
    });
    if (answered.length > 0) {
      history.push({
        role: 'tool',
        content: answered.map((call) => ({
          type: 'tool-result' as const, toolCallId: call.tool_call_id!, toolName: call.tool_name!, output: { type: 'json' as const, value: parsed(call.tool_result) as never },
        })),
      });
    }
  }
  return history;
}
