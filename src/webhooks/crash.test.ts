import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createServerDatabase, TEST_ENV, TestClock, testDialects } from '../../test/support/context.js';
import { startHttpsEndpoint, type HttpsEndpoint } from '../../test/support/https-endpoint.js';
import { createOrgWithKey } from '../../test/support/org-factories.js';
import { startServerProcess } from '../../test/support/server-process.js';

/**
 * `kill -9` between a submission's commit and its delivery loses no event: the real server
 * (`src/main.ts`) takes submissions from several clients with its delivery worker off
 * (WEBHOOK_DELIVERY=off: nothing is sent, so every acknowledged event is still only in the outbox
 * when the kill comes), is killed mid-run, and a new server on the same database then delivers
 * submission.created for every submission that was answered 200. Everything listens on 127.0.0.1;
 * the load is bounded by the kill (and a deadline).
 */
const CLIENTS = 6;
/** The kill comes once this many submissions were answered, or after MAX_LOAD_MS on a busy machine. */
const KILL_AFTER = 150;
const MAX_LOAD_MS = 8000;

describe.each(testDialects())('kill -9 between commit and delivery on %s', (dialect) => {
  const cleanups: Array<() => Promise<void> | void> = [];
  afterEach(async () => {
    for (const cleanup of cleanups.reverse()) await cleanup();
    cleanups.length = 0;
  });

  it('a restarted server delivers submission.created for every submission answered before the kill', async () => {
    const receiver: HttpsEndpoint = await startHttpsEndpoint();
    cleanups.push(() => receiver.close());

    const dataDir = mkdtempSync(join(tmpdir(), 'switchboard-webhook-crash-'));
    cleanups.push(() => rmSync(dataDir, { recursive: true, force: true }));
    const { database, url: databaseUrl, dispose } = await createServerDatabase(dialect, dataDir);
    cleanups.push(dispose);
    const org = await createOrgWithKey(database, new TestClock());
    // The servers are the SQLite file's only users from here on.
    if (dialect === 'sqlite') await database.close();

    const env = {
      ...TEST_ENV, LOG_LEVEL: 'silent', DATA_DIR: dataDir, DATABASE_URL: databaseUrl, TRUST_PROXY: '127.0.0.1',
      TOOL_ALLOW_PRIVATE_ENDPOINTS: '1', TOOL_CA_FILE: receiver.caFile, TOOL_CALL_TIMEOUT_MS: '2000',
    };
    const first = await startServerProcess({ ...env, WEBHOOK_DELIVERY: 'off' }, 45_000);
    cleanups.push(() => first.signal('SIGKILL'));

    const api = async (path: string, body: unknown) => {
      const res = await fetch(`${first.url}${path}`, { method: 'POST', headers: { authorization: `Bearer ${org.apiKey}`, 'content-type': 'application/json' }, body: JSON.stringify(body) });
      if (res.status !== 201) throw new Error(`POST ${path}: ${res.status} ${await res.text()}`);
      return ((await res.json()) as { data: Record<string, unknown> }).data;
    };
    await api('/api/org/webhooks', { url: receiver.url('/hook'), events: ['submission.created'] });
    const form = await api('/api/org/forms', { slug: `crash-${Date.now()}`, title: 'Book a visit', consentText: 'I agree to be contacted about my request.' });

    // Clients submit new people until the kill; each 200 is an acknowledged submission.
    const acknowledged = new Set<string>();
    let sent = 0;
    let killed = false;
    const started = Date.now();
    const client = async (n: number) => {
      while (!killed && Date.now() - started < MAX_LOAD_MS + 5000) {
        const email = `visitor-${n}-${sent++}@example.com`;
        try {
          const res = await fetch(`${first.url}/api/public/forms/${String(form.slug)}/submit`, {
            method: 'POST',
            headers: { 'content-type': 'application/json', 'x-forwarded-for': `10.0.${n}.${sent % 250}` },
            body: JSON.stringify({ consentVersion: form.consentVersion, email, name: `Visitor ${n}` }),
          });
          if (res.status === 200) acknowledged.add(email);
          else await res.arrayBuffer();
        } catch {
          // The server died mid-request: this one was not acknowledged.
        }
      }
    };
    const load = Promise.all(Array.from({ length: CLIENTS }, (_, n) => client(n)));
    while (acknowledged.size < KILL_AFTER && Date.now() - started < MAX_LOAD_MS) await new Promise((resolve) => setTimeout(resolve, 5));
    first.signal('SIGKILL');
    killed = true;
    await first.ended;
    await load;
    expect(acknowledged.size).toBeGreaterThan(0);
    // Nothing was sent before the kill.
    expect(receiver.requests).toEqual([]);

    // A new node, delivery on, on the same database: everything acknowledged arrives.
    const second = await startServerProcess(env, 45_000);
    cleanups.push(() => second.stop());
    const received = () => new Set(receiver.requests.map((request) => (JSON.parse(request.body.toString('utf8')) as { data: { values: { email: string } } }).data.values.email));
    const deadline = Date.now() + 30_000;
    while ([...acknowledged].some((email) => !received().has(email)) && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 100));
    const missing = [...acknowledged].filter((email) => !received().has(email));
    expect(missing, `${missing.length} of ${acknowledged.size} acknowledged submissions were never delivered`).toEqual([]);
    expect(receiver.requests.every((request) => request.headers['x-svc-event'] === 'submission.created')).toBe(true);
  }, 120_000);
});
