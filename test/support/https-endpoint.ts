import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import type { IncomingHttpHeaders, IncomingMessage, ServerResponse } from 'node:http';
import { createServer, type Server } from 'node:https';
import type { AddressInfo, Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * A real HTTPS tool endpoint for tests, on loopback only (127.0.0.1, and ::1 on the same
 * port when the machine has it), with a certificate from a CA made at test time by the
 * `openssl` CLI. It records every request byte for byte, answers as each test says, and
 * counts TCP connections, so a test can prove that a blocked call never connected.
 */

export interface TestCertificates {
  /** PEM file of the test CA: the client's `caFile`. */
  caFile: string;
  caPem: string;
  key: string;
  cert: string;
}

/** Names and addresses the server certificate is valid for. */
export const CERTIFICATE_NAMES = ['tool.test', 'localhost'];

let certificates: TestCertificates | undefined;

/** Makes the test CA and a server certificate once per test process. */
export function testCertificates(): TestCertificates {
  if (certificates) return certificates;
  const dir = mkdtempSync(join(tmpdir(), 'switchboard-test-ca-'));
  process.once('exit', () => rmSync(dir, { recursive: true, force: true }));
  const file = (name: string) => join(dir, name);
  const openssl = (...args: string[]) => execFileSync('openssl', args, { stdio: ['ignore', 'ignore', 'pipe'] });
  const ec = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes'];

  openssl('req', '-x509', '-new', ...ec, '-keyout', file('ca.key'), '-out', file('ca.pem'), '-days', '2',
    '-subj', '/CN=Switchboard Test CA', '-addext', 'basicConstraints=critical,CA:TRUE', '-addext', 'keyUsage=critical,keyCertSign,cRLSign');
  openssl('req', '-new', ...ec, '-keyout', file('server.key'), '-out', file('server.csr'), '-subj', '/CN=tool.test');
  writeFileSync(file('server.ext'), [
    `subjectAltName=${CERTIFICATE_NAMES.map((name) => `DNS:${name}`).join(',')},IP:127.0.0.1,IP:::1`,
    'basicConstraints=critical,CA:FALSE',
    'keyUsage=critical,digitalSignature',
    'extendedKeyUsage=serverAuth',
  ].join('\n'));
  openssl('x509', '-req', '-in', file('server.csr'), '-CA', file('ca.pem'), '-CAkey', file('ca.key'), '-CAcreateserial',
    '-out', file('server.pem'), '-days', '2', '-extfile', file('server.ext'));

  certificates = {
    caFile: file('ca.pem'),
    caPem: readFileSync(file('ca.pem'), 'utf8'),
    key: readFileSync(file('server.key'), 'utf8'),
    cert: readFileSync(file('server.pem'), 'utf8'),
  };
  return certificates;
}

export interface RecordedRequest {
  method: string;
  /** Path and query, as sent. */
  path: string;
  headers: IncomingHttpHeaders;
  /** Names and values as they arrived, with their case. */
  rawHeaders: string[];
  body: Buffer;
  /** Which TLS connection (1, 2, … since the last reset) carried it. */
  connection: number;
}

export type Responder = (request: RecordedRequest, response: ServerResponse) => void | Promise<void>;

/** What happened to a streamed answer: how much was written, and whether the client hung up first. */
export interface StreamReport {
  bytesWritten: number;
  finished: boolean;
  closedEarly: boolean;
  done: Promise<void>;
}

export interface HttpsEndpoint {
  port: number;
  /** https://127.0.0.1:<port> */
  origin: string;
  /** `${origin}${path}` */
  url(path?: string): string;
  caFile: string;
  /** Every request, in arrival order. */
  requests: RecordedRequest[];
  /** TCP connections accepted so far, on every listener. */
  readonly connections: number;
  /** Of those, how many have closed. */
  readonly closedConnections: number;
  /** Whether the endpoint also listens on ::1. */
  ipv6: boolean;
  /** How the next requests are answered (default: 200 {"ok":true}). */
  respond(responder: Responder): void;
  /** Resolves once `count` connections have closed, or rejects after `timeoutMs`. */
  waitForClosedConnections(count: number, timeoutMs?: number): Promise<void>;
  /** Resolves once no connection is open (after clients closed theirs), or rejects after `timeoutMs`. */
  idle(timeoutMs?: number): Promise<void>;
  /** Forgets recorded requests and counters. */
  reset(): void;
  close(): Promise<void>;
}

// --- Responders ------------------------------------------------------------

export function json(status: number, value: unknown, headers: Record<string, string> = {}): Responder {
  return (_request, response) => {
    const body = Buffer.from(JSON.stringify(value));
    response.writeHead(status, { 'content-type': 'application/json', 'content-length': body.length, ...headers });
    response.end(body);
  };
}

/** Any bytes with any Content-Type (none when null); chunked unless `contentLength`. */
export function raw(status: number, body: string | Buffer, contentType: string | null, options: { contentLength?: boolean; headers?: Record<string, string> } = {}): Responder {
  return (_request, response) => {
    const bytes = Buffer.isBuffer(body) ? body : Buffer.from(body);
    const headers: Record<string, string | number> = { ...options.headers };
    if (contentType !== null) headers['content-type'] = contentType;
    if (options.contentLength) headers['content-length'] = bytes.length;
    response.writeHead(status, headers);
    response.end(bytes);
  };
}

export function redirect(status: number, location: string): Responder {
  return (_request, response) => {
    const body = Buffer.from(JSON.stringify({ movedTo: location }));
    response.writeHead(status, { location, 'content-type': 'application/json', 'content-length': body.length });
    response.end(body);
  };
}

/** Waits before answering with `then`. */
export function delayed(ms: number, then: Responder): Responder {
  return (request, response) =>
    new Promise<void>((resolve) => {
      const timer = setTimeout(() => resolve(then(request, response)), ms);
      response.once('close', () => {
        clearTimeout(timer);
        resolve();
      });
    });
}

/** Sends the headers, then a little of the body, then stalls. */
export function stalledBody(): Responder {
  return (_request, response) => {
    response.writeHead(200, { 'content-type': 'application/json' });
    response.write('{"partial":');
  };
}

/** Hangs up without answering. */
export function hangUp(): Responder {
  return (_request, response) => {
    response.socket?.destroy();
  };
}

/**
 * A JSON-typed body of `totalBytes`, written in 16 KB chunks with backpressure, so it
 * stops as soon as the client stops reading. The report says how far it got.
 */
export function streamed(totalBytes: number, options: { status?: number; contentLength?: boolean } = {}): { responder: Responder; report: StreamReport } {
  let settle: () => void = () => {};
  const report: StreamReport = { bytesWritten: 0, finished: false, closedEarly: false, done: new Promise<void>((resolve) => (settle = resolve)) };
  const chunk = Buffer.alloc(16 * 1024, 0x20); // spaces: JSON whitespace
  const responder: Responder = (_request, response) => {
    const headers: Record<string, string | number> = { 'content-type': 'application/json' };
    if (options.contentLength) headers['content-length'] = totalBytes;
    response.writeHead(options.status ?? 200, headers);
    response.once('close', () => {
      report.closedEarly = !report.finished;
      settle();
    });
    const pump = (): void => {
      while (report.bytesWritten < totalBytes) {
        if (response.destroyed) return;
        const piece = chunk.subarray(0, Math.min(chunk.length, totalBytes - report.bytesWritten));
        report.bytesWritten += piece.length;
        if (!response.write(piece)) {
          response.once('drain', pump);
          return;
        }
      }
      report.finished = true;
      response.end();
    };
    pump();
  };
  return { responder, report };
}

// --- Server ----------------------------------------------------------------

export async function startHttpsEndpoint(initial: Responder = json(200, { ok: true })): Promise<HttpsEndpoint> {
  const { key, cert, caFile } = testCertificates();
  let responder = initial;
  const requests: RecordedRequest[] = [];
  const sockets = new Set<Socket>();
  let connections = 0;
  let closedConnections = 0;
  const connectionIds = new WeakMap<Socket, number>();
  const closeWaiters = new Set<() => void>();

  const handle = (request: IncomingMessage, response: ServerResponse) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const recorded: RecordedRequest = {
        method: request.method ?? '',
        path: request.url ?? '',
        headers: request.headers,
        rawHeaders: request.rawHeaders,
        body: Buffer.concat(chunks),
        connection: connectionIds.get(request.socket as Socket) ?? 0,
      };
      requests.push(recorded);
      Promise.resolve(responder(recorded, response)).catch((error: unknown) => {
        response.destroy(error instanceof Error ? error : new Error(String(error)));
      });
    });
  };

  let secureConnections = 0;
  const onConnection = (socket: Socket) => {
    connections += 1;
    sockets.add(socket);
    socket.once('close', () => {
      sockets.delete(socket);
      closedConnections += 1;
      for (const waiter of closeWaiters) waiter();
    });
  };

  const make = (): Server => {
    const server = createServer({ key, cert, keepAliveTimeout: 30_000 }, handle);
    server.on('connection', onConnection);
    server.on('secureConnection', (socket: Socket) => {
      secureConnections += 1;
      connectionIds.set(socket, secureConnections);
    });
    // Handshakes a client aborts are expected in these tests.
    server.on('tlsClientError', () => {});
    return server;
  };

  const ipv4 = make();
  await new Promise<void>((resolve, reject) => {
    ipv4.once('error', reject);
    ipv4.listen(0, '127.0.0.1', () => resolve());
  });
  const port = (ipv4.address() as AddressInfo).port;

  // The same port on ::1, so a test that would dial [::1] would be counted too.
  const ipv6Server = make();
  const ipv6 = await new Promise<boolean>((resolve) => {
    ipv6Server.once('error', () => resolve(false));
    ipv6Server.listen(port, '::1', () => resolve(true));
  });
  const servers = ipv6 ? [ipv4, ipv6Server] : [ipv4];

  const origin = `https://127.0.0.1:${port}`;
  return {
    port,
    origin,
    url: (path = '/tool') => `${origin}${path}`,
    caFile,
    requests,
    get connections() {
      return connections;
    },
    get closedConnections() {
      return closedConnections;
    },
    ipv6,
    respond(next) {
      responder = next;
    },
    waitForClosedConnections(count, timeoutMs = 5000) {
      return new Promise<void>((resolve, reject) => {
        const check = () => {
          if (closedConnections >= count) {
            closeWaiters.delete(check);
            clearTimeout(timer);
            resolve();
          }
        };
        const timer = setTimeout(() => {
          closeWaiters.delete(check);
          reject(new Error(`${closedConnections} of ${count} connections closed within ${timeoutMs} ms`));
        }, timeoutMs);
        closeWaiters.add(check);
        check();
      });
    },
    idle(timeoutMs = 5000) {
      return new Promise<void>((resolve, reject) => {
        const check = () => {
          if (sockets.size === 0) {
            closeWaiters.delete(check);
            clearTimeout(timer);
            resolve();
          }
        };
        const timer = setTimeout(() => {
          closeWaiters.delete(check);
          reject(new Error(`${sockets.size} connections still open after ${timeoutMs} ms`));
        }, timeoutMs);
        closeWaiters.add(check);
        check();
      });
    },
    reset() {
      requests.length = 0;
      connections = 0;
      closedConnections = 0;
      secureConnections = 0;
    },
    async close() {
      for (const socket of sockets) socket.destroy();
      await Promise.all(servers.map((server) => new Promise<void>((resolve) => server.close(() => resolve()))));
    },
  };
}

/** A loopback port with nothing listening (for refused connections). */
export async function closedPort(): Promise<number> {
  const { createServer: createTcpServer } = await import('node:net');
  const server = createTcpServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const port = (server.address() as AddressInfo).port;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}
