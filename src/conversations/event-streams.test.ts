import { EventEmitter } from 'node:events';
import type { FastifyReply } from 'fastify';
import { describe, expect, it } from 'vitest';
import { isAppError } from '../http/errors.js';
import { createEventStreams } from './event-streams.js';

/** A hijacked reply as the hub uses it: its head, what it wrote, whether it ended. */
function fakeReply() {
  const raw = Object.assign(new EventEmitter(), {
    head: undefined as Record<string, string> | undefined,
    written: [] as string[],
    writableEnded: false,
    destroyed: false,
    socket: new EventEmitter(),
    writeHead(_status: number, headers: Record<string, string>) {
      raw.head = headers;
    },
    flushHeaders() {},
    write(text: string) {
      raw.written.push(text);
    },
    end() {
      raw.writableEnded = true;
    },
  });
  const reply = { raw, hijack() {}, getHeaders: () => ({ 'x-request-id': 'req_1' }) } as unknown as FastifyReply;
  return { reply, raw };
}

describe('event streams', () => {
  it('writes one shared keep-alive to every open stream, ends them on close, and forgets them', async () => {
    const streams = createEventStreams({ keepAliveMs: 20 });
    const first = fakeReply();
    const second = fakeReply();
    const ended: string[] = [];
    streams.start(first.reply, () => ended.push('first'));
    const stream = streams.start(second.reply, () => ended.push('second'));
    expect(first.raw.head).toMatchObject({ 'x-request-id': 'req_1', 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache, no-store' });
    await new Promise((resolve) => setTimeout(resolve, 70));
    expect(first.raw.written.filter((text) => text === ': keep-alive\n\n').length).toBeGreaterThanOrEqual(2);
    // The client goes away: forgotten, its end run once.
    first.raw.emit('close');
    first.raw.socket.emit('close');
    expect(ended).toEqual(['first']);
    expect(streams.size()).toBe(1);
    stream.write('event: x\ndata: {}\n\n');
    expect(second.raw.written.at(-1)).toBe('event: x\ndata: {}\n\n');
    // The server closes: every stream ends.
    streams.closeAll();
    expect(ended).toEqual(['first', 'second']);
    expect(second.raw.writableEnded).toBe(true);
    expect(streams.size()).toBe(0);
    const count = second.raw.written.length;
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(second.raw.written.length).toBe(count);
  });

  it('ends a stream past its age at the next tick', async () => {
    const streams = createEventStreams({ keepAliveMs: 10 });
    const { reply, raw } = fakeReply();
    let ended = false;
    streams.start(reply, () => (ended = true), { maxAgeMs: 15 });
    await new Promise((resolve) => setTimeout(resolve, 60));
    expect(ended).toBe(true);
    expect(raw.writableEnded).toBe(true);
  });

  it('refuses past a key\'s limit, all or nothing, and gives places back', () => {
    const streams = createEventStreams();
    const release = streams.reserve([['session:a', 1], ['address:x', 2]]);
    let refusal: unknown;
    try {
      streams.reserve([['session:a', 1], ['address:x', 2]]);
    } catch (error) {
      refusal = error;
    }
    expect(isAppError(refusal) && refusal.code).toBe('RATE_LIMIT_EXCEEDED');
    // The refused one took no place at the address: another session there still gets one.
    const other = streams.reserve([['session:b', 1], ['address:x', 2]]);
    release();
    release();
    other();
    expect(() => streams.reserve([['session:a', 1], ['address:x', 1]])()).not.toThrow();
  });
});
