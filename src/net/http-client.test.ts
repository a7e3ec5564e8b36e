import { createHmac } from 'node:crypto';
import { subscribe, unsubscribe } from 'node:diagnostics_channel';
import type { Socket } from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  closedPort, delayed, hangUp, json, raw, redirect, stalledBody, startHttpsEndpoint, streamed, type HttpsEndpoint,
} from '../../test/support/https-endpoint.js';
import { checkEndpoint } from './endpoint-check.js';
import type { HostResolver } from './resolver.js';
import {
  BlockedAddressError, buildRequestHeaders, checkLiteralHost, createGuardedConnector, createGuardedLookup, createToolHttpClient,
  type ToolHttpClient, type ToolHttpClientOptions, type ToolHttpOutcome,
} from './http-client.js';
import { signatureHeaders } from './signing.js';

/**
 * Every connection these tests open goes to 127.0.0.1 or ::1: resolvers are fixed tables
 * that answer loopback or nothing, and the one test of a public answer checks the lookup's
 * decision without connecting.
 */

function tableResolver(table: Record<string, string[]>): HostResolver {
  return async (hostname) => {
    const answers = table[hostname];
    if (!answers) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' });
    return answers;
  };
}

const LOOPBACK_NAMES = tableResolver({ 'tool.test': ['127.0.0.1'], 'other.test': ['127.0.0.1'], 'empty.test': [] });
const USER_AGENT = 'Switchboard/9.9.9-test';
const KB100 = 100 * 1024;

let endpoint: HttpsEndpoint;
const clients: ToolHttpClient[] = [];

function client(overrides: Partial<ToolHttpClientOptions> = {}): ToolHttpClient {
  const created = createToolHttpClient({
    allowPrivate: true,
    resolver: LOOPBACK_NAMES,
    caFile: endpoint.caFile,
    callTimeoutMs: 5000,
    userAgent: USER_AGENT,
    ...overrides,
  });
  clients.push(created);
  return created;
}

function post(url: string, value: unknown = { city: 'Lisbon' }, headers: Record<string, string> = {}) {
  return { method: 'POST', url, headers, body: Buffer.from(JSON.stringify(value)) };
}

function failed(outcome: ToolHttpOutcome) {
  if (outcome.ok) throw new Error(`expected a failure, got ${JSON.stringify(outcome)}`);
  return outcome;
}

/** Every socket undici connected in this file, by the address it reached. */
const dialled: string[] = [];
const onConnected = (message: unknown) => {
  const socket = (message as { socket: Socket }).socket;
  dialled.push(socket.remoteAddress ?? 'unknown');
};

beforeAll(async () => {
  subscribe('undici:client:connected', onConnected);
  endpoint = await startHttpsEndpoint();
});

afterEach(async () => {
  await Promise.all(clients.splice(0).map((c) => c.close()));
  await endpoint.idle();
  endpoint.respond(json(200, { ok: true }));
  endpoint.reset();
});

afterAll(async () => {
  unsubscribe('undici:client:connected', onConnected);
  await endpoint.close();
  // The safety net for the whole file: nothing but loopback was ever dialled.
  expect(dialled.length).toBeGreaterThan(0);
  expect(dialled.filter((address) => address !== '127.0.0.1' && address !== '::1')).toEqual([]);
});

describe('a successful call', () => {
  it('sends the body and headers exactly, and returns the JSON with status and sizes', async () => {
    endpoint.respond(json(200, { price: 12.5, currency: 'EUR' }));
    const body = Buffer.from('{"city":"Zürich","_svc_context":{"callId":"call_x"}}', 'utf8');
    const outcome = await client().send({ method: 'POST', url: endpoint.url('/quote?region=eu'), headers: { 'X-API-Key': 'k-123' }, body });

    expect(outcome).toMatchObject({ ok: true, status: 200, json: { price: 12.5, currency: 'EUR' }, requestBytes: body.length, responseBytes: Buffer.byteLength(JSON.stringify({ price: 12.5, currency: "EUR" })) });
    expect(outcome.durationMs).toBeGreaterThanOrEqual(0);
    expect(endpoint.requests).toHaveLength(1);
    const received = endpoint.requests[0]!;
    expect(received.method).toBe('POST');
    expect(received.path).toBe('/quote?region=eu');
    expect(received.body.equals(body)).toBe(true);
    expect(received.headers['content-type']).toBe('application/json');
    expect(received.headers.accept).toBe('application/json');
    expect(received.headers['user-agent']).toBe(USER_AGENT);
    expect(received.headers['x-api-key']).toBe('k-123');
    expect(received.headers['content-length']).toBe(String(body.length));
    expect(received.headers.host).toBe(`127.0.0.1:${endpoint.port}`);
    expect(received.rawHeaders).toContain('X-API-Key');
  });

  it.each(['POST', 'GET', 'PUT', 'PATCH', 'DELETE'])('sends %s with its JSON body', async (method) => {
    const body = Buffer.from('{"q":1}');
    const outcome = await client().send({ method, url: endpoint.url(), body });
    expect(outcome.ok).toBe(true);
    expect(endpoint.requests[0]!.method).toBe(method);
    expect(endpoint.requests[0]!.body.toString()).toBe('{"q":1}');
  });

  it('signed bytes arrive unchanged: an HMAC computed by the receiver matches', async () => {
    const body = Buffer.from('{"amount":10,"note":"naïve"}', 'utf8');
    const timestamp = 1768471200;
    const outcome = await client().send({ method: 'POST', url: endpoint.url(), headers: signatureHeaders('s3cret', timestamp, body), body });
    expect(outcome.ok).toBe(true);
    const received = endpoint.requests[0]!;
    const expected = createHmac('sha256', 's3cret').update(Buffer.concat([Buffer.from(`${received.headers['x-svc-timestamp']}.`), received.body])).digest('hex');
    expect(received.headers['x-svc-signature']).toBe(`sha256=${expected}`);
  });

  it('connects to a host name through the injected resolver (private endpoints allowed)', async () => {
    const outcome = await client().send(post(`https://tool.test:${endpoint.port}/tool`));
    expect(outcome.ok).toBe(true);
    expect(endpoint.requests[0]!.headers.host).toBe(`tool.test:${endpoint.port}`);
  });

  it('keeps the connection alive across calls to one origin', async () => {
    const c = client();
    for (let i = 0; i < 5; i += 1) {
      expect((await c.send(post(endpoint.url()))).ok).toBe(true);
      await new Promise((resolve) => setImmediate(resolve));
    }
    expect(endpoint.connections).toBe(1);
    expect(endpoint.requests.map((r) => r.connection)).toEqual([1, 1, 1, 1, 1]);
  });

  it('back to back, a pool opens at most one more connection (undici marks the first free a tick later) and then reuses them', async () => {
    const c = client();
    for (let i = 0; i < 20; i += 1) expect((await c.send(post(endpoint.url()))).ok).toBe(true);
    expect(endpoint.connections).toBeLessThanOrEqual(2);
    expect(endpoint.closedConnections).toBe(0);
  });

  it('accepts any JSON media type and any JSON value', async () => {
    endpoint.respond(raw(201, '[1,"two",null]', 'application/vnd.api+json; charset=utf-8'));
    expect(await client().send(post(endpoint.url()))).toMatchObject({ ok: true, status: 201, json: [1, 'two', null] });
    endpoint.respond(raw(200, '"just a string"', 'Application/JSON'));
    expect(await client().send(post(endpoint.url()))).toMatchObject({ ok: true, json: 'just a string' });
  });

  it('keeps its own Content-Type, Accept and User-Agent and drops framing headers a caller passes', async () => {
    const headers = { 'content-type': 'text/plain', ACCEPT: '*/*', 'User-Agent': 'evil', Host: 'internal', 'Transfer-Encoding': 'chunked', Authorization: 'Bearer t' };
    expect(buildRequestHeaders(USER_AGENT, headers)).toEqual({
      Authorization: 'Bearer t', 'Content-Type': 'application/json', Accept: 'application/json', 'User-Agent': USER_AGENT,
    });
    await client().send(post(endpoint.url(), {}, headers));
    const received = endpoint.requests[0]!;
    expect(received.headers['content-type']).toBe('application/json');
    expect(received.headers.accept).toBe('application/json');
    expect(received.headers['user-agent']).toBe(USER_AGENT);
    expect(received.headers.host).toBe(`127.0.0.1:${endpoint.port}`);
    expect(received.headers['transfer-encoding']).toBeUndefined();
    expect(received.headers.authorization).toBe('Bearer t');
  });
});

describe('responses that are not a result', () => {
  it.each([
    ['text/html', '<h1>hi</h1>', /answered 200 OK with Content-Type text\/html, not JSON/],
    [null, '{"ok":true}', /with no Content-Type, not JSON/],
    ['application/json', '{"ok":', /not valid JSON/],
    ['application/json', '', /empty body/],
    ['application/json', Buffer.from([0x22, 0xff, 0xfe, 0x22]), /not valid JSON/],
  ])('%s %j is TOOL_INVALID_RESPONSE', async (contentType, body, message) => {
    endpoint.respond(raw(200, body, contentType));
    const outcome = failed(await client().send(post(endpoint.url())));
    expect(outcome).toMatchObject({ code: 'TOOL_INVALID_RESPONSE', status: 200 });
    expect(outcome.message).toMatch(message);
  });

  it('a 204 without a body is TOOL_INVALID_RESPONSE', async () => {
    endpoint.respond((_req, res) => {
      res.writeHead(204);
      res.end();
    });
    expect(failed(await client().send(post(endpoint.url())))).toMatchObject({ code: 'TOOL_INVALID_RESPONSE', status: 204 });
  });

  it('4xx with JSON is TOOL_HTTP_ERROR with the status and the body', async () => {
    endpoint.respond(json(422, { error: 'weight must be positive' }));
    const outcome = failed(await client().send(post(endpoint.url())));
    expect(outcome).toMatchObject({ code: 'TOOL_HTTP_ERROR', status: 422, body: { error: 'weight must be positive' } });
    expect(outcome.message).toBe("The tool's endpoint answered 422 Unprocessable Entity.");
  });

  it('5xx without JSON is TOOL_HTTP_ERROR with the status and no body', async () => {
    endpoint.respond(raw(503, 'upstream down', 'text/plain'));
    const outcome = failed(await client().send(post(endpoint.url())));
    expect(outcome).toMatchObject({ code: 'TOOL_HTTP_ERROR', status: 503 });
    expect(outcome).not.toHaveProperty('body');
    expect(outcome.message).toMatch(/503 Service Unavailable\. The error is on the endpoint's side\./);
  });

  it('a 401 with invalid JSON keeps the status and drops the body', async () => {
    endpoint.respond(raw(401, '{nope', 'application/json'));
    const outcome = failed(await client().send(post(endpoint.url())));
    expect(outcome).toMatchObject({ code: 'TOOL_HTTP_ERROR', status: 401 });
    expect(outcome).not.toHaveProperty('body');
  });

  it.each([301, 302, 303, 307, 308])('a %i redirect is not followed', async (status) => {
    endpoint.respond(redirect(status, `${endpoint.origin}/elsewhere`));
    const outcome = failed(await client().send(post(endpoint.url('/tool'))));
    expect(outcome).toMatchObject({ code: 'TOOL_HTTP_ERROR', status });
    expect(outcome).not.toHaveProperty('body');
    expect(outcome.message).toMatch(/a redirect\. Redirects are not followed/);
    expect(endpoint.requests.map((r) => r.path)).toEqual(['/tool']);
  });
});

describe('the response size cap', () => {
  /** A JSON string of exactly `bytes` bytes. */
  const jsonOfSize = (bytes: number) => `"${'a'.repeat(bytes - 2)}"`;

  it('accepts exactly 100 KB', async () => {
    endpoint.respond(raw(200, jsonOfSize(KB100), 'application/json'));
    const outcome = await client().send(post(endpoint.url()));
    expect(outcome).toMatchObject({ ok: true, responseBytes: KB100 });
  });

  it('cuts a response at 100 KB + 1 while it is still arriving, and closes the connection', async () => {
    let closed: () => void = () => {};
    const serverSawClose = new Promise<void>((resolve) => (closed = resolve));
    endpoint.respond((_request, response) => {
      response.writeHead(200, { 'content-type': 'application/json' });
      // 100 KB + 1 bytes, then the response stays open, as if more were coming.
      response.write(jsonOfSize(KB100 + 1).slice(0, -1));
      response.write('"');
      response.once('close', () => closed());
    });
    const outcome = failed(await client().send(post(endpoint.url())));
    expect(outcome).toMatchObject({ code: 'TOOL_RESPONSE_TOO_LARGE', status: 200, responseBytes: KB100 + 1 });
    expect(outcome.message).toBe("The tool's endpoint answered with more than 100 KB, the limit for a tool's response. The response was discarded.");
    await serverSawClose;
    await endpoint.waitForClosedConnections(1);
  });

  it('a complete chunked response of 100 KB + 1 is too large as well', async () => {
    endpoint.respond(raw(200, jsonOfSize(KB100 + 1), 'application/json'));
    const outcome = failed(await client().send(post(endpoint.url())));
    expect(outcome).toMatchObject({ code: 'TOOL_RESPONSE_TOO_LARGE', status: 200, responseBytes: KB100 + 1 });
  });

  it('refuses a declared Content-Length over the cap without reading the body', async () => {
    endpoint.respond((_request, response) => {
      response.writeHead(200, { 'content-type': 'application/json', 'content-length': KB100 + 1 });
      response.write('"aaaa'); // and the rest never comes
    });
    const outcome = failed(await client().send(post(endpoint.url())));
    expect(outcome).toMatchObject({ code: 'TOOL_RESPONSE_TOO_LARGE', status: 200, responseBytes: 0 });
    expect(outcome.message).toMatch(/Content-Length 102401/);
    await endpoint.waitForClosedConnections(1);
  });

  it('stops reading an endless body: the server sees the socket closed long before it finishes', async () => {
    const { responder, report } = streamed(50 * 1024 * 1024);
    endpoint.respond(responder);
    const outcome = failed(await client().send(post(endpoint.url())));
    expect(outcome.code).toBe('TOOL_RESPONSE_TOO_LARGE');
    // Read up to the cap plus at most one chunk.
    expect(outcome.responseBytes).toBeGreaterThan(KB100);
    expect(outcome.responseBytes).toBeLessThanOrEqual(KB100 + 64 * 1024);
    await report.done;
    expect(report.closedEarly).toBe(true);
    expect(report.finished).toBe(false);
    // Socket buffers on both sides hold a little, never the 50 MB (about 128 KB in practice).
    expect(report.bytesWritten).toBeLessThan(4 * 1024 * 1024);
  });

  it('an error status with an oversized body stays TOOL_HTTP_ERROR, without the body', async () => {
    const { responder } = streamed(KB100 * 3, { status: 500 });
    endpoint.respond(responder);
    const outcome = failed(await client().send(post(endpoint.url())));
    expect(outcome).toMatchObject({ code: 'TOOL_HTTP_ERROR', status: 500 });
    expect(outcome).not.toHaveProperty('body');
  });

  it('honours a smaller configured cap', async () => {
    endpoint.respond(raw(200, jsonOfSize(11), 'application/json'));
    expect(failed(await client({ maxResponseBytes: 10 }).send(post(endpoint.url()))).code).toBe('TOOL_RESPONSE_TOO_LARGE');
  });
});

describe('the request size cap', () => {
  it('refuses a body over 100 KB without connecting', async () => {
    const body = Buffer.alloc(KB100 + 1, 0x20);
    const outcome = failed(await client().send({ method: 'POST', url: endpoint.url(), body }));
    expect(outcome).toMatchObject({ code: 'INVALID_ARGUMENTS', requestBytes: KB100 + 1, responseBytes: 0 });
    expect(outcome.message).toMatch(/102401 bytes; the limit is 100 KB/);
    expect(endpoint.connections).toBe(0);
  });

  it('sends exactly 100 KB', async () => {
    const body = Buffer.from(`"${'b'.repeat(KB100 - 2)}"`);
    expect((await client().send({ method: 'POST', url: endpoint.url(), body })).ok).toBe(true);
    expect(endpoint.requests[0]!.body).toHaveLength(KB100);
  });
});

describe('timeouts and transport failures', () => {
  it('a slow endpoint is TOOL_TIMEOUT at the call deadline', async () => {
    endpoint.respond(delayed(5000, json(200, { late: true })));
    const started = Date.now();
    const outcome = failed(await client({ callTimeoutMs: 300 }).send(post(endpoint.url())));
    const elapsed = Date.now() - started;
    expect(outcome.code).toBe('TOOL_TIMEOUT');
    expect(outcome.message).toMatch(/did not answer within 0.3 s/);
    expect(elapsed).toBeGreaterThanOrEqual(280);
    expect(elapsed).toBeLessThan(2000);
    // Cancelled, not abandoned: the connection to the endpoint is closed.
    await endpoint.waitForClosedConnections(1);
  });

  it('a body that stalls after the headers is TOOL_TIMEOUT too', async () => {
    endpoint.respond(stalledBody());
    const outcome = failed(await client({ callTimeoutMs: 300 }).send(post(endpoint.url())));
    expect(outcome.code).toBe('TOOL_TIMEOUT');
    await endpoint.waitForClosedConnections(1);
  });

  it('a refused connection is TOOL_UNREACHABLE (ECONNREFUSED)', async () => {
    const port = await closedPort();
    const outcome = failed(await client().send(post(`https://127.0.0.1:${port}/tool`)));
    expect(outcome).toMatchObject({ code: 'TOOL_UNREACHABLE', cause: 'ECONNREFUSED' });
    expect(outcome.message).toBe("The tool's endpoint refused the connection (ECONNREFUSED). No request was sent; the endpoint's server may be down.");
  });

  it('a name that does not resolve is TOOL_UNREACHABLE', async () => {
    const outcome = failed(await client().send(post(`https://nowhere.test:${endpoint.port}/tool`)));
    expect(outcome).toMatchObject({ code: 'TOOL_UNREACHABLE', cause: 'ENOTFOUND' });
    expect(outcome.message).toMatch(/host nowhere\.test does not resolve \(ENOTFOUND\)/);
    const empty = failed(await client().send(post(`https://empty.test:${endpoint.port}/tool`)));
    expect(empty).toMatchObject({ code: 'TOOL_UNREACHABLE', cause: 'ENODATA' });
    expect(endpoint.connections).toBe(0);
  });

  it('a resolver that never answers is TOOL_UNREACHABLE at the connect timeout', async () => {
    const hanging: HostResolver = () => new Promise<string[]>(() => {});
    const outcome = failed(await client({ resolver: hanging, connectTimeoutMs: 200 }).send(post(`https://tool.test:${endpoint.port}/tool`)));
    expect(outcome).toMatchObject({ code: 'TOOL_UNREACHABLE', cause: 'UND_ERR_CONNECT_TIMEOUT' });
    expect(outcome.message).toMatch(/did not accept a connection within 0.2 s/);
    expect(endpoint.connections).toBe(0);
  });

  it('an endpoint that hangs up is TOOL_UNREACHABLE', async () => {
    endpoint.respond(hangUp());
    const outcome = failed(await client().send(post(endpoint.url())));
    expect(outcome.code).toBe('TOOL_UNREACHABLE');
    expect(outcome.message).toMatch(/closed before it answered/);
  });

  it('a certificate from an unknown CA is TOOL_UNREACHABLE and nothing is sent', async () => {
    const outcome = failed(await client({ caFile: undefined }).send(post(endpoint.url())));
    expect(outcome.code).toBe('TOOL_UNREACHABLE');
    expect(outcome.message).toMatch(/TLS certificate that could not be verified for 127\.0\.0\.1 \((UNABLE_TO_VERIFY_LEAF_SIGNATURE|SELF_SIGNED_CERT_IN_CHAIN|UNABLE_TO_GET_ISSUER_CERT_LOCALLY)\)/);
    expect(endpoint.requests).toHaveLength(0);
  });

  it('a certificate for another name is TOOL_UNREACHABLE and nothing is sent', async () => {
    const outcome = failed(await client().send(post(`https://other.test:${endpoint.port}/tool`)));
    expect(outcome).toMatchObject({ code: 'TOOL_UNREACHABLE', cause: 'ERR_TLS_CERT_ALTNAME_INVALID' });
    expect(outcome.message).toMatch(/could not be verified for other\.test/);
    expect(endpoint.requests).toHaveLength(0);
  });

  it.each([
    [{ 'X-API-Key': 'abc\r\nX-Injected: 1' }, 'X-API-Key'],
    [{ Authorization: 'Bearer caf\u00e9' }, 'Authorization'],
    [{ 'Bad Header': 'x' }, 'Bad Header'],
  ])('a header that cannot be sent (%j) is TOOL_CREDENTIALS_MISSING and nothing is sent', async (headers, name) => {
    const outcome = failed(await client().send(post(endpoint.url(), {}, headers)));
    expect(outcome.code).toBe('TOOL_CREDENTIALS_MISSING');
    expect(outcome.message).toContain(JSON.stringify(name));
    expect(outcome.message).not.toContain('abc');
    expect(endpoint.connections).toBe(0);
  });

  it('an endpoint that is not https is TOOL_BLOCKED', async () => {
    const outcome = failed(await client().send(post(`http://127.0.0.1:${endpoint.port}/tool`)));
    expect(outcome.code).toBe('TOOL_BLOCKED');
    expect(endpoint.connections).toBe(0);
  });
});

describe('internal addresses, with private endpoints not allowed', () => {
  it.each([
    ['127.0.0.1', '127.0.0.1, a loopback address'],
    ['2130706433', '127.0.0.1, a loopback address'],
    ['0177.0.0.1', '127.0.0.1, a loopback address'],
    ['0x7f.1', '127.0.0.1, a loopback address'],
    ['127.1', '127.0.0.1, a loopback address'],
    ['[::1]', '::1, a loopback address'],
    ['[::ffff:127.0.0.1]', '::ffff:7f00:1 (which carries 127.0.0.1), a loopback address'],
    ['[::127.0.0.1]', '::7f00:1 (which carries 127.0.0.1), an IPv4-compatible IPv6 address'],
    ['[64:ff9b::7f00:1]', '64:ff9b::7f00:1 (which carries 127.0.0.1), a NAT64 address'],
    ['[2002:7f00:1::]', '2002:7f00:1:: (which carries 127.0.0.1), a 6to4 address'],
  ])('https://%s is TOOL_BLOCKED without a connection', async (host, description) => {
    const strict = client({ allowPrivate: false, resolver: tableResolver({}) });
    const outcome = failed(await strict.send(post(`https://${host}:${endpoint.port}/tool`)));
    expect(outcome.code).toBe('TOOL_BLOCKED');
    expect(outcome.message).toBe(`The tool's endpoint points to ${description}. Tools can only call public internet addresses, so no request was sent.`);
    expect(endpoint.connections).toBe(0);
  });

  it('localhost, resolving to 127.0.0.1, is TOOL_BLOCKED at connect time without a connection', async () => {
    const strict = client({ allowPrivate: false, resolver: tableResolver({ localhost: ['127.0.0.1'] }) });
    const outcome = failed(await strict.send(post(`https://localhost:${endpoint.port}/tool`)));
    expect(outcome).toMatchObject({ code: 'TOOL_BLOCKED', address: '127.0.0.1' });
    expect(outcome.message).toBe("The tool's endpoint points to localhost, which resolves to 127.0.0.1, a loopback address. Tools can only call public internet addresses, so no request was sent.");
    expect(endpoint.connections).toBe(0);
  });

  it.each([
    [['::1']],
    [['::ffff:127.0.0.1']],
    [['127.0.0.1', '::1']],
    [['10.0.0.5']],
    [['169.254.169.254']],
  ])('a name resolving to %j is TOOL_BLOCKED', async (answers) => {
    const strict = client({ allowPrivate: false, resolver: tableResolver({ 'tool.test': answers }) });
    expect(failed(await strict.send(post(`https://tool.test:${endpoint.port}/tool`))).code).toBe('TOOL_BLOCKED');
    expect(endpoint.connections).toBe(0);
  });

  it('a name that resolved to a public address at publish time and resolves to loopback now is TOOL_BLOCKED (DNS rebinding)', async () => {
    const answers = [['93.184.215.14'], ['127.0.0.1']];
    let calls = 0;
    const rebinding: HostResolver = async () => {
      const answer = answers[calls];
      calls += 1;
      if (!answer) throw new Error('resolved more often than expected');
      return answer;
    };
    const url = `https://rebind.test:${endpoint.port}/tool`;
    // Publish time: the check passes (and connects to nothing).
    await expect(checkEndpoint(url, { allowPrivate: false, resolver: rebinding }, 'publish')).resolves.toBeUndefined();
    // Call time: the address actually dialled would be loopback.
    const strict = client({ allowPrivate: false, resolver: rebinding });
    const outcome = failed(await strict.send(post(url)));
    expect(outcome).toMatchObject({ code: 'TOOL_BLOCKED', address: '127.0.0.1' });
    expect(outcome.message).toMatch(/rebind\.test, which resolves to 127\.0\.0\.1, a loopback address/);
    expect(calls).toBe(2);
    expect(endpoint.connections).toBe(0);
  });

  it('the connector itself refuses an IP-literal host, before any socket exists', async () => {
    const connect = createGuardedConnector({ allowPrivate: false, resolver: tableResolver({}), connectTimeoutMs: 1000 });
    for (const hostname of ['127.0.0.1', '::1', '::ffff:7f00:1']) {
      const error = await new Promise<Error | null>((resolve) => {
        connect({ hostname, host: `${hostname}:${endpoint.port}`, protocol: 'https:', port: String(endpoint.port) }, (...args) => {
          if (args[1]) args[1].destroy();
          resolve(args[0]);
        });
      });
      expect(error).toBeInstanceOf(BlockedAddressError);
    }
    expect(endpoint.connections).toBe(0);
  });

  it('checkLiteralHost leaves names to the lookup and lets everything through when private endpoints are allowed', () => {
    expect(checkLiteralHost('tool.test', false)).toBeUndefined();
    expect(checkLiteralHost('[::1]', false)).toBeInstanceOf(BlockedAddressError);
    expect(checkLiteralHost('127.0.0.1', true)).toBeUndefined();
    expect(checkLiteralHost('93.184.215.14', false)).toBeUndefined();
  });

  it('after all of the above, the loopback listener has counted zero connections', () => {
    // Each test above asserted it too; reset() runs after each, so this is the last word for this block.
    expect(endpoint.connections).toBe(0);
  });
});

describe('the connect-time lookup decision (no connection is made)', () => {
  type Result = { error: Error | null; address?: unknown; family?: unknown };
  function lookUp(lookup: ReturnType<typeof createGuardedLookup>, hostname: string, options: { all?: boolean; family?: number }): Promise<Result> {
    return new Promise((resolve) => {
      (lookup as unknown as (h: string, o: object, cb: (e: Error | null, a?: unknown, f?: unknown) => void) => void)(hostname, options, (error, address, family) =>
        resolve({ error, address, family }));
    });
  }

  const publicResolver = tableResolver({ 'api.example.com': ['93.184.215.14', '2606:2800:21f:cb07:6820:80da:af6b:8b2c'] });

  it('yields a public answer as the address to dial', async () => {
    const lookup = createGuardedLookup({ allowPrivate: false, resolver: publicResolver });
    expect(await lookUp(lookup, 'api.example.com', {})).toEqual({ error: null, address: '93.184.215.14', family: 4 });
    expect(await lookUp(lookup, 'api.example.com', { family: 6 })).toEqual({ error: null, address: '2606:2800:21f:cb07:6820:80da:af6b:8b2c', family: 6 });
    expect(await lookUp(lookup, 'api.example.com', { all: true })).toEqual({
      error: null,
      address: [{ address: '93.184.215.14', family: 4 }, { address: '2606:2800:21f:cb07:6820:80da:af6b:8b2c', family: 6 }],
      family: undefined,
    });
  });

  it('refuses the whole answer when any address is internal', async () => {
    const lookup = createGuardedLookup({ allowPrivate: false, resolver: tableResolver({ 'mixed.example.com': ['93.184.215.14', '10.1.2.3'] }) });
    const result = await lookUp(lookup, 'mixed.example.com', { all: true });
    expect(result.error).toBeInstanceOf(BlockedAddressError);
    expect((result.error as BlockedAddressError).verdict).toMatchObject({ address: '10.1.2.3', reason: 'private' });
    expect(result.address).toEqual([]);
  });

  it('passes resolver failures and empty answers on as errors', async () => {
    const lookup = createGuardedLookup({ allowPrivate: false, resolver: tableResolver({ 'empty.test': [] }) });
    expect((await lookUp(lookup, 'nowhere.test', {})).error).toMatchObject({ code: 'ENOTFOUND' });
    expect((await lookUp(lookup, 'empty.test', {})).error).toMatchObject({ code: 'ENODATA' });
    expect((await lookUp(createGuardedLookup({ allowPrivate: false, resolver: publicResolver }), 'api.example.com', { family: 4, all: true })).address)
      .toEqual([{ address: '93.184.215.14', family: 4 }]);
  });

  it('with private endpoints allowed, yields internal answers too', async () => {
    const lookup = createGuardedLookup({ allowPrivate: true, resolver: tableResolver({ 'tool.test': ['10.0.0.5'] }) });
    expect(await lookUp(lookup, 'tool.test', {})).toEqual({ error: null, address: '10.0.0.5', family: 4 });
  });
});
