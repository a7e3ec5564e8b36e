import { UI_MESSAGE_STREAM_HEADERS, type UIMessage, type UIMessageChunk } from 'ai';
import { AppError } from '../http/errors.js';
import { charLength } from '../lib/text.js';
import { MAX_CONTENT_CHARS, type ChatBody, type TurnResult } from './schema.js';
import type { TurnEvent } from './service.js';

/**
 * A turn in the AI SDK 6 UI message stream protocol (what `useChat`'s DefaultChatTransport and
 * `readUIMessageStream` read): Server-Sent Events whose data is one UIMessageChunk each, ended by
 * `data: [DONE]`, with the `x-vercel-ai-ui-message-stream: v1` header. The turn's answers — every
 * model request and the tool calls it made — are ONE assistant UI message: each model request is a
 * step (start-step … finish-step) holding its text and its calls. docs/conversations.md says every chunk.
 */

/** The message metadata a Switchboard UI message carries: `start` sets the first two, `finish` the rest. */
export interface SwitchboardMessageMetadata {
  conversationId: string;
  /** The user's message as saved (`msg_…`). */
  userMessageId: string;
  /** `delivered`: a person holds the conversation; the message was stored and the model not called. */
  status?: 'complete' | 'error' | 'cancelled' | 'delivered';
  /** The turn's saved messages in order (user, assistant, tool…): GET /api/org/conversations/{id} has them. */
  messageIds?: string[];
  usage?: TurnResult['usage'];
  /** A provider failure: the same code and message as the JSON answer's error. */
  error?: { code: string; message: string };
}

export type SwitchboardUIMessage = UIMessage<SwitchboardMessageMetadata>;
export type SwitchboardChunk = UIMessageChunk<SwitchboardMessageMetadata>;

/** The SDK's own headers (content type, no caching, no proxy buffering, the protocol's version). */
export const uiMessageStreamHeaders: Record<string, string> = { ...UI_MESSAGE_STREAM_HEADERS };

/** One chunk as the protocol frames it; the stream ends with `data: [DONE]`. */
export const sseChunk = (chunk: SwitchboardChunk) => `data: ${JSON.stringify(chunk)}\n\n`;
export const SSE_DONE = 'data: [DONE]\n\n';

/**
 * The text `useChat` sent: the last message's text parts, which must be the user's. Switchboard keeps
 * the history itself, so the earlier messages are not read (a client may send only the last one).
 */
export function chatContent(body: ChatBody): string {
  if (body.trigger === 'regenerate-message') {
    throw new AppError('VALIDATION_ERROR', 'Regenerating an answer is not supported: the conversation keeps every answer. Send a new message instead.');
  }
  const last = body.messages.at(-1)!;
  if (last.role !== 'user') throw new AppError('VALIDATION_ERROR', `The last message must be the user's (role "user"), not "${last.role}".`);
  const other = last.parts.find((part) => part.type !== 'text');
  if (other) throw new AppError('VALIDATION_ERROR', `The user's message may hold text parts only, not "${other.type}".`);
  const content = last.parts.map((part) => part.text ?? '').join('\n');
  const length = charLength(content);
  if (content.trim() === '' || length > MAX_CONTENT_CHARS) {
    throw new AppError('VALIDATION_ERROR', `The user's message must have 1–${MAX_CONTENT_CHARS} characters of text (it has ${length}).`);
  }
  return content;
}

/**
 * Turns the service's events into chunks, in order. Tool calls are reported by the loop as they
 * run, which can be a chunk ahead of the model stream's step boundary: whatever belongs in a step
 * opens one if none is open, and the step boundary that follows is then not repeated.
 */
export function createUIMessageMapper() {
  let metadata: SwitchboardMessageMetadata | undefined;
  let stepOpen = false;
  let textId: string | undefined;
  let texts = 0;
  let failure: { code: string; message: string } | undefined;

  const openStep = (): SwitchboardChunk[] => {
    if (stepOpen) return [];
    stepOpen = true;
    return [{ type: 'start-step' }];
  };
  const closeText = (): SwitchboardChunk[] => {
    if (textId === undefined) return [];
    const id = textId;
    textId = undefined;
    return [{ type: 'text-end', id }];
  };
  const closeStep = (): SwitchboardChunk[] => {
    const out = closeText();
    if (stepOpen) out.push({ type: 'finish-step' });
    stepOpen = false;
    return out;
  };
  /** A failure: the metadata first (useChat stops reading at an `error` chunk), then the error. */
  const failed = (extra: Partial<SwitchboardMessageMetadata>): SwitchboardChunk[] => {
    if (!failure) return [];
    const out: SwitchboardChunk[] = [];
    if (metadata) out.push({ type: 'message-metadata', messageMetadata: { ...metadata, ...extra, error: failure } });
    out.push({ type: 'error', errorText: failure.message });
    return out;
  };

  function map(event: TurnEvent): SwitchboardChunk[] {
    switch (event.type) {
      case 'start':
        metadata = { conversationId: event.conversationId, userMessageId: event.message.id };
        return [{ type: 'start', messageId: event.answerId, messageMetadata: metadata }];
      case 'step-start':
        return openStep();
      case 'text-delta': {
        const out = openStep();
        if (textId === undefined) {
          textId = `text-${++texts}`;
          out.push({ type: 'text-start', id: textId });
        }
        out.push({ type: 'text-delta', id: textId, delta: event.delta });
        return out;
      }
      case 'tool-call-start':
        // Dynamic: the agent's tools are configured in Switchboard, a front end has no types for them.
        return [...openStep(), ...closeText(), { type: 'tool-input-available', toolCallId: event.id, toolName: event.name, input: event.arguments, dynamic: true }];
      case 'tool-call-end':
        // A failed call is output too: `{error: {code, message}}` is what the model was handed, and it goes on.
        return [{
          type: 'tool-output-available', toolCallId: event.id, output: event.result, dynamic: true,
          toolMetadata: { outcome: event.outcome, callId: event.callId, durationMs: event.durationMs },
        }];
      case 'tool-call-pending':
        // A call left for the caller to answer: its input, and no output (the SDK's own stream says it the same way).
        return [...openStep(), ...closeText(), { type: 'tool-input-available', toolCallId: event.id, toolName: event.name, input: event.arguments, dynamic: true }];
      case 'tool-call-refused':
        // Refused before it ran, as the SDK's own UI stream says an unknown tool or unreadable arguments.
        return [...openStep(), ...closeText(), {
          type: 'tool-input-error', toolCallId: event.id, toolName: event.name, input: event.arguments, errorText: event.message, dynamic: true,
          toolMetadata: { outcome: event.outcome, callId: null, durationMs: 0 },
        }];
      case 'step-finish':
        return closeStep();
      case 'error':
        failure = { code: event.code, message: event.message };
        return closeText();
      case 'finish': {
        const done: Partial<SwitchboardMessageMetadata> = { status: event.status, messageIds: event.messages.map((m) => m.id), usage: event.usage, ...(failure ? { error: failure } : {}) };
        const out = [...closeStep(), ...failed(done)];
        failure = undefined;
        out.push({ type: 'finish', finishReason: event.status === 'complete' ? 'stop' : event.status === 'error' ? 'error' : 'other', ...(metadata ? { messageMetadata: { ...metadata, ...done } } : {}) });
        return out;
      }
    }
  }

  /** After the turn: an error that no `finish` followed (the turn could not be saved). */
  function end(): SwitchboardChunk[] {
    const out = [...closeStep(), ...failed({ status: 'error' })];
    failure = undefined;
    return out;
  }

  return { map, end };
}
