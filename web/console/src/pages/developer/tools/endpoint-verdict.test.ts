import { describe, expect, it } from 'vitest';
import { addressText, summary, type EndpointVerdict } from './endpoint-verdict';

const accepted = { accepted: true, message: null };
const base: EndpointVerdict = {
  https: true, host: 'api.example.com', problem: null, addresses: [{ address: '93.184.215.14', public: true }], resolution: null,
  save: accepted, publish: accepted, allowedOnlyByPrivateSetting: false,
};
const loopback = { address: '127.0.0.1', public: false, reason: 'loopback', reasonText: 'a loopback address' };

/** The sentence the editor announces as the endpoint is typed: internal is always called internal. */
describe('the endpoint summary', () => {
  it('says public, internal with the reason, and when only the local setting lets an internal address through', () => {
    expect(summary(base)).toBe('api.example.com is public. Saving and publishing would accept it.');
    const refused = { accepted: false, message: 'The endpoint resolves to 127.0.0.1, a loopback address. …' };
    expect(summary({ ...base, host: 'rebind.example.com', addresses: [...base.addresses, loopback], save: refused, publish: refused })).toBe(
      'rebind.example.com is internal: 127.0.0.1 is a loopback address. Saving would refuse it.',
    );
    expect(summary({ ...base, host: '127.0.0.1', addresses: [loopback], allowedOnlyByPrivateSetting: true })).toBe(
      '127.0.0.1 is internal: a loopback address. Allowed here only because this server allows private endpoints (local development).',
    );
  });

  it('gives the refusal of a text that cannot be an endpoint, and a name that does not resolve yet', () => {
    expect(summary({ ...base, https: false, problem: 'The endpoint must use https:// (got http://).', addresses: [] })).toBe('The endpoint must use https:// (got http://).');
    expect(summary({ ...base, addresses: [], resolution: 'does not resolve', publish: { accepted: false, message: '…' } })).toBe(
      'api.example.com does not resolve: you can save it, and publish once it resolves to a public address.',
    );
  });

  it('names the IPv4 address a mapped or transition form carries', () => {
    expect(addressText({ address: '::ffff:192.168.1.20', public: false, reason: 'private', reasonText: 'a private address', embeddedIPv4: '192.168.1.20' })).toBe(
      '::ffff:192.168.1.20 (carries 192.168.1.20): internal, a private address',
    );
  });
});
