import type { ConversationMessage } from '../conversations/schema.js';

/**
 * The note a lead from the chat widget leaves on its contact: where the chat happened, what the visitor wrote
 * in the form's message field, then the conversation as the visitor saw it (their messages and the assistant's
 * answers; never tool calls, their results or errors' internals).
 */

/** A note's longest body through the Operator API (crm/schema.ts NoteCreate), so an operator can edit it as any other. */
export const NOTE_MAX_CHARS = 10_000;

const SPEAKER: Record<string, string> = { user: 'Visitor', assistant: 'Assistant' };

export function transcriptNote(messages: readonly ConversationMessage[], context: { pageUrl: string | null; message?: string | undefined }): string {
  const head = [`Lead from the chat widget${context.pageUrl ? ` on ${context.pageUrl}` : ''}.`];
  if (context.message) head.push('', context.message);
  head.push('', 'Conversation:');
  const lines = messages
    .filter((m) => SPEAKER[m.role] !== undefined && m.status !== 'error' && (m.content ?? '').trim() !== '')
    .map((m) => `${SPEAKER[m.role]}: ${m.content!.trim()}`);
  const start = head.join('\n');
  // The latest messages are the ones that led to the lead: when the whole chat does not fit, the oldest go.
  const kept: string[] = [];
  let length = [...start].length;
  for (let i = lines.length - 1; i >= 0; i--) {
    const size = [...lines[i]!].length + 2;
    if (length + size + 60 > NOTE_MAX_CHARS) {
      kept.unshift(`(${i + 1} earlier message${i === 0 ? '' : 's'} left out)`);
      break;
    }
    kept.unshift(lines[i]!);
    length += size;
  }
  const note = [start, ...kept].join('\n\n');
  // A single message longer than the room left (the form's message field and one 8,000-character turn): cut.
  return [...note].length > NOTE_MAX_CHARS ? [...note].slice(0, NOTE_MAX_CHARS - 1).join('') + '…' : note;
}
