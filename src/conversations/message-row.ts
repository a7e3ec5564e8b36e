import type { ConversationMessagesTable } from '../db/tables.js';
import { newId } from '../lib/ids.js';

/** A new message row: `fields` over the defaults (a complete message with no tool call, no usage, no author). `seq` is set when it is appended (repo.ts). */
export function messageRow(conversationId: string, seq: number, createdAt: string, fields: Partial<ConversationMessagesTable> & { role: string }): ConversationMessagesTable {
  return {
    id: newId('msg'), conversation_id: conversationId, seq, content: null, status: 'complete', error_code: null,
    tool_call_id: null, tool_name: null, tool_arguments: null, tool_result: null, tool_outcome: null, tool_duration_ms: null, call_id: null,
    input_tokens: null, output_tokens: null, created_at: createdAt, author_id: null, author_name: null, event_data: null, ...fields,
  };
}
