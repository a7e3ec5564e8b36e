import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHttpsEndpoint, type HttpsEndpoint, type RecordedRequest } from '../../test/support/https-endpoint.js';
import { toolHostResolver } from '../../test/support/invocation-factories.js';
import { createOrgWithKey, orgCaller } from '../../test/support/org-factories.js';
import { createWebhookTestContext, type WebhookTestContext } from '../../test/support/webhook-context.js';

/**
 * The verification functions docs/webhooks.md gives receivers, read from the page itself and run against a
 * real delivery (the test ping) and against that delivery tampered with: Node always, Python when python3
 * is installed, PHP when php is.
 */
const DOC = readFileSync(fileURLToPath(new URL('../../docs/webhooks.md', import.meta.url)), 'utf8');

function codeBlock(language: string, marker: string): string {
  const block = [...DOC.matchAll(/```(\w+)\n([\s\S]*?)```/g)].find(([, lang, code]) => lang === language && code!.includes(marker));
  if (!block) throw new Error(`docs/webhooks.md has no ${language} block with ${marker}`);
  return block[2]!;
}

const has = (command: string) => spawnSync(command, ['--version'], { stdio: 'ignore' }).status === 0;

describe('the documented verification functions', () => {
  let receiver: HttpsEndpoint;
  let t: WebhookTestContext;
  let delivery: RecordedRequest;
  let secret: string;
  let dir: string;
  /** Headers as a receiver's framework gives them: lowercase names. */
  let headers: Record<string, string>;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'switchboard-webhook-docs-'));
    receiver = await startHttpsEndpoint();
    t = await createWebhookTestContext('sqlite', { env: { TOOL_ALLOW_PRIVATE_ENDPOINTS: '1', TOOL_CA_FILE: receiver.caFile }, resolveHost: toolHostResolver() });
    const org = await createOrgWithKey(t.database, t.clock);
    const call = orgCaller(t.app);
    const created = (await call('POST', '/api/org/webhooks', org, { url: receiver.url('/hook'), events: ['contact.created'] })).json().data;
    secret = created.secret;
    expect((await call('POST', `/api/org/webhooks/${created.id}/test`, org)).json().data.status).toBe('succeeded');
    delivery = receiver.requests[0]!;
    headers = { 'x-svc-timestamp': String(delivery.headers['x-svc-timestamp']), 'x-svc-signature': String(delivery.headers['x-svc-signature']) };
  });
  afterAll(async () => {
    await t.close();
    await receiver.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const tampered = () => Buffer.from(delivery.body.toString().replace('"ping"', '"pong"'));
  const stale = () => ({ ...headers, 'x-svc-timestamp': String(Number(headers['x-svc-timestamp']) - 3600) });

  it('Node: accepts the delivery, refuses it tampered, with another secret or an old timestamp', () => {
    const file = join(dir, 'verify.cjs');
    writeFileSync(file, `${codeBlock('js', 'function verifyWebhook')}\nmodule.exports = { verifyWebhook };\n`);
    const { verifyWebhook } = createRequire(import.meta.url)(file) as { verifyWebhook: (secret: string, headers: Record<string, string>, body: Buffer) => boolean };
    expect(verifyWebhook(secret, headers, delivery.body)).toBe(true);
    expect(verifyWebhook(secret, headers, tampered())).toBe(false);
    expect(verifyWebhook('whsec_another', headers, delivery.body)).toBe(false);
    expect(verifyWebhook(secret, stale(), delivery.body)).toBe(false);
  });

  function runScript(command: string, source: string, run: (file: string) => string[]) {
    return (secretValue: string, headerValues: Record<string, string>, body: Buffer): boolean => {
      writeFileSync(join(dir, 'headers.json'), JSON.stringify(headerValues));
      writeFileSync(join(dir, 'body.bin'), body);
      const file = join(dir, `verify-${command}`);
      writeFileSync(file, source);
      return execFileSync(command, run(file).concat([secretValue, join(dir, 'headers.json'), join(dir, 'body.bin')]), { encoding: 'utf8' }).trim() === 'true';
    };
  }

  it.runIf(has('python3'))('Python: the same four answers', () => {
    const source = `${codeBlock('python', 'def verify_webhook')}\nimport json, sys\nprint(str(verify_webhook(sys.argv[1], json.load(open(sys.argv[2])), open(sys.argv[3], 'rb').read())).lower())\n`;
    const verify = runScript('python3', source, (file) => [file]);
    expect(verify(secret, headers, delivery.body)).toBe(true);
    expect(verify(secret, headers, tampered())).toBe(false);
    expect(verify('whsec_another', headers, delivery.body)).toBe(false);
    expect(verify(secret, stale(), delivery.body)).toBe(false);
  });

  it.runIf(has('php'))('PHP: the same four answers', () => {
    const source = `<?php\n${codeBlock('php', 'function verify_webhook')}\necho verify_webhook($argv[1], json_decode(file_get_contents($argv[2]), true), file_get_contents($argv[3])) ? 'true' : 'false';\n`;
    const verify = runScript('php', source, (file) => [file]);
    expect(verify(secret, headers, delivery.body)).toBe(true);
    expect(verify(secret, headers, tampered())).toBe(false);
    expect(verify('whsec_another', headers, delivery.body)).toBe(false);
    expect(verify(secret, stale(), delivery.body)).toBe(false);
  });
});
