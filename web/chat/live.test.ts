import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { chatApi, type Fetch } from './api.js';
import { liveStream, RETRY_MAX_MS, SILENT_MS } from './live.js';
import type { ChatEvent } from './types.js';

/**
 * The live stream's connection rules against a fake fetch whose answers the test writes and breaks, on
 * fake timers: the last event id sent back as `Last-Event-ID`, the bounded backoff with jitter, the stops.
 */
interface Connection {
  headers: Record<string, string>;
  signal: AbortSignal;
  write(text: string): void;
  end(): void;
  fail(): void;
}

function fakeServer() {
  const connections: Connection[] = [];
  /** What the next connections answer: a stream (default), or a refusal / network failure. */
  const refusals: Array<number | 'network'> = [];
  const doFetch: Fetch = async (_url, init) => {
    const signal = init!.signal!;
    const refusal = refusals.shift();
    if (refusal === 'network') {
      connections.push({ headers: init!.headers as Record<string, string>, signal, write() {}, end() {}, fail() {} });
      throw new TypeError('Failed to fetch');
    }
    if (typeof refusal === 'number') {
      connections.push({ headers: init!.headers as Record<string, string>, signal, write() {}, end() {}, fail() {} });
      return new Response(JSON.stringify({ success: false, code: 'X', error: 'No.' }), { status: refusal, headers: { 'content-type': 'application/json' } });
    }
    let controller!: ReadableStreamDefaultController<Uint8Array>;
    const body = new ReadableStream<Uint8Array>({ start: (c) => void (controller = c) });
    // As fetch does: an abort breaks the body being read.
    signal.addEventListener('abort', () => controller.error(new DOMException('The operation was aborted.', 'AbortError')));
    connections.push({
      headers: init!.headers as Record<string, string>,
      signal,
      write: (text) => controller.enqueue(new TextEncoder().encode(text)),
      end: () => controller.close(),
      fail: () => controller.error(new TypeError('network error')),
    });
    return new Response(body, { status: 200, headers: { 'content-type': 'text/event-stream' } });
  };
  return { connections, refusals, api: chatApi('https://svc.example', 'chat_abc', doFetch) };
}

const operator = (id: string, content: string) => `id: ${id}\nevent: message\ndata: ${JSON.stringify({ id, role: 'operator', content, author: { name: 'Anna' }, createdAt: '2026-01-01T00:00:00.000Z' })}\n\n`;
const flush = () => vi.advanceTimersByTimeAsync(0);

describe('liveStream', () => {
  let random: ReturnType<typeof vi.spyOn>;
  beforeEach(() => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    // The longest wait of each step unless a test says otherwise.
    random = vi.spyOn(Math, 'random').mockReturnValue(0.999999);
  });
  afterEach(() => {
    vi.useRealTimers();
    random.mockRestore();
  });

  function start(server = fakeServer(), token: string | null = 'chs_1') {
    const heard: ChatEvent[] = [];
    const live = liveStream(server.api, () => token, (events) => heard.push(...events));
    return { ...server, heard, live };
  }

  it('resumes from the history\'s last message, and after a drop from the last event it heard, sending Last-Event-ID itself', async () => {
    const { connections, heard, live } = start();
    live.last = 'msg_1';
    live.want(true);
    await flush();
    expect(connections).toHaveLength(1);
    expect(connections[0]!.headers).toEqual({ Authorization: 'Bearer chs_1', Accept: 'text/event-stream', 'Last-Event-ID': 'msg_1' });
    connections[0]!.write(operator('msg_2', 'Hello'));
    connections[0]!.write('id: msg_3\nevent: status\ndata: {"status":"human","assigneeName":"Anna"}\n\n: keep-alive\n\n');
    await flush();
    expect(heard.map((e) => e.lastEventId)).toEqual(['msg_2', 'msg_3']);
    expect(live.last).toBe('msg_3');

    // The connection breaks: tried again within a second (it had brought something), from msg_3.
    connections[0]!.fail();
    await flush();
    expect(connections).toHaveLength(1);
    await vi.advanceTimersByTimeAsync(999);
    expect(connections).toHaveLength(2);
    expect(connections[1]!.headers['Last-Event-ID']).toBe('msg_3');

    // The server ends the stream (a restart, a proxy's timeout): the same.
    connections[1]!.write(operator('msg_4', 'Still there?'));
    connections[1]!.end();
    await vi.advanceTimersByTimeAsync(1_000);
    expect(connections).toHaveLength(3);
    expect(connections[2]!.headers['Last-Event-ID']).toBe('msg_4');
    live.want(false);
  });

  it('backs off 2 s, 4 s, 8 s… to 30 s while it fails, each wait cut by a random half at most; a connection that brings anything starts again at 1 s', async () => {
    const { connections, refusals, live } = start();
    refusals.push('network', 503, 'network', 'network', 'network', 'network', 'network');
    live.want(true);
    await flush();
    const waits: number[] = [];
    for (let i = 0; i < 6; i++) {
      const before = connections.length;
      let waited = 0;
      while (connections.length === before) {
        await vi.advanceTimersByTimeAsync(100);
        waited += 100;
      }
      waits.push(waited);
    }
    expect(waits).toEqual([2_000, 4_000, 8_000, 16_000, RETRY_MAX_MS, RETRY_MAX_MS]);
    // The last try opened a stream; it brings an event and then drops.
    await vi.advanceTimersByTimeAsync(RETRY_MAX_MS);
    const open = connections.at(-1)!;
    open.write(operator('msg_5', 'Hi'));
    open.fail();
    // The jitter's low end: half the wait.
    random.mockReturnValue(0);
    const before = connections.length;
    await vi.advanceTimersByTimeAsync(499);
    expect(connections.length).toBe(before);
    await vi.advanceTimersByTimeAsync(1);
    expect(connections.length).toBe(before + 1);
    live.want(false);
  });

  it('stops for good on 401, 403 and 404 (until wanted again), and never connects without a session', async () => {
    for (const status of [401, 403, 404]) {
      const { connections, refusals, live } = start();
      refusals.push(status);
      live.want(true);
      await vi.advanceTimersByTimeAsync(10 * RETRY_MAX_MS);
      expect(connections).toHaveLength(1);
      live.want(true);
      await flush();
      expect(connections).toHaveLength(2);
      live.want(false);
    }
    const none = start(fakeServer(), null);
    none.live.want(true);
    await vi.advanceTimersByTimeAsync(RETRY_MAX_MS);
    expect(none.connections).toHaveLength(0);
  });

  it('closes the connection when no longer wanted (a hidden page, a closed panel) without trying again, and reopens at once from where it was', async () => {
    const { connections, live } = start();
    live.want(true);
    live.want(true);
    await flush();
    expect(connections).toHaveLength(1);
    connections[0]!.write(operator('msg_7', 'One moment'));
    await flush();
    live.want(false);
    await flush();
    expect(connections[0]!.signal.aborted).toBe(true);
    await vi.advanceTimersByTimeAsync(10 * RETRY_MAX_MS);
    expect(connections).toHaveLength(1);
    live.want(true);
    await flush();
    expect(connections).toHaveLength(2);
    expect(connections[1]!.headers['Last-Event-ID']).toBe('msg_7');
    // A retry waiting when it is closed is dropped too.
    connections[1]!.fail();
    await flush();
    live.want(false);
    await vi.advanceTimersByTimeAsync(RETRY_MAX_MS);
    expect(connections).toHaveLength(2);
  });

  it('replaces a connection silent for 70 s; keep-alive comments keep it', async () => {
    const { connections, live } = start();
    live.want(true);
    await flush();
    for (let i = 0; i < 4; i++) {
      await vi.advanceTimersByTimeAsync(25_000);
      connections[0]!.write(': keep-alive\n\n');
    }
    expect(connections).toHaveLength(1);
    expect(connections[0]!.signal.aborted).toBe(false);
    await vi.advanceTimersByTimeAsync(SILENT_MS);
    expect(connections[0]!.signal.aborted).toBe(true);
    await vi.advanceTimersByTimeAsync(1_000);
    expect(connections).toHaveLength(2);
    live.want(false);
  });
});
