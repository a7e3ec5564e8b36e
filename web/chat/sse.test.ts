import { describe, expect, it } from 'vitest';
import { readEvents, sseParser } from './sse.js';

describe('sseParser', () => {
  it('reads events split anywhere across reads, named by `event:` (or the data\'s type)', () => {
    const parser = sseParser();
    const wire = 'event: start\ndata: {"messageId":"m1"}\n\nevent: text-delta\ndata: {"delta":"Hel"}\n\n: a comment\n\ndata: {"type":"text-delta","delta":"lo"}\r\n\r\nevent: finish\ndata: {"status":"completed"}\n\n';
    const events = [];
    for (let i = 0; i < wire.length; i += 7) events.push(...parser.push(wire.slice(i, i + 7)));
    expect(events).toEqual([
      { type: 'start', messageId: 'm1' },
      { type: 'text-delta', delta: 'Hel' },
      { type: 'text-delta', delta: 'lo' },
      { type: 'finish', status: 'completed' },
    ]);
  });

  it('joins multi-line data, and skips what it cannot read', () => {
    const parser = sseParser();
    expect(parser.push('event: error\ndata: {"code":"X",\ndata: "message":"Sorry."}\n\nevent: text-delta\ndata: not json\n\ndata: {"no":"type"}\n\nevent: tool-call\n\n')).toEqual([
      { type: 'error', code: 'X', message: 'Sorry.' },
    ]);
  });
});

describe('the last event id', () => {
  it('is carried by every event from its `id:` on, as EventSource keeps it; a blank `id:` clears it, one with NUL is ignored', () => {
    const parser = sseParser();
    expect(parser.push('event: start\ndata: {}\n\n')).toEqual([{ type: 'start' }]);
    expect(
      parser.push(
        'id: msg_1\nevent: message\ndata: {"id":"msg_1","role":"operator","content":"Hi"}\n\n' +
          ': keep-alive\n\n' +
          'event: status\ndata: {"status":"human","assigneeName":"Anna"}\nid: msg_2\n\n' +
          'id: bad\u0000id\nevent: status\ndata: {"status":"bot"}\n\n' +
          'id\nevent: status\ndata: {"status":"closed"}\n\n',
      ),
    ).toEqual([
      { type: 'message', id: 'msg_1', role: 'operator', content: 'Hi', lastEventId: 'msg_1' },
      { type: 'status', status: 'human', assigneeName: 'Anna', lastEventId: 'msg_2' },
      { type: 'status', status: 'bot', lastEventId: 'msg_2' },
      { type: 'status', status: 'closed' },
    ]);
  });
});

describe('readEvents', () => {
  it('tells of every read that brought bytes, keep-alive comments too', async () => {
    const body = new ReadableStream<Uint8Array>({
      start(controller) {
        controller.enqueue(new TextEncoder().encode(': keep-alive\n\n'));
        controller.enqueue(new TextEncoder().encode('event: status\ndata: {"status":"waiting"}\n\n'));
        controller.close();
      },
    });
    let reads = 0;
    const seen: unknown[] = [];
    await readEvents(body, (events) => seen.push(...events), () => reads++);
    expect(reads).toBe(2);
    expect(seen).toEqual([{ type: 'status', status: 'waiting' }]);
  });

  it('decodes UTF-8 split between reads and hands over each read\'s events; a last block without its blank line still counts', async () => {
    const bytes = new TextEncoder().encode('event: text-delta\ndata: {"delta":"Caf\u00e9 \u2615"}\n\nevent: finish\ndata: {"status":"completed"}');
    const cut = bytes.indexOf(0xa9); // the middle of é
    const body = new ReadableStream<Uint8Array>({
      start(controller) {
        controller.enqueue(bytes.slice(0, cut));
        controller.enqueue(bytes.slice(cut));
        controller.close();
      },
    });
    const reads: unknown[][] = [];
    await readEvents(body, (events) => reads.push(events));
    expect(reads).toEqual([[{ type: 'text-delta', delta: 'Caf\u00e9 \u2615' }], [{ type: 'finish', status: 'completed' }]]);
  });
});
