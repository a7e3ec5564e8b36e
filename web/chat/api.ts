import { readEvents } from './sse.js';
import type { ChatConfig, ChatEvent, ChatSession, HandoffAnswer, LeadDecision, SessionHistory } from './types.js';

/**
 * The public chat endpoints (docs/chat-widget.md), and their refusals turned into short, kind
 * messages for the visitor: never a code, a status or a server's internals.
 */
export type Fetch = (input: string, init?: RequestInit) => Promise<Response>;

export interface Refusal {
  ok: false;
  /** The API's code, or NETWORK_ERROR / SERVER_ERROR. */
  code: string;
  status: number;
  message: string;
  /** Field → message, for a refused lead. */
  fields?: Record<string, string>;
}

export type Outcome<T> = { ok: true; data: T } | Refusal;

export const MESSAGES = {
  network: 'We could not reach the chat. Check your connection and try again.',
  server: 'Something went wrong on our side. Please try again in a moment.',
  unavailable: 'This chat is not available right now.',
  expired: 'Your earlier chat has ended, so we started a new one.',
  cutOff: 'The answer was cut off. Please try again.',
  rateLimit: (seconds?: number) => `You are sending messages quickly. Please wait ${seconds ? (seconds === 1 ? 'a second' : `${seconds} seconds`) : 'a minute'} and try again.`,
};

/** A server message is shown when it is short visitor text (refusals under 500 only). */
const kind = (text: unknown): text is string => typeof text === 'string' && text.length > 0 && text.length <= 300;

function retryAfter(header: string | null): number | undefined {
  const seconds = header && /^\d+$/.test(header.trim()) ? Number(header) : NaN;
  return seconds > 0 ? Math.min(seconds, 86_400) : undefined;
}

/** The field errors of a refused lead, whichever shape carries them: `field`, or `fields` (a list or a map). */
function fieldErrors(body: Record<string, unknown>): Record<string, string> | undefined {
  const out: Record<string, string> = {};
  const add = (field: unknown, message: unknown) => {
    if (typeof field !== 'string' || !field) return;
    out[field === 'consentVersion' ? 'consent' : field.replace(/^\/?(values\/|values\.)?/, '')] = kind(message) ? message : 'Please check this field.';
  };
  const list = Array.isArray(body.fields) ? body.fields : Array.isArray(body.errors) ? body.errors : null;
  if (list) for (const item of list as Array<Record<string, unknown>>) add(item?.field ?? item?.name, item?.message);
  else if (body.fields && typeof body.fields === 'object') for (const [field, message] of Object.entries(body.fields)) add(field, message);
  if (typeof body.field === 'string') add(body.field, body.error);
  return Object.keys(out).length ? out : undefined;
}

/** A refusal from a non-2xx answer (or an unreadable one). */
export async function refusal(res: Response): Promise<Refusal> {
  let body: Record<string, unknown> = {};
  try {
    body = ((await res.json()) as Record<string, unknown> | null) ?? {};
  } catch {
    // A proxy's page or an empty body: the status says enough.
  }
  const status = res.status;
  const code = typeof body.code === 'string' ? body.code : status === 429 ? 'RATE_LIMIT_EXCEEDED' : 'SERVER_ERROR';
  let message = status < 500 && kind(body.error) ? body.error : MESSAGES.server;
  if (status === 403 || status === 404) message = MESSAGES.unavailable;
  else if (status === 429 && !kind(body.error)) message = MESSAGES.rateLimit(retryAfter(res.headers.get('Retry-After')));
  const fields = fieldErrors(body);
  return fields ? { ok: false, code, status, message, fields } : { ok: false, code, status, message };
}

const networkError = (): Refusal => ({ ok: false, code: 'NETWORK_ERROR', status: 0, message: MESSAGES.network });

export interface StreamHandlers {
  /** The server accepted the request: the stream begins. */
  open(): void;
  /** The events of one read, in order. */
  events(events: ChatEvent[]): void;
}

export interface ChatApi {
  config(): Promise<Outcome<ChatConfig>>;
  startSession(body: { pageUrl?: string; utm?: Record<string, string> }): Promise<Outcome<ChatSession>>;
  history(token: string): Promise<Outcome<SessionHistory>>;
  /** Streams the answer to `content`; resolves when the stream ends (ok: true) or was refused before it began. */
  send(token: string, content: string, handlers: StreamHandlers): Promise<Outcome<null>>;
  lead(token: string, decision: LeadDecision, handlers: StreamHandlers): Promise<Outcome<null>>;
  /** Asks for a person (no body). */
  handoff(token: string): Promise<Outcome<HandoffAnswer>>;
  /**
   * The conversation's live events (`GET …/session/events`), from after `lastEventId` when given; resolves when
   * the stream ends or breaks (a network failure) or was refused, or when `signal` aborts it.
   */
  live(token: string, lastEventId: string | undefined, signal: AbortSignal, handlers: StreamHandlers & { read(): void }): Promise<Outcome<null>>;
}

/** The service's address: the script's URL without `/chat-embed[.hash].js` and its query (keeps a path prefix, if any). */
export function baseOf(src: string): string {
  const url = new URL(src);
  return url.origin + url.pathname.replace(/\/chat-embed(\.[0-9a-f]{12})?\.js$/, '').replace(/\/+$/, '');
}

/** The URL of chat `chatId`'s public config on the service at `base`; its other endpoints are under it. */
export const chatUrl = (base: string, chatId: string): string => `${base.replace(/\/+$/, '')}/api/public/chats/${encodeURIComponent(chatId)}`;

/** The API of chat `chatId` on the service at `base` (its origin, or origin and path prefix). */
export function chatApi(base: string, chatId: string, doFetch: Fetch = (url, init) => fetch(url, init)): ChatApi {
  const root = chatUrl(base, chatId);
  const headers = (token?: string, json = false): Record<string, string> => ({
    ...(token ? { Authorization: `Bearer ${token}` } : {}),
    ...(json ? { 'Content-Type': 'application/json' } : {}),
  });

  // The visitor is known by the session's token alone: no cookies go to the service.
  async function json<T>(path: string, init: RequestInit): Promise<Outcome<T>> {
    let res: Response;
    try {
      res = await doFetch(root + path, { ...init, credentials: 'omit' });
      if (!res.ok) return refusal(res);
      const body = (await res.json()) as { success?: boolean; data?: T };
      return body?.success === true ? { ok: true, data: body.data as T } : { ok: false, code: 'SERVER_ERROR', status: res.status, message: MESSAGES.server };
    } catch {
      return networkError();
    }
  }

  /** A POST whose answer streams (a body given), or the live stream's GET (none). */
  async function stream(path: string, token: string, body: unknown, handlers: StreamHandlers & { read?(): void }, more: RequestInit = {}, lastEventId?: string): Promise<Outcome<null>> {
    let res: Response;
    try {
      res = await doFetch(root + path, {
        ...(body ? { method: 'POST', body: JSON.stringify(body) } : {}),
        // Sent by the widget itself: fetch, unlike EventSource, does not resume on its own.
        headers: { ...headers(token, !!body), Accept: 'text/event-stream', ...(lastEventId ? { 'Last-Event-ID': lastEventId } : {}) },
        credentials: 'omit',
        ...more,
      });
    } catch {
      return networkError();
    }
    if (!res.ok) return refusal(res);
    if (!res.body || !/^text\/event-stream/i.test(res.headers.get('Content-Type') ?? '')) return { ok: false, code: 'SERVER_ERROR', status: res.status, message: MESSAGES.server };
    handlers.open();
    try {
      await readEvents(res.body, (events) => handlers.events(events), () => handlers.read?.());
    } catch {
      return networkError();
    }
    return { ok: true, data: null };
  }

  return {
    config: () => json('', {}),
    startSession: (body) => json('/sessions', { method: 'POST', headers: headers(undefined, true), body: JSON.stringify(body) }),
    history: (token) => json('/session', { headers: headers(token) }),
    send: (token, content, handlers) => stream('/session/messages', token, { content }, handlers),
    lead: (token, decision, handlers) => stream('/session/lead', token, decision, handlers),
    handoff: (token) => json('/session/handoff', { method: 'POST', headers: headers(token) }),
    live: (token, lastEventId, signal, handlers) => stream('/session/events', token, null, handlers, { signal }, lastEventId),
  };
}
