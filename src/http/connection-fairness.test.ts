import type { IncomingMessage } from 'node:http';
import { connect, type AddressInfo, type Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { createTestContext, type TestContext } from '../../test/support/context.js';
import { clientKey } from './connection-fairness.js';

/**
 * Connection fairness (connection-fairness.ts) against a real server on 127.0.0.1, with clients on
 * other loopback addresses (127.0.0.2, …: the whole 127/8 is the loopback interface). Every client
 * is a raw socket, every wait is bounded, and every socket is destroyed before the server closes.
 * Small caps through config keep most tests quick; the 4,096-connection flood runs once.
 */

interface Server {
  t: TestContext;
  port: number;
  sockets: Socket[];
}

let running: Server | undefined;

async function listen(env: Record<string, string>): Promise<Server> {
  const t = await createTestContext('sqlite', { env });
  await t.app.listen({ host: '127.0.0.1', port: 0 });
  running = { t, port: (t.app.server.address() as AddressInfo).port, sockets: [] };
  return running;
}

afterEach(async () => {
  if (!running) return;
  for (const socket of running.sockets) socket.destroy();
  await running.t.close();
  running = undefined;
});

/** Rejects if `promise` takes longer than `ms`. */
function within<T>(ms: number, promise: Promise<T>, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what}: not within ${ms} ms`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

/** A raw connection from `from` that records what the server sends and whether it closed. */
interface Client {
  socket: Socket;
  received(): string;
  closed: Promise<void>;
  isClosed(): boolean;
}

function open(server: Server, from: string): Promise<Client> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    const socket = connect({ host: '127.0.0.1', port: server.port, localAddress: from });
    server.sockets.push(socket);
    let isClosed = false;
    // A connection closed with unread input is reset; what the server sent is still recorded.
    socket.on('error', () => {});
    socket.on('data', (chunk: Buffer) => chunks.push(chunk));
    const closed = new Promise<void>((done) => socket.once('close', () => { isClosed = true; done(); }));
    socket.once('connect', () => resolve({ socket, received: () => Buffer.concat(chunks).toString('utf8'), closed, isClosed: () => isClosed }));
    socket.once('error', reject);
  });
}

/** One GET /healthz on the connection: its status line, or 'closed' if the server closed it first. */
function get(client: Client): Promise<string> {
  const before = client.received().length;
  const answered = new Promise<string>((resolve) => {
    const check = () => {
      const text = client.received().slice(before);
      if (text.includes('"status":"ok"')) {
        client.socket.off('data', check);
        resolve(text.slice(0, text.indexOf('\r\n')));
      }
    };
    client.socket.on('data', check);
    void client.closed.then(() => resolve('closed'));
  });
  client.socket.write('GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n');
  return within(10_000, answered, 'GET /healthz');
}

const BODY = 'grant_type=client_credentials';

/** Starts a request and leaves its body unfinished: a request in flight. Resolves once the server has it. */
async function hold(server: Server, client: Client): Promise<void> {
  const port = client.socket.localPort;
  const arrived = new Promise<void>((resolve) => {
    const onRequest = (request: IncomingMessage) => {
      if (request.socket.remotePort !== port) return;
      server.t.app.server.off('request', onRequest);
      resolve();
    };
    server.t.app.server.on('request', onRequest);
  });
  client.socket.write(`POST /api/dev/oauth/token HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/x-www-form-urlencoded\r\nContent-Length: ${BODY.length}\r\n\r\n${BODY.slice(0, 5)}`);
  await within(5000, arrived, 'the held request reaching the server');
}

/** Sends the rest of a held request's body: resolves with the response's status line. */
function finish(client: Client): Promise<string> {
  const answered = new Promise<string>((resolve) => {
    const check = () => {
      const text = client.received();
      if (text.includes('\r\n\r\n')) {
        client.socket.off('data', check);
        resolve(text.slice(0, text.indexOf('\r\n')));
      }
    };
    client.socket.on('data', check);
    void client.closed.then(() => resolve('closed'));
  });
  client.socket.write(BODY.slice(5));
  return within(10_000, answered, 'the held request');
}

/** A connection the server closed on arrival: closed without a byte, though a request was sent. */
async function expectRefused(server: Server, from: string): Promise<void> {
  const client = await open(server, from);
  client.socket.write('GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n');
  await within(5000, client.closed, `the connection from ${from}`);
  expect(client.received()).toBe('');
}

describe('the client an address belongs to', () => {
  it('is the IPv4 address however Node writes it, and an IPv6 address\'s /64, which one host may use all of', () => {
    expect(clientKey('203.0.113.9')).toBe('203.0.113.9');
    expect(clientKey('::ffff:203.0.113.9')).toBe('203.0.113.9');
    expect(clientKey('2001:db8:1:2:aaaa::1')).toBe(clientKey('2001:db8:1:2:ffff:ffff:ffff:ffff'));
    expect(clientKey('2001:db8:1:2::1')).toBe('2001:db8:1:2::/64');
    expect(clientKey('2001:db8:1:3::1')).not.toBe(clientKey('2001:db8:1:2::1'));
    expect(clientKey('::1')).toBe('0:0:0:0::/64');
  });
});

describe('a share of the connection cap per client address', () => {
  it('refuses a connection past an address\'s share while its connections are busy, and serves other addresses', async () => {
    const server = await listen({ HTTP_MAX_CONNECTIONS: '20', HTTP_MAX_CONNECTIONS_PER_ADDRESS: '4' });
    const greedy = await Promise.all(Array.from({ length: 4 }, () => open(server, '127.0.0.1')));
    for (const client of greedy) await hold(server, client);

    await expectRefused(server, '127.0.0.1');
    await expectRefused(server, '127.0.0.1');
    // Another address is served, on several connections at once.
    const others = await Promise.all(Array.from({ length: 4 }, () => open(server, '127.0.0.2')));
    expect(await Promise.all(others.map(get))).toEqual(Array(4).fill('HTTP/1.1 200 OK'));
    // The greedy address's own requests were never disturbed.
    for (const client of greedy) expect(await finish(client)).toMatch(/^HTTP\/1\.1 [1-5]\d\d /);
  });

  it('makes room for an address\'s newcomer by closing that address\'s longest-idle connection, never a busy one or another address\'s', async () => {
    const server = await listen({ HTTP_MAX_CONNECTIONS: '20', HTTP_MAX_CONNECTIONS_PER_ADDRESS: '3' });
    const busy = await open(server, '127.0.0.1');
    await hold(server, busy);
    const [older, newer] = [await open(server, '127.0.0.1'), await open(server, '127.0.0.1')];
    expect(await get(older)).toBe('HTTP/1.1 200 OK');
    expect(await get(newer)).toBe('HTTP/1.1 200 OK');
    const neighbour = await open(server, '127.0.0.2');
    expect(await get(neighbour)).toBe('HTTP/1.1 200 OK');

    const newcomer = await open(server, '127.0.0.1');
    expect(await get(newcomer)).toBe('HTTP/1.1 200 OK');
    await within(5000, older.closed, 'the longest-idle connection closing');
    expect(newer.isClosed()).toBe(false);
    expect(await get(newer)).toBe('HTTP/1.1 200 OK');
    expect(await get(neighbour)).toBe('HTTP/1.1 200 OK');
    expect(await finish(busy)).toMatch(/^HTTP\/1\.1 [1-5]\d\d /);
  });

  it('leaves a proxy named by TRUST_PROXY without a share, and keeps it for everyone else', async () => {
    const server = await listen({ HTTP_MAX_CONNECTIONS: '20', HTTP_MAX_CONNECTIONS_PER_ADDRESS: '2', TRUST_PROXY: '127.0.0.1' });
    const proxied = await Promise.all(Array.from({ length: 6 }, () => open(server, '127.0.0.1')));
    for (const client of proxied) await hold(server, client);
    const direct = await Promise.all(Array.from({ length: 2 }, () => open(server, '127.0.0.2')));
    for (const client of direct) await hold(server, client);

    await expectRefused(server, '127.0.0.2');
    const more = await open(server, '127.0.0.1');
    expect(await get(more)).toBe('HTTP/1.1 200 OK');
    for (const client of [...proxied, ...direct]) expect(await finish(client)).toMatch(/^HTTP\/1\.1 [1-5]\d\d /);
  });
});

describe('the connection cap', () => {
  it('closes the longest-idle connection for a new client, never one with a request in flight', async () => {
    const server = await listen({ HTTP_MAX_CONNECTIONS: '3' });
    const busy = await open(server, '127.0.0.1');
    await hold(server, busy);
    const first = await open(server, '127.0.0.2');
    const second = await open(server, '127.0.0.3');
    expect(await get(first)).toBe('HTTP/1.1 200 OK');
    expect(await get(second)).toBe('HTTP/1.1 200 OK');
    // Used again, `first` is now the more recently idle of the two.
    expect(await get(first)).toBe('HTTP/1.1 200 OK');

    const newcomer = await open(server, '127.0.0.4');
    expect(await get(newcomer)).toBe('HTTP/1.1 200 OK');
    await within(5000, second.closed, 'the longest-idle connection closing');
    expect(first.isClosed()).toBe(false);

    // Every connection busy: a newcomer is closed on arrival, and the busy ones are untouched.
    await hold(server, first);
    await hold(server, newcomer);
    await expectRefused(server, '127.0.0.5');
    for (const client of [busy, first, newcomer]) expect(await finish(client)).toMatch(/^HTTP\/1\.1 [1-5]\d\d /);

    // Answered, they are idle again: the next newcomer gets in.
    expect(await get(await open(server, '127.0.0.5'))).toBe('HTTP/1.1 200 OK');
  });

  it('drains on close: idle connections close, a request in flight finishes', async () => {
    const server = await listen({ HTTP_MAX_CONNECTIONS: '3' });
    const idle = await open(server, '127.0.0.1');
    expect(await get(idle)).toBe('HTTP/1.1 200 OK');
    const busy = await open(server, '127.0.0.2');
    await hold(server, busy);

    const closing = server.t.app.close();
    await within(5000, idle.closed, 'the idle connection closing');
    expect(busy.isClosed()).toBe(false);
    expect(await finish(busy)).toMatch(/^HTTP\/1\.1 [1-5]\d\d /);
    // Not after the keep-alive timeout: the answered connection is closed once its answer is sent.
    await within(5000, busy.closed, 'the answered connection closing');
    await within(5000, closing, 'the server closing');
  });
});

describe('one address opening 4,096 idle keep-alive connections', () => {
  const FLOOD = 4096;
  const BATCH = 256;

  it('keeps its share of the default cap, and a second client is served at once', async () => {
    const server = await listen({});
    expect(server.t.config.http).toMatchObject({ maxConnections: 4096, maxConnectionsPerAddress: 256 });
    const flood: Client[] = [];
    const answers = new Map<string, number>();
    // In batches, so the listen backlog (511) never overflows into SYN retries.
    for (let i = 0; i < FLOOD; i += BATCH) {
      const batch = await within(30_000, Promise.all(Array.from({ length: BATCH }, () => open(server, '127.0.0.1'))), 'opening a batch');
      for (const status of await Promise.all(batch.map(get))) answers.set(status, (answers.get(status) ?? 0) + 1);
      flood.push(...batch);
    }
    // Each connection past the share closed the address's own longest-idle one: 256 stay open.
    await within(10_000, (async () => {
      while (flood.filter((client) => !client.isClosed()).length > 256) await new Promise((resolve) => setTimeout(resolve, 20));
    })(), 'the flood settling at its share');
    expect(flood.filter((client) => !client.isClosed())).toHaveLength(256);
    expect(answers.get('HTTP/1.1 200 OK')).toBeGreaterThanOrEqual(256);

    const requestStarted = Date.now();
    const second = await open(server, '127.0.0.2');
    const statuses = [await get(second), await get(second), await get(second)];
    const secondMs = Date.now() - requestStarted;
    expect(statuses).toEqual(['HTTP/1.1 200 OK', 'HTTP/1.1 200 OK', 'HTTP/1.1 200 OK']);
    // At once: not after a keep-alive timeout (72 s). Generous for a loaded machine; typically a few ms.
    expect(secondMs).toBeLessThan(2000);
  }, 120_000);
});
