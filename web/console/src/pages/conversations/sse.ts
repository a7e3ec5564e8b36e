/**
 * A small Server-Sent Events parser (the WHATWG event stream format): text goes in as it arrives, in
 * pieces of any size; each complete event comes out once its blank line has arrived. EventSource itself
 * cannot POST, so a turn's stream is read from fetch.
 */

export interface SseEvent {
  /** The `event:` field; `message` when there was none. */
  event: string;
  /** The `data:` lines, joined by newlines. */
  data: string;
}

export function createSseParser(onEvent: (event: SseEvent) => void) {
  let buffer = '';
  let name = '';
  let data: string[] = [];

  function line(text: string) {
    if (text === '') {
      if (data.length) onEvent({ event: name || 'message', data: data.join('\n') });
      name = '';
      data = [];
      return;
    }
    if (text.startsWith(':')) return; // a comment (a keep-alive)
    const colon = text.indexOf(':');
    const field = colon === -1 ? text : text.slice(0, colon);
    let value = colon === -1 ? '' : text.slice(colon + 1);
    if (value.startsWith(' ')) value = value.slice(1);
    if (field === 'event') name = value;
    else if (field === 'data') data.push(value);
  }

  return {
    push(chunk: string) {
      buffer += chunk;
      // Lines end with \n, \r\n or \r; a trailing \r may be the first half of \r\n, so it waits for the next chunk.
      for (;;) {
        const match = /\r\n|\n|\r(?!$)/.exec(buffer);
        if (!match) break;
        line(buffer.slice(0, match.index));
        buffer = buffer.slice(match.index + match[0].length);
      }
    },
    /** The stream ended: an event without its blank line is incomplete, and dropped (as the format says). */
    end() {
      buffer = '';
      name = '';
      data = [];
    },
  };
}
