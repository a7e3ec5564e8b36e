import { connect, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestContext, type TestContext } from '../../test/support/context.js';

/**
 * Limits on client connections, against a real server on 127.0.0.1 (app.inject has no sockets).
 * Every client here is a raw socket, so the test controls each byte and its timing; every wait is
 * bounded, and every socket is destroyed before the server closes.
 */

interface Listening {
  t: TestContext;
  port: number;
  close(): Promise<void>;
}

async function listen(env: Record<string, string>): Promise<Listening> {
  const t = await createTestContext('sqlite', { env });
  await t.app.listen({ host: '127.0.0.1', port: 0 });
  return { t, port: (t.app.server.address() as AddressInfo).port, close: () => t.close() };
}

/** A raw connection that records everything the server sends and when the server closed it. */
interface Client {
  socket: Socket;
  received(): string;
  /** Resolves with the time from connecting to the connection closing. */
  closed: Promise<number>;
}

function open(port: number, sockets: Socket[]): Promise<Client> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    const socket = connect({ host: '127.0.0.1', port });
    sockets.push(socket);
    let connectedAt = 0;
    // A server that closes with unread input resets the connection; what it sent is still recorded.
    socket.on('error', () => {});
    socket.on('data', (chunk: Buffer) => chunks.push(chunk));
    const closed = new Promise<number>((done) => socket.once('close', () => done(Date.now() - connectedAt)));
    socket.once('connect', () => {
      connectedAt = Date.now();
      resolve({ socket, received: () => Buffer.concat(chunks).toString('utf8'), closed });
    });
    socket.once('error', reject);
  });
}

/** Rejects if `promise` takes longer than `ms`: every wait in this file is bounded. */
function within<T>(ms: number, promise: Promise<T>, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what}: no answer within ${ms} ms`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

function parseResponse(raw: string): { status: number; headers: Record<string, string>; body: unknown } {
  const split = raw.indexOf('\r\n\r\n');
  const [statusLine = '', ...headerLines] = raw.slice(0, split).split('\r\n');
  const headers = Object.fromEntries(headerLines.map((line) => [line.slice(0, line.indexOf(':')).toLowerCase(), line.slice(line.indexOf(':') + 1).trim()]));
  return { status: Number(statusLine.split(' ')[1]), headers, body: JSON.parse(raw.slice(split + 4)) };
}

/** The error shape, written by the server as a complete response that closes the connection. */
function expectRefusal(raw: string, status: number, code: string): void {
  const response = parseResponse(raw);
  expect(response.status).toBe(status);
  expect(response.headers['content-type']).toBe('application/json; charset=utf-8');
  expect(response.headers.connection).toBe('close');
  expect(Number(response.headers['content-length'])).toBe(Buffer.byteLength(raw.slice(raw.indexOf('\r\n\r\n') + 4)));
  expect(response.body).toEqual({ success: false, error: expect.any(String), code, requestId: expect.stringMatching(/^req_/) });
  expect(response.headers['x-request-id']).toBe((response.body as { requestId: string }).requestId);
}

const trickleHead = 'POST /api/dev/oauth/token HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/x-www-form-urlencoded\r\nContent-Length: 8000\r\n\r\n';

async function healthz(port: number): Promise<number> {
  const response = await within(5000, fetch(`http://127.0.0.1:${port}/healthz`), '/healthz');
  await response.arrayBuffer();
  return response.status;
}

// The three clients are independent, so they wait out their limits side by side.
describe.concurrent('slow and idle clients', () => {
  // Short limits so the test is quick; the whole-request limit is the longer one, so each cut shows which limit made it.
  const HEADERS_MS = 1000;
  const REQUEST_MS = 3000;
  // Longer than the headers limit: an idle keep-alive connection waits for its next request and
  // must not be cut (with a 408 a balancer would pass on) by the headers limit.
  const KEEP_ALIVE_MS = 2000;
  // Node checks the timeouts every second (app.ts), and a loaded machine adds some delay on top.
  const SLACK_MS = 1000 + 2000;
  let server: Listening;
  const sockets: Socket[] = [];
  beforeAll(async () => {
    server = await listen({ HTTP_HEADERS_TIMEOUT_MS: String(HEADERS_MS), HTTP_REQUEST_TIMEOUT_MS: String(REQUEST_MS), HTTP_KEEP_ALIVE_TIMEOUT_MS: String(KEEP_ALIVE_MS) });
  });
  afterAll(async () => {
    for (const socket of sockets) socket.destroy();
    await server.close();
  });

  it('cuts off a body sent a byte at a time at the whole-request limit, with a 408 in the error shape', async () => {
    const client = await open(server.port, sockets);
    client.socket.write(trickleHead);
    const trickle = setInterval(() => client.socket.write('a'), 200);
    const elapsed = await within(REQUEST_MS + SLACK_MS, client.closed, 'trickled body').finally(() => clearInterval(trickle));
    expect(elapsed).toBeGreaterThanOrEqual(REQUEST_MS - 100);
    expectRefusal(client.received(), 408, 'REQUEST_TIMEOUT');
  });

  it('cuts off headers sent a byte at a time, and a silent connection, at the headers limit', async () => {
    const [trickler, silent] = await Promise.all([open(server.port, sockets), open(server.port, sockets)]);
    let next = 0;
    const trickle = setInterval(() => trickler.socket.write(trickleHead.charAt(next++)), 100);
    const [trickled, quiet] = await within(HEADERS_MS + SLACK_MS, Promise.all([trickler.closed, silent.closed]), 'slow headers').finally(() => clearInterval(trickle));
    // Cut by the headers limit, well before the whole-request one.
    expect(trickled).toBeLessThan(REQUEST_MS);
    expect(quiet).toBeLessThan(REQUEST_MS);
    expectRefusal(trickler.received(), 408, 'REQUEST_TIMEOUT');
    expectRefusal(silent.received(), 408, 'REQUEST_TIMEOUT');
  });

  it('closes an idle keep-alive connection after the keep-alive limit, not the headers one', async () => {
    const client = await open(server.port, sockets);
    client.socket.write('GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n');
    const elapsed = await within(KEEP_ALIVE_MS + SLACK_MS, client.closed, 'idle keep-alive');
    expect(elapsed).toBeGreaterThanOrEqual(KEEP_ALIVE_MS - 100);
    // One response, and the connection closed quietly: no 408.
    expect(client.received()).toMatch(/^HTTP\/1\.1 200 /);
    expect(client.received().match(/HTTP\/1\.1/g)).toHaveLength(1);
    expect(client.received()).toMatch(/Keep-Alive: timeout=2\r\n/);
  });
});

describe('a thousand trickling clients', () => {
  const CLIENTS = 1000;
  const REQUEST_MS = 6000;
  let server: Listening;
  const sockets: Socket[] = [];
  // All from 127.0.0.1, so that one address may hold them all (its share is tested in connection-fairness.test.ts).
  beforeAll(async () => {
    server = await listen({ HTTP_HEADERS_TIMEOUT_MS: '1000', HTTP_REQUEST_TIMEOUT_MS: String(REQUEST_MS), HTTP_MAX_CONNECTIONS: String(CLIENTS + 100), HTTP_MAX_CONNECTIONS_PER_ADDRESS: String(CLIENTS + 100) });
  });
  afterAll(async () => {
    for (const socket of sockets) socket.destroy();
    await server.close();
  });

  it('leave /healthz answering, and are all cut off at the whole-request limit', async () => {
    const clients = await within(10_000, Promise.all(Array.from({ length: CLIENTS }, () => open(server.port, sockets))), 'opening the clients');
    for (const client of clients) client.socket.write(`${trickleHead}a`);
    const trickle = setInterval(() => {
      for (const client of clients) if (client.socket.writable) client.socket.write('a');
    }, 1000);
    try {
      const statuses = [];
      for (let i = 0; i < 5; i++) statuses.push(await healthz(server.port));
      expect(statuses).toEqual([200, 200, 200, 200, 200]);
      // …while every one of them was still connected.
      expect(clients.filter((client) => client.socket.destroyed)).toHaveLength(0);

      await within(REQUEST_MS + 4000, Promise.all(clients.map((client) => client.closed)), 'cutting off the clients');
      const answers = clients.map((client) => parseResponse(client.received()).status);
      expect(answers.filter((status) => status !== 408)).toEqual([]);
    } finally {
      clearInterval(trickle);
    }
  });
});

// The connection cap and its per-address share: connection-fairness.test.ts.

describe('requests too large to parse', () => {
  let server: Listening;
  const sockets: Socket[] = [];
  beforeAll(async () => {
    server = await listen({});
  });
  afterAll(async () => {
    for (const socket of sockets) socket.destroy();
    await server.close();
  });

  async function send(request: string): Promise<string> {
    const client = await open(server.port, sockets);
    client.socket.write(request);
    await within(5000, client.closed, 'the refusal');
    return client.received();
  }

  it('answers a 100,000-character path id with a 414 in the error shape', async () => {
    const raw = await send(`GET /api/catalog/tools/${'x'.repeat(100_000)} HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n`);
    expectRefusal(raw, 414, 'URI_TOO_LONG');
  });

  it('answers a 32 KB header with a 431 in the error shape', async () => {
    const raw = await send(`GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Padding: ${'x'.repeat(32 * 1024)}\r\n\r\n`);
    expectRefusal(raw, 431, 'HEADERS_TOO_LARGE');
  });

  it('answers a request that is not HTTP with a 400 in the error shape', async () => {
    const raw = await send('HELLO\r\n\r\n');
    expectRefusal(raw, 400, 'VALIDATION_ERROR');
  });
});
