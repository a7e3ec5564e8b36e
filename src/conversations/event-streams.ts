import type { FastifyReply } from 'fastify';
import { AppError } from '../http/errors.js';

/**
 * Long-lived Server-Sent Event streams (the Inbox's and the visitors'; issue 35), kept cheap while idle: a stream
 * is its response, a listener on the live bus (live.ts) and an entry in a set here. No timer per stream: one
 * interval per node writes `: keep-alive` to every open stream every 25 s (proxies close connections silent for
 * longer), running only while a stream is open; it also ends the streams past their age (`maxAgeMs`: their clients
 * reconnect, and their credentials are checked again). A stream ends when its client goes away, when the server
 * closes (`closeAll`, from the app's preClose) and when the bus may have lost messages; it is then forgotten here.
 *
 * Concurrency is bounded per key (a visitor's session, a client address, an organization) and per node, so
 * nobody can hold an unbounded number open: past a key's limit, 429 RATE_LIMIT_EXCEEDED before anything is written.
 */

export const KEEP_ALIVE_MS = 25_000;

export interface EventStream {
  /** Writes text as it is (one or more events); nothing once the stream ended. */
  write(text: string): void;
  readonly ended: boolean;
  end(): void;
}

interface OpenStream extends EventStream {
  /** The keep-alive's tick: a comment, or the end once the stream is past its age. */
  tick(now: number): void;
}

/** One Server-Sent Event. `id`: the event id a client resumes from (Last-Event-ID). */
export function sseEvent(type: string, data: unknown, id?: string): string {
  return `${id === undefined ? '' : `id: ${id}\n`}event: ${type}\ndata: ${JSON.stringify(data)}\n\n`;
}

export const EVENT_STREAM_HEADERS = { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache, no-store', 'x-accel-buffering': 'no' };

/** The headers hooks set on the reply (X-Request-Id, nosniff; CORS on the chat's routes), for a stream that writes its own head. */
function replyHeaders(reply: FastifyReply): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(reply.getHeaders())) {
    if (value !== undefined) out[name] = Array.isArray(value) ? value.join(', ') : String(value);
  }
  return out;
}

export function createEventStreams(options: { keepAliveMs?: number } = {}) {
  const keepAliveMs = options.keepAliveMs ?? KEEP_ALIVE_MS;
  const open = new Set<OpenStream>();
  const counts = new Map<string, number>();
  let timer: ReturnType<typeof setInterval> | undefined;

  function tick(): void {
    const now = Date.now();
    for (const stream of [...open]) stream.tick(now);
  }

  /**
   * Holds a place for a stream under each `[key, limit]` (all or none); throws 429 when one is full.
   * Answers the release, for `start` (or for the caller, when it fails before starting).
   */
  function reserve(limits: ReadonlyArray<readonly [key: string, limit: number]>): () => void {
    for (const [key, limit] of limits) {
      if ((counts.get(key) ?? 0) >= limit) {
        throw new AppError('RATE_LIMIT_EXCEEDED', 'Too many event streams are open. Close one, or wait a moment and reconnect.', { headers: { 'Retry-After': '10' } });
      }
    }
    for (const [key] of limits) counts.set(key, (counts.get(key) ?? 0) + 1);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      for (const [key] of limits) {
        const n = (counts.get(key) ?? 1) - 1;
        if (n <= 0) counts.delete(key);
        else counts.set(key, n);
      }
    };
  }

  /**
   * Turns the reply into an event stream: the head (the reply's headers, then the event stream's), and the
   * stream's life. `onEnd` runs once, however it ends (unsubscribe, release the reservation).
   */
  function start(reply: FastifyReply, onEnd: () => void, options: { maxAgeMs?: number } = {}): EventStream {
    const endsAt = options.maxAgeMs === undefined ? Infinity : Date.now() + options.maxAgeMs;
    reply.hijack();
    const raw = reply.raw;
    raw.writeHead(200, { ...replyHeaders(reply), ...EVENT_STREAM_HEADERS });
    raw.flushHeaders();
    let ended = false;
    const stream: OpenStream = {
      get ended() {
        return ended;
      },
      write(text) {
        if (ended || text === '' || raw.destroyed || raw.writableEnded) return;
        raw.write(text);
      },
      tick(now) {
        if (now >= endsAt) stream.end();
        else stream.write(': keep-alive\n\n');
      },
      end() {
        if (ended) return;
        ended = true;
        open.delete(stream);
        if (open.size === 0 && timer) {
          clearInterval(timer);
          timer = undefined;
        }
        raw.off('close', onClose);
        raw.socket?.off('close', onClose);
        try {
          onEnd();
        } finally {
          if (!raw.writableEnded && !raw.destroyed) raw.end();
        }
      },
    };
    const onClose = () => stream.end();
    raw.once('close', onClose);
    raw.socket?.once('close', onClose);
    open.add(stream);
    if (!timer) timer = setInterval(tick, keepAliveMs).unref();
    return stream;
  }

  return {
    reserve,
    start,
    /** Open streams on this node. */
    size: () => open.size,
    /** Ends every stream (the server is closing): each client sees its stream end and may reconnect elsewhere. */
    closeAll(): void {
      for (const stream of [...open]) stream.end();
    },
  };
}

export type EventStreams = ReturnType<typeof createEventStreams>;
