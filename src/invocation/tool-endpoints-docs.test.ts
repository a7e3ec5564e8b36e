import { execFileSync, spawnSync } from 'node:child_process';
import { createHmac } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestContext, type TestContext } from '../../test/support/context.js';
import { developerSession } from '../../test/support/factories.js';
import { json, startHttpsEndpoint, type HttpsEndpoint, type RecordedRequest } from '../../test/support/https-endpoint.js';
import { createAgent, install, toolEndpointOptions } from '../../test/support/invocation-factories.js';
import { createOrgWithKey, orgCaller } from '../../test/support/org-factories.js';
import { createTool, publishTool } from '../../test/support/tools-factories.js';
import { TEST_VECTOR } from '../../test/support/signing-vector.js';

/**
 * docs/tool-endpoints.md runs as written: its Node.js and Python verifiers are extracted
 * from the page and run against a request the invoker really sent, and its test vector is
 * the one the signer is tested with.
 */
const DOC = readFileSync(new URL('../../docs/tool-endpoints.md', import.meta.url), 'utf8');

function blocks(language: string): string[] {
  return [...DOC.matchAll(new RegExp('```' + language + '\\n([\\s\\S]*?)```', 'g'))].map((m) => m[1]!);
}

const SECRET = 'docs-example-secret';
const hasPython = spawnSync('python3', ['--version']).status === 0;

type Verify = (rawBody: Buffer, timestamp: unknown, signature: unknown, secret: string, now?: number) => boolean;

describe('docs/tool-endpoints.md', () => {
  let t: TestContext;
  let endpoint: HttpsEndpoint;
  let sent: RecordedRequest;
  let responseBody: string;
  const dir = mkdtempSync(join(tmpdir(), 'switchboard-docs-'));

  beforeAll(async () => {
    endpoint = await startHttpsEndpoint(json(200, { quote: 12.5 }));
    t = await createTestContext('sqlite', toolEndpointOptions(endpoint));
    const dev = await developerSession(t.database, t.clock, t.app);
    const org = await createOrgWithKey(t.database, t.clock);
    const agent = await createAgent(t.app, org);
    const tool = await publishTool(t.app, dev.auth, (await createTool(t.app, dev.auth, { name: 'get_quote', authType: 'hmac', endpoint: `https://tool.test:${endpoint.port}/tools/quote` })).id);
    await install(t.app, org, { toolId: tool.id, credentials: { secret: SECRET } });
    const res = await orgCaller(t.app)('POST', `/api/org/agents/${agent.id}/tool-calls`, org, { name: 'get_quote', arguments: { weightKg: 2.5, country: 'PT' } });
    expect(res.statusCode).toBe(200);
    responseBody = res.body;
    sent = endpoint.requests[0]!;
  });
  afterAll(async () => {
    await t.close();
    await endpoint.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const timestamp = () => String(sent.headers['x-svc-timestamp']);
  const signature = () => String(sent.headers['x-svc-signature']);
  const now = () => Number(timestamp());
  const changed = () => {
    const copy = Buffer.from(sent.body);
    copy[5] = copy[5]! ^ 1;
    return copy;
  };

  it('shows a request with the headers and body keys the invoker really sends', () => {
    const example = blocks('http')[0]!;
    const names = sent.rawHeaders.filter((_, i) => i % 2 === 0).map((name) => name.toLowerCase());
    const documented = example.split('\n').slice(1).filter((line) => line.includes(': ')).map((line) => line.split(':')[0]!.toLowerCase());
    expect(documented).toEqual(names);
    const body = JSON.parse(example.trim().split('\n').at(-1)!);
    const real = JSON.parse(sent.body.toString());
    expect(Object.keys(body)).toEqual(Object.keys(real));
    expect(Object.keys(body._svc_context)).toEqual(Object.keys(real._svc_context));
    expect(responseBody).toContain(real._svc_context.callId);
  });

  it('has a Node.js verifier that accepts the real request and refuses a changed byte, a wrong key and a stale timestamp', async () => {
    const file = join(dir, 'verify.mjs');
    writeFileSync(file, blocks('js')[0]!);
    const { verifySvcSignature } = (await import(pathToFileURL(file).href)) as { verifySvcSignature: Verify };
    expect(verifySvcSignature(sent.body, timestamp(), signature(), SECRET, now())).toBe(true);
    expect(verifySvcSignature(sent.body, timestamp(), signature(), SECRET)).toBe(Math.abs(Date.now() / 1000 - now()) <= 300);
    expect(verifySvcSignature(changed(), timestamp(), signature(), SECRET, now())).toBe(false);
    expect(verifySvcSignature(sent.body, timestamp(), signature(), 'another-secret', now())).toBe(false);
    expect(verifySvcSignature(sent.body, timestamp(), signature(), SECRET, now() + 301)).toBe(false);
    expect(verifySvcSignature(sent.body, undefined, signature(), SECRET, now())).toBe(false);
    const vector = Buffer.from(TEST_VECTOR.body);
    expect(verifySvcSignature(vector, String(TEST_VECTOR.timestamp), TEST_VECTOR.signature, TEST_VECTOR.secret, TEST_VECTOR.timestamp)).toBe(true);
  });

  it('has a node:http server example that answers a signed request and refuses a forged one', async () => {
    const file = join(dir, 'server.mjs');
    const [verifier, server] = blocks('js') as [string, string];
    writeFileSync(file, `${verifier}\n${server.replace("server.listen(8080, '127.0.0.1');", "server.listen(0, '127.0.0.1');")}\nexport { server };\n`);
    process.env.TOOL_SECRET = SECRET;
    const { server: running } = (await import(pathToFileURL(file).href)) as { server: Server };
    try {
      await new Promise<void>((resolve) => (running.listening ? resolve() : running.once('listening', () => resolve())));
      const url = `http://127.0.0.1:${(running.address() as AddressInfo).port}/`;
      const ts = String(Math.floor(Date.now() / 1000));
      const body = Buffer.from('{"weightKg":2,"_svc_context":{"callId":"call_x"}}');
      const sig = `sha256=${createHmac('sha256', SECRET).update(`${ts}.`).update(body).digest('hex')}`;
      const good = await fetch(url, { method: 'POST', body, headers: { 'x-svc-timestamp': ts, 'x-svc-signature': sig } });
      expect(good.status).toBe(200);
      expect(await good.json()).toEqual({ quote: 10 });
      const forged = await fetch(url, { method: 'POST', body: Buffer.from('{"weightKg":3}'), headers: { 'x-svc-timestamp': ts, 'x-svc-signature': sig } });
      expect(forged.status).toBe(401);
    } finally {
      await new Promise<void>((resolve) => running.close(() => resolve()));
      delete process.env.TOOL_SECRET;
    }
  });

  it.runIf(hasPython)('has a Python verifier that agrees', () => {
    const file = join(dir, 'verify.py');
    writeFileSync(file, `${blocks('python')[0]!}
import json, sys
cases = json.load(sys.stdin)
print(json.dumps([verify_svc_signature(bytes.fromhex(c["body"]), c["timestamp"], c["signature"], c["secret"], c["now"]) for c in cases]))
`);
    const cases = [
      { body: sent.body.toString('hex'), timestamp: timestamp(), signature: signature(), secret: SECRET, now: now() },
      { body: changed().toString('hex'), timestamp: timestamp(), signature: signature(), secret: SECRET, now: now() },
      { body: sent.body.toString('hex'), timestamp: timestamp(), signature: signature(), secret: 'another-secret', now: now() },
      { body: sent.body.toString('hex'), timestamp: timestamp(), signature: signature(), secret: SECRET, now: now() + 301 },
      { body: Buffer.from(TEST_VECTOR.body).toString('hex'), timestamp: String(TEST_VECTOR.timestamp), signature: TEST_VECTOR.signature, secret: TEST_VECTOR.secret, now: TEST_VECTOR.timestamp },
    ];
    const out = execFileSync('python3', [file], { input: JSON.stringify(cases), encoding: 'utf8' });
    expect(JSON.parse(out)).toEqual([true, false, false, false, true]);
  });

  it('states the fixed test vector the signer is tested with', () => {
    for (const value of [TEST_VECTOR.secret, String(TEST_VECTOR.timestamp), TEST_VECTOR.body, TEST_VECTOR.signature]) expect(DOC).toContain(value);
  });
});
