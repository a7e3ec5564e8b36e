import type { ChatEvent } from './types.js';

/**
 * Server-Sent Events read from a fetch body. Not EventSource: it can only GET and cannot send the
 * session's `Authorization` header. Blocks end at a blank line; `event:` names the type (a `type` in
 * the data is the fallback), `data:` lines are joined with newlines and parsed as JSON; comments and
 * blocks whose data is not JSON are skipped. `id:` sets the stream's last event id, as EventSource keeps
 * it: each later event carries it as `lastEventId` (the live stream resumes from it).
 */
export function sseParser(): { push(text: string): ChatEvent[] } {
  let buffer = '';
  let lastEventId = '';
  return {
    push(text) {
      buffer += text.replace(/\r\n?/g, '\n');
      const events: ChatEvent[] = [];
      let end: number;
      while ((end = buffer.indexOf('\n\n')) >= 0) {
        const block = buffer.slice(0, end);
        buffer = buffer.slice(end + 2);
        let name = '';
        const data: string[] = [];
        for (const line of block.split('\n')) {
          const colon = line.indexOf(':');
          const field = colon < 0 ? line : line.slice(0, colon);
          const value = colon < 0 ? '' : line.slice(colon + 1).replace(/^ /, '');
          if (field === 'event') name = value;
          else if (field === 'data') data.push(value);
          else if (field === 'id' && !value.includes('\0')) lastEventId = value;
        }
        if (!data.length) continue;
        try {
          const parsed = JSON.parse(data.join('\n')) as Record<string, unknown> | null;
          if (parsed && typeof parsed === 'object') {
            const type = name || parsed.type;
            if (typeof type === 'string') events.push({ ...parsed, type, ...(lastEventId ? { lastEventId } : {}) } as ChatEvent);
          }
        } catch {
          // Not JSON: nothing the widget can show.
        }
      }
      return events;
    },
  };
}

/**
 * Every event of a streamed body, in order, handed to `onEvents` a read at a time; resolves when the body ends.
 * `onRead` hears every read, keep-alive comments included (the live stream's watchdog).
 */
export async function readEvents(body: ReadableStream<Uint8Array>, onEvents: (events: ChatEvent[]) => void, onRead?: () => void): Promise<void> {
  const reader = body.getReader();
  const decoder = new TextDecoder();
  const parser = sseParser();
  for (;;) {
    const { done, value } = await reader.read();
    const events = parser.push(done ? decoder.decode() + '\n\n' : decoder.decode(value, { stream: true }));
    if (events.length) onEvents(events);
    if (done) return;
    onRead?.();
  }
}
