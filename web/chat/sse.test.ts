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

describe('readEvents', () => {
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
