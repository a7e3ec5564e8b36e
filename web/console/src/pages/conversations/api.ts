import { ApiError, MESSAGES, api, readAnswer, seg } from '../../api/client';
import type { Conversation, ConversationCreated, ConversationMessage, Page, TokenUsage, Transcript } from '../../api/types';
import { createSseParser } from './sse';

/** Fetchers of the conversation pages and the agent page's Playground (docs/conversations.md). */

export const CONVERSATIONS_PAGE = 25;

export const conversationKeys = {
  all: ['conversations'] as const,
  list: (agentId: string) => ['conversations', 'list', agentId] as const,
  transcript: (id: string) => ['conversations', id] as const,
};

const opts = (signal?: AbortSignal) => (signal ? { signal } : {});

export const fetchConversations = (agentId: string, cursor: string | null, signal?: AbortSignal) =>
  api.get<Page<Conversation>>('/api/org/conversations', { query: { agentId, limit: CONVERSATIONS_PAGE, cursor }, ...opts(signal) });
export const fetchTranscript = (id: string, signal?: AbortSignal) => api.get<Transcript>(`/api/org/conversations/${seg(id)}`, opts(signal));
export const startConversation = (agentId: string) => api.post<ConversationCreated>(`/api/org/agents/${seg(agentId)}/conversations`);

/** The events of a streamed turn, as the server sends them (docs/conversations.md, "Streamed: Server-Sent Events"). */
export type TurnEvent =
  | { type: 'start'; conversationId: string; message: ConversationMessage }
  | { type: 'text-delta'; delta: string }
  | { type: 'tool-call-start'; id: string; name: string; arguments: unknown }
  | { type: 'tool-call-end'; id: string; name: string; result: unknown; outcome: string; durationMs: number; callId: string | null }
  | { type: 'error'; code: string; message: string }
  | { type: 'finish'; status: string; conversationId: string; messages: ConversationMessage[]; usage: TokenUsage };

const TYPES = new Set(['start', 'text-delta', 'tool-call-start', 'tool-call-end', 'error', 'finish']);

/**
 * Sends a message and streams the answer: each event is handed to `onEvent` as it arrives. A refusal
 * (before the stream starts) rejects with the API's ApiError; aborting `signal` stops reading and closes
 * the connection, which the server takes as a cancel (it saves the partial answer). The console's client
 * cannot read a stream, so its session header is added here the same way (the CSRF token on a POST).
 */
export async function streamTurn(conversationId: string, content: string, signal: AbortSignal, onEvent: (event: TurnEvent) => void): Promise<void> {
  const headers: Record<string, string> = { Accept: 'text/event-stream', 'Content-Type': 'application/json' };
  if (api.csrfToken) headers['X-CSRF-Token'] = api.csrfToken;
  let res: Response;
  try {
    res = await fetch(`/api/org/conversations/${seg(conversationId)}/messages`, { method: 'POST', headers, credentials: 'same-origin', body: JSON.stringify({ content }), signal });
  } catch (cause) {
    if (signal.aborted) throw cause;
    throw new ApiError({ status: 0, code: 'NETWORK_ERROR', message: MESSAGES.network });
  }
  if (!res.ok || !res.body || !/text\/event-stream/i.test(res.headers.get('content-type') ?? '')) {
    await readAnswer(res);
    throw new ApiError({ status: res.status, code: 'UNEXPECTED_RESPONSE', message: MESSAGES.unreadable(res.status) });
  }
  const parser = createSseParser(({ data }) => {
    let event: unknown;
    try {
      event = JSON.parse(data);
    } catch {
      return; // not one of ours: skipped
    }
    if (typeof event === 'object' && event !== null && TYPES.has((event as { type?: string }).type ?? '')) onEvent(event as TurnEvent);
  });
  const reader = res.body.pipeThrough(new TextDecoderStream()).getReader();
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      parser.push(value);
    }
  } catch (cause) {
    if (signal.aborted) throw cause;
    throw new ApiError({ status: 0, code: 'NETWORK_ERROR', message: 'The connection ended before the answer was complete. Try sending again.' });
  } finally {
    parser.end();
  }
}

/** A provider failure, in words for the person who runs the agent (the provider's own message follows). */
export function providerProblem(code: string): string {
  switch (code) {
    case 'MODEL_PROVIDER_ERROR':
      return 'The model provider could not answer. Check the provider’s key and base URL, and the model’s id.';
    case 'MODEL_PROVIDER_RATE_LIMITED':
      return 'The model provider is busy right now (rate limited). Wait a moment, then send again.';
    case 'MODEL_PROVIDER_TIMEOUT':
      return 'The model took too long to answer. Try again, or a shorter question.';
    default:
      return 'The answer could not be completed.';
  }
}

/** A `YYYY-MM-DD` day in the browser's time zone, as the call log's filters take it. */
function localDay(iso: string): string {
  const date = new Date(iso);
  const d = Number.isNaN(date.getTime()) ? new Date() : date;
  return `${d.getFullYear()}-${String(d.getMonth() + 1).padStart(2, '0')}-${String(d.getDate()).padStart(2, '0')}`;
}

/**
 * The call log, filtered to the conversation's calls; before the conversation has an id (a call streaming
 * in its first turn), to the agent and the day of the call, where it is too.
 */
export function callLogPath(agentId: string, at: string, conversationId: string | null): string {
  if (conversationId) return `/tool-calls?${new URLSearchParams({ conversationId }).toString()}`;
  const day = localDay(at);
  return `/tool-calls?${new URLSearchParams({ agentId, from: day, to: day }).toString()}`;
}

/** "1,234 in · 56 out" tokens. */
export const tokens = (usage: TokenUsage) => `${usage.inputTokens.toLocaleString()} in · ${usage.outputTokens.toLocaleString()} out`;
