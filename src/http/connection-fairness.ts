import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import type { FastifyBaseLogger } from 'fastify';
import ipaddr from 'ipaddr.js';

/**
 * Connection fairness: the connection cap (HTTP_MAX_CONNECTIONS) shared so that no one client can
 * take it. Node's own `server.maxConnections` closes every connection past the cap as it arrives,
 * so 4,096 idle keep-alive sockets from one address locked everyone out until they timed out (72 s).
 * This takes its place, with two rules checked as each connection arrives, O(1) each:
 *
 * 1. **A share per client address** (HTTP_MAX_CONNECTIONS_PER_ADDRESS). A connection from an address
 *    already at its share closes that address's own longest-idle connection to make room, or, when
 *    every one of them has a request in flight, is refused. So a greedy client only ever competes
 *    with itself, and many people behind one NAT address still get in while some of them are idle.
 *    An IPv6 client's "address" is its /64: one host is given a whole /64 and may use any address
 *    in it. Proxies named by TRUST_PROXY carry everyone's connections and have no share.
 * 2. **At the cap, the longest-idle connection is closed** for the newcomer (as nginx does with its
 *    reusable connections). A connection is idle while no request is in flight on it: between
 *    requests on a kept-alive connection, and before its first request's headers have arrived (so a
 *    client trickling its headers is closed first, too). A connection with a request in flight is
 *    never closed for another; when all are busy, the newcomer is refused.
 *
 * A refused connection is destroyed on arrival, before a byte is read, as Node's cap did. A 503 with
 * Retry-After would need the request read first (a response to an unread request is often lost to
 * the reset that closing with unread input sends) and the connection held for that time: a parser
 * and a slot for each refused connection of a flood, to tell something to a client that opened
 * hundreds of connections at once. Closing an idle keep-alive connection races a request the client
 * may be sending on it at that moment, as the keep-alive timeout does; HTTP clients retry a request
 * on a reused connection that closed without an answer.
 *
 * Shutdown is Fastify's: `app.close()` stops accepting connections (so nothing here runs again),
 * closes the idle ones (`server.closeIdleConnections()`), answers 503 to new requests on the others
 * and waits for those in flight. One gap is closed here: a connection whose request was in flight
 * when the drain began is closed once its answer is sent, instead of waiting out its keep-alive.
 * Sockets closed by anyone are forgotten here by their 'close' event.
 */
export interface ConnectionFairnessOptions {
  /** Open connections at once (HTTP_MAX_CONNECTIONS). */
  maxConnections: number;
  /** Open connections from one client address (HTTP_MAX_CONNECTIONS_PER_ADDRESS). */
  maxPerAddress: number;
  /** Whether a peer is a proxy named by TRUST_PROXY (http/proxy-peers.ts): no per-address share. */
  isProxy(address: string): boolean;
  log: FastifyBaseLogger;
  /** Milliseconds, for spacing the log lines (default Date.now). */
  now?: () => number;
}

export interface ConnectionStats {
  /** Connections held (the cap counts these). */
  open: number;
  /** Of those, connections with no request in flight. */
  idle: number;
  /** Open connections from one client address (an IPv6 address counts with its /64). */
  fromAddress(address: string): number;
}

/** A place in an idle queue: a connection is in the global one, and in its address's one unless from a proxy. */
interface Link {
  connection: Connection;
  prev: Link | undefined;
  next: Link | undefined;
  queued: boolean;
}

/** Idle connections, longest idle first: a doubly linked list, so adding, removing and taking the oldest are O(1). */
class IdleQueue {
  private head: Link | undefined;
  private tail: Link | undefined;
  size = 0;

  push(link: Link): void {
    if (link.queued) return;
    link.prev = this.tail;
    link.next = undefined;
    if (this.tail) this.tail.next = link;
    else this.head = link;
    this.tail = link;
    link.queued = true;
    this.size++;
  }

  remove(link: Link): void {
    if (!link.queued) return;
    if (link.prev) link.prev.next = link.next;
    else this.head = link.next;
    if (link.next) link.next.prev = link.prev;
    else this.tail = link.prev;
    link.prev = link.next = undefined;
    link.queued = false;
    this.size--;
  }

  oldest(): Connection | undefined {
    return this.head?.connection;
  }
}

interface AddressGroup {
  key: string;
  open: number;
  idle: IdleQueue;
}

interface Connection {
  socket: Socket;
  /** Undefined for a proxy's connection. */
  group: AddressGroup | undefined;
  inFlight: number;
  /** False once forgotten (closed by us, or its socket closed). */
  held: boolean;
  globalLink: Link;
  groupLink: Link;
}

const CONNECTION = Symbol('connection-fairness');
type TrackedSocket = Socket & { [CONNECTION]?: Connection };

/** At most one log line per this long under a flood, with the counts since the last one. */
const REPORT_INTERVAL_MS = 10_000;

/** The client an address belongs to: an IPv4 address (also as `::ffff:a.b.c.d`), or an IPv6 /64. */
export function clientKey(address: string): string {
  if (!address.includes(':')) return address;
  if (address.startsWith('::ffff:') && address.includes('.')) return address.slice('::ffff:'.length);
  if (!ipaddr.IPv6.isValid(address)) return address;
  const parts = ipaddr.IPv6.parse(address).parts;
  return `${parts.slice(0, 4).map((part) => part.toString(16)).join(':')}::/64`;
}

function link(connection: Connection): Link {
  return { connection, prev: undefined, next: undefined, queued: false };
}

/** Installs the rules on the server (app.ts, once) in place of `server.maxConnections`. */
export function installConnectionFairness(server: Server, options: ConnectionFairnessOptions): ConnectionStats {
  const { maxConnections, maxPerAddress, isProxy, log } = options;
  const now = options.now ?? Date.now;
  const idle = new IdleQueue();
  const groups = new Map<string, AddressGroup>();
  let open = 0;
  const report = { refusedOverShare: 0, refusedAtCap: 0, closedIdleForShare: 0, closedIdleAtCap: 0 };
  let reportedAt = -Infinity;
  let lastAddress = '';

  // Node's cap would close a newcomer before this code sees it, with idle connections still held.
  server.maxConnections = Infinity;

  function note(event: keyof typeof report, address: string): void {
    report[event]++;
    lastAddress = address;
    if (now() - reportedAt < REPORT_INTERVAL_MS) return;
    reportedAt = now();
    log.warn({ ...report, lastAddress, maxConnections, maxPerAddress }, 'connection cap: connections refused or idle ones closed (counts since the last report)');
    for (const key of Object.keys(report) as (keyof typeof report)[]) report[key] = 0;
  }

  function markIdle(connection: Connection): void {
    idle.push(connection.globalLink);
    connection.group?.idle.push(connection.groupLink);
  }

  function markBusy(connection: Connection): void {
    idle.remove(connection.globalLink);
    connection.group?.idle.remove(connection.groupLink);
  }

  function forget(connection: Connection): void {
    if (!connection.held) return;
    connection.held = false;
    markBusy(connection);
    open--;
    const group = connection.group;
    if (group && --group.open === 0) groups.delete(group.key);
  }

  function closeIdle(connection: Connection): void {
    forget(connection);
    connection.socket.destroy();
  }

  function onSocketClose(this: TrackedSocket): void {
    const connection = this[CONNECTION];
    if (connection) forget(connection);
  }

  server.on('connection', (socket: TrackedSocket) => {
    const address = socket.remoteAddress;
    // Already gone (reset before it was handed over): nothing to serve.
    if (address === undefined) {
      socket.destroy();
      return;
    }
    const key = isProxy(address) ? undefined : clientKey(address);
    if (key !== undefined && (groups.get(key)?.open ?? 0) >= maxPerAddress) {
      const own = groups.get(key)?.idle.oldest();
      if (!own) {
        note('refusedOverShare', address);
        socket.destroy();
        return;
      }
      closeIdle(own);
      note('closedIdleForShare', address);
    }
    if (open >= maxConnections) {
      const oldest = idle.oldest();
      if (!oldest) {
        note('refusedAtCap', address);
        socket.destroy();
        return;
      }
      closeIdle(oldest);
      note('closedIdleAtCap', address);
    }
    let group: AddressGroup | undefined;
    if (key !== undefined) {
      group = groups.get(key);
      if (!group) groups.set(key, (group = { key, open: 0, idle: new IdleQueue() }));
      group.open++;
    }
    const connection = { socket, group, inFlight: 0, held: true } as Connection;
    connection.globalLink = link(connection);
    connection.groupLink = link(connection);
    socket[CONNECTION] = connection;
    open++;
    markIdle(connection);
    socket.once('close', onSocketClose);
  });

  // 'close' comes once the response is sent, or the connection is gone, whichever is first (once per response).
  // One function for every response, its connection found on the response's socket: no closure and no once()
  // wrapper per request.
  function onResponseClose(this: ServerResponse): void {
    const connection = (this.req.socket as TrackedSocket)[CONNECTION];
    if (!connection || --connection.inFlight !== 0 || !connection.held) return;
    // Draining (app.close(): the server no longer listens). Node keeps a kept-alive connection open
    // after its last answer until the keep-alive timeout (72 s), which held the shutdown to main.ts's
    // 10 s forced exit: close it once the answer is sent.
    if (!server.listening) connection.socket.destroySoon();
    else markIdle(connection);
  }

  // First among the request listeners, so the connection is busy before Fastify's handler runs.
  server.prependListener('request', (request: IncomingMessage, response: ServerResponse) => {
    const connection = (request.socket as TrackedSocket)[CONNECTION];
    if (!connection) return;
    if (connection.inFlight++ === 0) markBusy(connection);
    response.on('close', onResponseClose);
  });

  return {
    get open() {
      return open;
    },
    get idle() {
      return idle.size;
    },
    fromAddress: (address) => groups.get(clientKey(address))?.open ?? 0,
  };
}
