import { describe, expect, it } from 'vitest';
import { classifyAddress, describeReason, isPublicAddress, type InternalReason } from './address-policy.js';

const PUBLIC = [
  '8.8.8.8',
  '1.1.1.1',
  '93.184.215.14',
  '100.63.255.255', // just below 100.64.0.0/10
  '100.128.0.0', // just above it
  '172.15.255.255', // just below 172.16.0.0/12
  '172.32.0.0',
  '11.0.0.1',
  '223.255.255.255',
  '2001:4860:4860::8888',
  '2606:4700:4700::1111',
  '2a00:1450:4001:80b::200e',
  '::ffff:8.8.8.8', // IPv4-mapped: judged by the IPv4 inside
  '::ffff:808:808',
];

const INTERNAL: Array<[string, InternalReason, string?]> = [
  // IPv4
  ['0.0.0.0', 'unspecified'],
  ['0.1.2.3', 'unspecified'],
  ['127.0.0.1', 'loopback'],
  ['127.255.255.254', 'loopback'],
  ['10.0.0.5', 'private'],
  ['172.16.0.1', 'private'],
  ['172.31.255.255', 'private'],
  ['192.168.1.1', 'private'],
  ['169.254.169.254', 'link_local'],
  ['100.64.0.1', 'carrier_grade_nat'],
  ['100.127.255.255', 'carrier_grade_nat'],
  ['224.0.0.1', 'multicast'],
  ['239.255.255.250', 'multicast'],
  ['255.255.255.255', 'broadcast'],
  ['192.0.2.10', 'documentation'],
  ['198.51.100.7', 'documentation'],
  ['203.0.113.99', 'documentation'],
  ['198.18.0.1', 'benchmarking'],
  ['198.19.255.255', 'benchmarking'],
  ['192.0.0.8', 'reserved'],
  ['192.88.99.1', 'reserved'],
  ['240.0.0.1', 'reserved'],
  ['192.175.48.1', 'special_purpose'],
  // IPv6
  ['::', 'unspecified'],
  ['::1', 'loopback'],
  ['0:0:0:0:0:0:0:1', 'loopback'],
  ['fe80::1', 'link_local'],
  ['fe80::1%eth0', 'link_local'],
  ['fc00::1', 'unique_local'],
  ['fd12:3456:789a::1', 'unique_local'],
  ['fec0::1', 'site_local'],
  ['ff02::1', 'multicast'],
  ['100::1', 'discard'],
  ['2001:db8::1', 'documentation'],
  ['3fff::1', 'documentation'],
  ['2001:2::1', 'benchmarking'],
  ['2001:1::1', 'special_purpose'],
  ['4000::1', 'reserved'],
  ['::2', 'ipv4_compatible', '0.0.0.2'],
  // IPv4-mapped: the embedded address decides
  ['::ffff:127.0.0.1', 'loopback', '127.0.0.1'],
  ['::ffff:7f00:1', 'loopback', '127.0.0.1'],
  ['::ffff:10.0.0.5', 'private', '10.0.0.5'],
  ['::ffff:169.254.169.254', 'link_local', '169.254.169.254'],
  ['::ffff:0.0.0.0', 'unspecified', '0.0.0.0'],
  // IPv4-compatible (deprecated): refused whatever it carries
  ['::8.8.8.8', 'ipv4_compatible', '8.8.8.8'],
  ['::127.0.0.1', 'ipv4_compatible', '127.0.0.1'],
  ['::a00:5', 'ipv4_compatible', '10.0.0.5'],
  // IPv4-translated (SIIT)
  ['::ffff:0:a00:5', 'ipv4_translated', '10.0.0.5'],
  // NAT64, well-known and local-use prefixes
  ['64:ff9b::10.0.0.5', 'nat64', '10.0.0.5'],
  ['64:ff9b::7f00:1', 'nat64', '127.0.0.1'],
  ['64:ff9b::8.8.8.8', 'nat64', '8.8.8.8'],
  ['64:ff9b:1::a00:5', 'nat64', '10.0.0.5'],
  // 6to4 carries the IPv4 in bits 16-47
  ['2002:a00:5::1', '6to4', '10.0.0.5'],
  ['2002:7f00:1::', '6to4', '127.0.0.1'],
  ['2002:808:808::1', '6to4', '8.8.8.8'],
  // Teredo carries the client IPv4 inverted in the last 32 bits
  ['2001:0:4136:e378:8000:63bf:f5ff:fffa', 'teredo', '10.0.0.5'],
  ['2001:0:4136:e378:8000:63bf:3fff:fdd2', 'teredo', '192.0.2.45'],
  // Not addresses at all
  ['localhost', 'not_an_ip'],
  ['127.1', 'not_an_ip'],
  ['0x7f.0.0.1', 'not_an_ip'],
  ['010.0.0.1', 'not_an_ip'],
  ['', 'not_an_ip'],
];

describe('classifyAddress', () => {
  it.each(PUBLIC)('allows the public address %s', (address) => {
    expect(classifyAddress(address)).toEqual({ allowed: true, address });
    expect(isPublicAddress(address)).toBe(true);
  });

  it.each(INTERNAL)('refuses %s as %s', (address, reason, embedded) => {
    const verdict = classifyAddress(address);
    expect(verdict).toEqual({ allowed: false, address, reason, ...(embedded ? { embeddedIPv4: embedded } : {}) });
    expect(isPublicAddress(address)).toBe(false);
  });

  it('describes every reason in words', () => {
    for (const [, reason] of INTERNAL) expect(describeReason(reason)).toMatch(/^(a|an|the|not) /);
    expect(describeReason('private')).toBe('a private address');
  });
});
