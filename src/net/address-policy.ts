import { isIPv4, isIPv6 } from 'node:net';
import ipaddr from 'ipaddr.js';

/**
 * Which IP addresses the service may connect to on a developer's behalf.
 * Used when a tool endpoint is saved or published and again by the invoker on the
 * address it actually dials, so one list decides both.
 *
 * Public means ipaddr.js calls it `unicast` and nothing below applies. Transition
 * forms that carry an IPv4 address are judged by what they can reach: IPv4-mapped
 * addresses by their embedded IPv4; NAT64, 6to4, Teredo, IPv4-compatible and
 * IPv4-translated addresses are refused outright, because where they lead depends on
 * relays and translators of the network the service runs in.
 */
export type InternalReason =
  | 'not_an_ip'
  | 'unspecified'
  | 'loopback'
  | 'private'
  | 'link_local'
  | 'carrier_grade_nat'
  | 'multicast'
  | 'broadcast'
  | 'documentation'
  | 'benchmarking'
  | 'reserved'
  | 'special_purpose'
  | 'unique_local'
  | 'site_local'
  | 'discard'
  | 'ipv4_compatible'
  | 'ipv4_translated'
  | 'nat64'
  | '6to4'
  | 'teredo';

export type AddressVerdict =
  | { allowed: true; address: string }
  | { allowed: false; address: string; reason: InternalReason; embeddedIPv4?: string };

const REASON_TEXT: Record<InternalReason, string> = {
  not_an_ip: 'not an IP address',
  unspecified: 'an unspecified ("this network") address',
  loopback: 'a loopback address',
  private: 'a private address',
  link_local: 'a link-local address',
  carrier_grade_nat: 'a carrier-grade NAT (shared) address',
  multicast: 'a multicast address',
  broadcast: 'the broadcast address',
  documentation: 'an address reserved for documentation',
  benchmarking: 'an address reserved for benchmarking',
  reserved: 'a reserved address',
  special_purpose: 'a special-purpose address',
  unique_local: 'a unique-local (private) IPv6 address',
  site_local: 'a site-local IPv6 address',
  discard: 'a discard-only IPv6 address',
  ipv4_compatible: 'an IPv4-compatible IPv6 address',
  ipv4_translated: 'an IPv4-translated IPv6 address',
  nat64: 'a NAT64 address',
  '6to4': 'a 6to4 address',
  teredo: 'a Teredo address',
};

/** "a private address", for messages like "endpoint resolves to 10.0.0.5, a private address". */
export function describeReason(reason: InternalReason): string {
  return REASON_TEXT[reason];
}

const IPV4_RANGES: Record<string, InternalReason> = {
  unspecified: 'unspecified',
  broadcast: 'broadcast',
  multicast: 'multicast',
  linkLocal: 'link_local',
  loopback: 'loopback',
  carrierGradeNat: 'carrier_grade_nat',
  private: 'private',
  reserved: 'reserved',
  as112: 'special_purpose',
  amt: 'special_purpose',
};

const IPV4_DOCUMENTATION = ['192.0.2.0/24', '198.51.100.0/24', '203.0.113.0/24'].map((cidr) => ipaddr.IPv4.parseCIDR(cidr));
const IPV4_BENCHMARKING = ipaddr.IPv4.parseCIDR('198.18.0.0/15');

const IPV6_RANGES: Record<string, InternalReason> = {
  unspecified: 'unspecified',
  linkLocal: 'link_local',
  multicast: 'multicast',
  loopback: 'loopback',
  uniqueLocal: 'unique_local',
  deprecatedSiteLocal: 'site_local',
  discard: 'discard',
  rfc6145: 'ipv4_translated',
  rfc6052: 'nat64',
  '6to4': '6to4',
  teredo: 'teredo',
  benchmarking: 'benchmarking',
  amt: 'special_purpose',
  as112v6: 'special_purpose',
  deprecatedOrchid: 'special_purpose',
  orchid2: 'special_purpose',
  droneRemoteIdProtocolEntityTags: 'special_purpose',
  segmentRouting: 'special_purpose',
  reserved: 'reserved',
};

const IPV6_DOCUMENTATION = ['2001:db8::/32', '3fff::/20'].map((cidr) => ipaddr.IPv6.parseCIDR(cidr));
// Everything outside 2000::/3 that ipaddr.js calls unicast is unassigned IETF space.
const IPV6_GLOBAL_UNICAST = ipaddr.IPv6.parseCIDR('2000::/3');

function classifyIPv4(address: ipaddr.IPv4): InternalReason | undefined {
  const range = address.range();
  if (range === 'unicast') return undefined;
  if (range === 'reserved') {
    if (IPV4_DOCUMENTATION.some((cidr) => address.match(cidr))) return 'documentation';
    if (address.match(IPV4_BENCHMARKING)) return 'benchmarking';
  }
  return IPV4_RANGES[range] ?? 'reserved';
}

function ipv4From(high: number, low: number): ipaddr.IPv4 {
  return new ipaddr.IPv4([high >> 8, high & 0xff, low >> 8, low & 0xff]);
}

/** The IPv4 address a transition form carries, for messages. */
function embeddedIPv4(address: ipaddr.IPv6, range: string): ipaddr.IPv4 | undefined {
  const p = address.parts;
  switch (range) {
    case '6to4':
      return ipv4From(p[1]!, p[2]!);
    case 'teredo':
      // The client address is stored inverted (RFC 4380 §4).
      return ipv4From(~p[6]! & 0xffff, ~p[7]! & 0xffff);
    default:
      return ipv4From(p[6]!, p[7]!);
  }
}

function blocked(address: string, reason: InternalReason, embedded?: ipaddr.IPv4): AddressVerdict {
  return embedded ? { allowed: false, address, reason, embeddedIPv4: embedded.toString() } : { allowed: false, address, reason };
}

function classifyIPv6(original: string, text: string): AddressVerdict {
  // Node's URL parser gives the canonical hex form: ipaddr.js reads the deprecated
  // "::1.2.3.4" notation as IPv4-mapped, which would let an IPv4-compatible address pass.
  let canonical: string;
  try {
    canonical = new URL(`http://[${text}]/`).hostname.slice(1, -1);
  } catch {
    return blocked(original, 'not_an_ip');
  }
  const address = ipaddr.IPv6.parse(canonical);
  const range = address.range();

  if (range === 'ipv4Mapped') {
    const inner = address.toIPv4Address();
    const reason = classifyIPv4(inner);
    return reason ? blocked(original, reason, inner) : { allowed: true, address: original };
  }
  if (range === 'unicast') {
    const p = address.parts;
    if (p.slice(0, 6).every((part) => part === 0)) return blocked(original, 'ipv4_compatible', embeddedIPv4(address, range));
    if (!address.match(IPV6_GLOBAL_UNICAST)) return blocked(original, 'reserved');
    return { allowed: true, address: original };
  }
  if (range === 'reserved' && IPV6_DOCUMENTATION.some((cidr) => address.match(cidr))) return blocked(original, 'documentation');
  if (range === 'reserved') return blocked(original, 'special_purpose');
  const reason = IPV6_RANGES[range] ?? 'reserved';
  const carriesIPv4 = range === 'rfc6145' || range === 'rfc6052' || range === '6to4' || range === 'teredo';
  return blocked(original, reason, carriesIPv4 ? embeddedIPv4(address, range) : undefined);
}

/**
 * Public or internal, with the reason. Takes an address as DNS or a socket reports
 * it (dotted-quad IPv4, or IPv6 optionally with a zone); anything else is refused.
 */
export function classifyAddress(address: string): AddressVerdict {
  if (isIPv4(address)) {
    const reason = classifyIPv4(ipaddr.IPv4.parse(address));
    return reason ? blocked(address, reason) : { allowed: true, address };
  }
  if (isIPv6(address)) {
    const zone = address.indexOf('%');
    // A zone index only means something for link-scoped addresses.
    if (zone >= 0) return blocked(address, 'link_local');
    return classifyIPv6(address, address);
  }
  return blocked(address, 'not_an_ip');
}

export function isPublicAddress(address: string): boolean {
  return classifyAddress(address).allowed;
}
