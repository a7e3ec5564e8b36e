import { isIP, Socket, type LookupFunction } from 'node:net';
import { lookup as dnsLookup } from 'node:dns';
import { afterEach } from 'vitest';

/**
 * A safety net for every test file (vitest.config.ts setupFiles): no socket a test opens in this
 * process may reach an address outside 127.0.0.0/8 and ::1. Tool tests give public-looking names
 * public addresses in their DNS tables (the address policy must allow them); if a protection is
 * broken, a call could otherwise leave the machine. Such a connection fails before it is dialled,
 * and the test that made it fails in afterEach, naming the address.
 */
const violations: string[] = [];

function isLoopback(address: string): boolean {
  if (isIP(address) === 4) return address.startsWith('127.');
  const v6 = address.toLowerCase();
  return v6 === '::1' || /^::ffff:127\./.test(v6);
}

function refuse(socket: Socket, address: string): Socket {
  const message = `test guard: a connection to ${address} was refused; tests may only reach loopback (127.0.0.0/8, ::1)`;
  violations.push(message);
  process.nextTick(() => socket.destroy(Object.assign(new Error(message), { code: 'ECONNREFUSED' })));
  return socket;
}

/** A lookup that answers only loopback addresses, so a name resolving elsewhere is never dialled. */
function loopbackLookup(original: LookupFunction | undefined): LookupFunction {
  const base = (original ?? dnsLookup) as LookupFunction;
  return (hostname, options, callback) => {
    base(hostname, options, (error, address, family) => {
      if (error) return callback(error, address as string, family);
      const list = Array.isArray(address) ? address.map((entry: { address: string }) => entry.address) : [address];
      const outside = list.find((entry) => !isLoopback(entry));
      if (outside !== undefined) {
        const message = `test guard: ${hostname} resolved to ${outside}; tests may only reach loopback (127.0.0.0/8, ::1)`;
        violations.push(message);
        return callback(Object.assign(new Error(message), { code: 'ECONNREFUSED' }), address as string, family);
      }
      callback(null, address as string, family);
    });
  };
}

type ConnectOptions = { path?: string; host?: string; port?: number; lookup?: LookupFunction };

const connect = Socket.prototype.connect;
// net.connect and tls.connect hand Socket#connect their normalized arguments: [options, listener].
Socket.prototype.connect = function guardedConnect(this: Socket, ...args: unknown[]) {
  const first = args[0];
  let options: ConnectOptions | undefined;
  if (Array.isArray(first) && typeof first[0] === 'object' && first[0] !== null) options = first[0] as ConnectOptions;
  else if (typeof first === 'object' && first !== null) options = first as ConnectOptions;
  else if (typeof first === 'number' || (typeof first === 'string' && /^\d+$/.test(first))) {
    const host = typeof args[1] === 'string' ? args[1] : 'localhost';
    if (isIP(host) && !isLoopback(host)) return refuse(this, host);
  }
  if (options && options.path === undefined) {
    const host = options.host ?? 'localhost';
    if (isIP(host)) {
      if (!isLoopback(host)) return refuse(this, host);
    } else {
      options.lookup = loopbackLookup(options.lookup);
    }
  }
  return (connect as (...a: unknown[]) => Socket).apply(this, args);
} as typeof Socket.prototype.connect;

afterEach(() => {
  if (violations.length === 0) return;
  const found = violations.splice(0);
  throw new Error(found.join('\n'));
});
