import Fastify from 'fastify';
import { describe, expect, it } from 'vitest';
import type { Config } from '../config.js';
import { proxyPeerTest } from './proxy-peers.js';

/**
 * The per-address connection share leaves alone exactly the peers Fastify trusts as proxies: a peer
 * is trusted when Fastify takes the client address from X-Forwarded-For instead of the socket.
 */
const PEERS = [
  '10.1.2.3', '::ffff:10.1.2.3', '11.0.0.1', '::ffff:11.0.0.1', '127.0.0.1', '127.0.0.2', '::1', '::ffff:127.0.0.1',
  '192.168.1.1', '172.16.5.4', '172.32.0.1', '169.254.1.1', 'fe80::1', 'fd00::1', '2001:db8::5', '2001:db9::5', '0.0.0.1',
];
const FORWARDED_CLIENT = '203.0.113.9';

async function fastifyTrusts(trustProxy: string[], peer: string): Promise<boolean> {
  const app = Fastify({ trustProxy });
  app.get('/', async (request) => request.ip);
  const response = await app.inject({ method: 'GET', url: '/', remoteAddress: peer, headers: { 'x-forwarded-for': FORWARDED_CLIENT } });
  await app.close();
  return response.body === FORWARDED_CLIENT;
}

describe('proxyPeerTest', () => {
  it.each([
    [['10.0.0.0/8', '127.0.0.1']],
    [['loopback']],
    [['uniquelocal', 'linklocal']],
    [['10.0.0.0/255.0.0.0']],
    [['::ffff:10.0.0.0/104']],
    [['::ffff:10.1.2.3']],
    [['::ffff:0:0/80']],
    [['2001:db8::/32', 'fe80::/10']],
    [['0.0.0.0/1']],
  ])('agrees with Fastify on which peers %o names', async (list) => {
    const isProxy = proxyPeerTest(list);
    for (const peer of PEERS) expect([peer, isProxy(peer)]).toEqual([peer, await fastifyTrusts(list, peer)]);
  });

  it('takes every peer for a proxy under TRUST_PROXY=true or a hop count, and none when it is off', () => {
    const cases: [Config['trustProxy'], boolean][] = [[true, true], [1, true], [3, true], [false, false], [0, false], [[], false]];
    for (const [trustProxy, expected] of cases) expect(PEERS.map(proxyPeerTest(trustProxy))).toEqual(PEERS.map(() => expected));
  });

  it('refuses what Fastify refuses', () => {
    expect(() => proxyPeerTest(['10.0.0.300'])).toThrow(/invalid IP address/);
    expect(() => proxyPeerTest(['10.0.0.0/33'])).toThrow(/invalid range/);
    expect(() => Fastify({ trustProxy: ['10.0.0.300'] })).toThrow(/invalid IP address/);
  });
});
