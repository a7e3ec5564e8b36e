import { describe, expect, it } from 'vitest';
import { createSseParser, type SseEvent } from './sse';

function parse(chunks: string[]): SseEvent[] {
  const events: SseEvent[] = [];
  const parser = createSseParser((event) => events.push(event));
  for (const chunk of chunks) parser.push(chunk);
  parser.end();
  return events;
}

describe('the Server-Sent Events parser', () => {
  it('gives each event once its blank line arrives, however the text is cut', () => {
    const text = 'event: start\ndata: {"type":"start"}\n\nevent: text-delta\ndata: {"delta":"Hel"}\n\n';
    const expected = [
      { event: 'start', data: '{"type":"start"}' },
      { event: 'text-delta', data: '{"delta":"Hel"}' },
    ];
    expect(parse([text])).toEqual(expected);
    // One character at a time, as a slow network may deliver it.
    expect(parse([...text])).toEqual(expected);
  });

  it('reads \\r\\n line ends split across chunks, joins data lines, skips comments and unknown fields', () => {
    expect(parse(['event: a\r', '\ndata: one\r\ndata: two\r\n: keep-alive\r\nid: 7\r\n\r\n'])).toEqual([{ event: 'a', data: 'one\ntwo' }]);
  });

  it('drops an event whose blank line never came (the stream was cut) and names an unnamed one "message"', () => {
    expect(parse(['data: x\n\n', 'event: finish\ndata: {"partial"'])).toEqual([{ event: 'message', data: 'x' }]);
  });
});
