import ipaddr from 'ipaddr.js';

type Subnet = [ipaddr.IPv4 | ipaddr.IPv6, number];

/** TRUST_PROXY as config.ts reads it: `false`, `true`, a hop count, or a list of proxy addresses/CIDRs (Fastify's trustProxy). */
export type TrustProxy = boolean | number | string[];

/** The names Fastify's TRUST_PROXY list accepts besides addresses and CIDRs (@fastify/proxy-addr). */
const NAMED_RANGES: Record<string, string[]> = {
  linklocal: ['169.254.0.0/16', 'fe80::/10'],
  loopback: ['127.0.0.1/8', '::1/128'],
  uniquelocal: ['10.0.0.0/8', '172.16.0.0/12', '192.168.0.0/16', 'fc00::/7'],
};

/** `10.0.0.0/8`, `10.0.0.0/255.0.0.0`, `::1` or `2001:db8::/32`, read as @fastify/proxy-addr reads it. */
function parseSubnet(entry: string): Subnet {
  const slash = entry.lastIndexOf('/');
  const text = slash === -1 ? entry : entry.slice(0, slash);
  if (!ipaddr.isValid(text)) throw new TypeError(`TRUST_PROXY: invalid IP address: ${text}`);
  const parsed = ipaddr.parse(text);
  // A single IPv4-mapped address is the IPv4 address it carries.
  const ip = slash === -1 && parsed instanceof ipaddr.IPv6 && parsed.isIPv4MappedAddress() ? parsed.toIPv4Address() : parsed;
  const max = ip.kind() === 'ipv6' ? 128 : 32;
  if (slash === -1) return [ip, max];
  const range = entry.slice(slash + 1);
  let prefix: number | undefined;
  if (/^\d+$/.test(range)) prefix = Number(range);
  else if (ip.kind() === 'ipv4' && ipaddr.IPv4.isValid(range)) prefix = ipaddr.IPv4.parse(range).prefixLengthFromSubnetMask() ?? undefined;
  if (prefix === undefined || prefix <= 0 || prefix > max) throw new TypeError(`TRUST_PROXY: invalid range on address: ${entry}`);
  return [ip, prefix];
}

/**
 * An IPv4-mapped IPv6 subnet (`::ffff:10.0.0.0/104`) spans IPv4 addresses when its prefix covers the
 * `::ffff:` marker, and matches nothing else; it is kept as the IPv4 subnet it spans. One that does not
 * cover the marker matches nothing at all (as in @fastify/proxy-addr).
 */
function canonicalSubnet([ip, prefix]: Subnet): Subnet | undefined {
  if (ip instanceof ipaddr.IPv6 && ip.isIPv4MappedAddress()) return prefix >= 96 ? [ip.toIPv4Address(), prefix - 96] : undefined;
  return [ip, prefix];
}

/** IPv4 addresses Node reports on a dual-stack socket as `::ffff:a.b.c.d` are compared as IPv4. */
function canonicalAddress(address: string): ipaddr.IPv4 | ipaddr.IPv6 | undefined {
  if (!ipaddr.isValid(address)) return undefined;
  const ip = ipaddr.parse(address);
  return ip instanceof ipaddr.IPv6 && ip.isIPv4MappedAddress() ? ip.toIPv4Address() : ip;
}

function matches(ip: ipaddr.IPv4 | ipaddr.IPv6, [subnet, prefix]: Subnet): boolean {
  if (ip.kind() !== subnet.kind()) return false;
  if (subnet instanceof ipaddr.IPv6 && subnet.zoneId && subnet.zoneId !== (ip as ipaddr.IPv6).zoneId) return false;
  // A /0 IPv4 prefix after canonicalSubnet: every IPv4 address (ipaddr's match wants at least /0 on the same kind).
  return prefix === 0 || ip.match(subnet, prefix);
}

/**
 * Whether the peer of a connection (the address at the other end of the socket) is a proxy named by
 * TRUST_PROXY: such a peer carries many clients' connections, so per-client rules that see only the
 * socket (connection-fairness.ts) leave it alone. It agrees with what Fastify trusts at hop 0 (the
 * socket's peer), which app.ts configures from the same setting:
 * - `true`: every peer is a proxy (the operator says the service is reached only through proxies);
 * - a hop count n ≥ 1: the n nearest hops are proxies, and the nearest is the socket's peer: every peer;
 * - a list: the addresses and CIDRs in it, and the names `loopback`, `linklocal` and `uniquelocal`.
 */
export function proxyPeerTest(trustProxy: TrustProxy): (address: string) => boolean {
  if (trustProxy === true || (typeof trustProxy === 'number' && trustProxy > 0)) return () => true;
  if (trustProxy === false || typeof trustProxy === 'number') return () => false;
  const subnets = trustProxy
    .flatMap((entry) => NAMED_RANGES[entry] ?? [entry])
    .map((entry) => canonicalSubnet(parseSubnet(entry)))
    .filter((subnet): subnet is Subnet => subnet !== undefined);
  if (subnets.length === 0) return () => false;
  return (address) => {
    const ip = canonicalAddress(address);
    return ip !== undefined && subnets.some((subnet) => matches(ip, subnet));
  };
}
