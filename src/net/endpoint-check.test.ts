import { describe, expect, it } from 'vitest';
import { AppError } from '../http/errors.js';
import { checkEndpoint, type EndpointPolicy } from './endpoint-check.js';
import type { HostResolver } from './resolver.js';

/** A fixed DNS table: the sandbox has no DNS, and tests must not depend on it. */
function tableResolver(table: Record<string, string[]>): HostResolver {
  return async (hostname) => {
    const answers = table[hostname];
    if (!answers) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' });
    return answers;
  };
}

const resolver = tableResolver({
  'api.example.com': ['93.184.215.14', '2606:2800:21f:cb07:6820:80da:af6b:8b2c'],
  'internal.example.com': ['10.0.0.5'],
  'mixed.example.com': ['93.184.215.14', '127.0.0.1'],
  'mapped.example.com': ['::ffff:192.168.0.10'],
  'metadata.example.com': ['169.254.169.254'],
  'empty.example.com': [],
});
const strict: EndpointPolicy = { allowPrivate: false, resolver };

async function refusal(endpoint: string, purpose: 'save' | 'publish' = 'save', policy = strict): Promise<AppError> {
  try {
    await checkEndpoint(endpoint, policy, purpose);
  } catch (error) {
    if (error instanceof AppError) return error;
    throw error;
  }
  throw new Error(`${endpoint} was accepted`);
}

describe('checkEndpoint', () => {
  it.each([
    'https://api.example.com/quote',
    'https://api.example.com:8443/v1/quote?region=eu',
    'https://93.184.215.14/quote',
    'https://[2606:4700:4700::1111]/quote',
    'https://API.Example.com./quote',
  ])('accepts %s', async (endpoint) => {
    const policy: EndpointPolicy = { allowPrivate: false, resolver: tableResolver({ 'api.example.com': ['93.184.215.14'], 'api.example.com.': ['93.184.215.14'] }) };
    await expect(checkEndpoint(endpoint, policy, 'publish')).resolves.toBeUndefined();
  });

  it.each([
    ['http://api.example.com/quote', /must use https:\/\/ \(got http:\/\/\)/],
    ['ftp://api.example.com/quote', /must use https:\/\//],
    ['https://user:pass@api.example.com/quote', /user name or password/],
    ['https://user@api.example.com/quote', /user name or password/],
    ['https://api.example.com/quote#section', /fragment/],
    ['https://api.example.com/quote#', /fragment/],
    ['not a url', /spaces/],
    ['api.example.com/quote', /not a valid URL/],
    ['https://api.example.com:0/quote', /port/],
    [' https://api.example.com/quote', /spaces/],
    ['https://api.example.com/\nquote', /control characters/],
  ])('refuses the malformed endpoint %j', async (endpoint, message) => {
    const error = await refusal(endpoint);
    expect(error.code).toBe('ENDPOINT_NOT_ALLOWED');
    expect(error.status).toBe(400);
    expect(error.field).toBe('endpoint');
    expect(error.message).toMatch(message);
  });

  it.each([
    ['https://10.0.0.5/quote', '10.0.0.5, a private address'],
    ['https://127.0.0.1/quote', '127.0.0.1, a loopback address'],
    ['https://0x7f.1/quote', '127.0.0.1, a loopback address'],
    ['https://2130706433/quote', '127.0.0.1, a loopback address'],
    ['https://10.0.0.5./quote', '10.0.0.5, a private address'],
    ['https://%31%30.0.0.5/quote', '10.0.0.5, a private address'],
    ['https://0/quote', '0.0.0.0, an unspecified ("this network") address'],
    ['https://[0:0:0:0:0:ffff:7f00:1]/quote', '::ffff:7f00:1 (which carries 127.0.0.1), a loopback address'],
    ['https://169.254.169.254/latest/meta-data', '169.254.169.254, a link-local address'],
    ['https://[::1]/quote', '::1, a loopback address'],
    ['https://[::ffff:10.0.0.5]/quote', '::ffff:a00:5 (which carries 10.0.0.5), a private address'],
    ['https://[fd00::1]/quote', 'fd00::1, a unique-local (private) IPv6 address'],
    ['https://[64:ff9b::a9fe:a9fe]/quote', '64:ff9b::a9fe:a9fe (which carries 169.254.169.254), a NAT64 address'],
    ['https://localhost/quote', 'localhost, a loopback name'],
    ['https://api.localhost/quote', 'api.localhost, a loopback name'],
  ])('refuses the internal literal %s', async (endpoint, text) => {
    const error = await refusal(endpoint);
    expect(error.code).toBe('ENDPOINT_NOT_ALLOWED');
    expect(error.message).toContain(`points to ${text}`);
  });

  it.each([
    ['https://internal.example.com/quote', 'resolves to 10.0.0.5, a private address'],
    ['https://mixed.example.com/quote', 'resolves to 127.0.0.1, a loopback address'],
    ['https://mapped.example.com/quote', 'resolves to ::ffff:192.168.0.10 (which carries 192.168.0.10), a private address'],
    ['https://metadata.example.com/quote', 'resolves to 169.254.169.254, a link-local address'],
  ])('refuses %s, whose name resolves inside, on save and on publish', async (endpoint, text) => {
    expect((await refusal(endpoint, 'save')).message).toContain(text);
    expect((await refusal(endpoint, 'publish')).message).toContain(text);
  });

  it('accepts a name that does not resolve on save, and refuses it on publish', async () => {
    await expect(checkEndpoint('https://not-deployed.example.com/quote', strict, 'save')).resolves.toBeUndefined();
    const error = await refusal('https://not-deployed.example.com/quote', 'publish');
    expect(error.message).toMatch(/^The endpoint host not-deployed\.example\.com does not resolve\./);
    expect((await refusal('https://empty.example.com/quote', 'publish')).message).toContain('has no A or AAAA record');
  });

  it('gives up on a resolver that hangs', async () => {
    const hanging: EndpointPolicy = { allowPrivate: false, resolver: () => new Promise<string[]>(() => undefined), dnsTimeoutMs: 20 };
    await expect(checkEndpoint('https://slow.example.com/quote', hanging, 'save')).resolves.toBeUndefined();
    expect((await refusal('https://slow.example.com/quote', 'publish', hanging)).message).toContain('did not resolve within 0.02 s');
  });

  it('skips the address checks when private endpoints are allowed, but still requires https', async () => {
    const local: EndpointPolicy = { allowPrivate: true, resolver: tableResolver({}) };
    await expect(checkEndpoint('https://127.0.0.1:8443/quote', local, 'publish')).resolves.toBeUndefined();
    await expect(checkEndpoint('https://localhost/quote', local, 'publish')).resolves.toBeUndefined();
    expect((await refusal('http://127.0.0.1/quote', 'publish', local)).message).toMatch(/https/);
  });
});
