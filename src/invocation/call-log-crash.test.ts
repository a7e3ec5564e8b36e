import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { openDatabase } from '../db/database.js';
import { createServerDatabase, TEST_ENV, TestClock, testDialects } from '../../test/support/context.js';
import { createDeveloperWithApp } from '../../test/support/factories.js';
import { json, startHttpsEndpoint, type HttpsEndpoint } from '../../test/support/https-endpoint.js';
import { BRAND } from '../../test/support/invocation-factories.js';
import { createOrgWithKey } from '../../test/support/org-factories.js';
import { startServerProcess } from '../../test/support/server-process.js';
import { toolInput } from '../../test/support/tools-factories.js';

/**
 * `kill -9` under tool-call load loses no answered call: the real server (`src/main.ts`) runs as a
 * child process on its own database, 20 clients call one tool through the Operator API as fast as
 * it answers, the server is killed mid-run, and every callId that was answered 200 must then be in
 * the call log. Before calls waited for their rows (issue 18), 0.05–11% of them were missing.
 * Everything listens on 127.0.0.1; the load is bounded by the kill (and a deadline).
 */
const CLIENTS = 20;
/**
 * The kill comes once this many calls were answered (about a second of load on an idle two-core
 * machine), or after MAX_LOAD_MS when the machine is busy (other suites running: 130 calls/s seen).
 */
const KILL_AFTER_CALLS = 1500;
const MAX_LOAD_MS = 8000;

describe.each(testDialects())('kill -9 under tool-call load on %s', (dialect) => {
  const cleanups: Array<() => Promise<void> | void> = [];
  afterEach(async () => {
    for (const cleanup of cleanups.reverse()) await cleanup();
    cleanups.length = 0;
  });

  it('loses no call whose result was answered: every callId answered 200 is in the call log', async () => {
    const endpoint: HttpsEndpoint = await startHttpsEndpoint(json(200, { quote: 12.5 }));
    cleanups.push(() => endpoint.close());

    // The server's database, with a developer (and app) and an organization made beforehand.
    const dataDir = mkdtempSync(join(tmpdir(), 'switchboard-crash-'));
    cleanups.push(() => rmSync(dataDir, { recursive: true, force: true }));
    const { database, url: databaseUrl, dispose } = await createServerDatabase(dialect, dataDir);
    cleanups.push(dispose);
    const clock = new TestClock();
    const { app: devApp } = await createDeveloperWithApp(database, clock);
    const org = await createOrgWithKey(database, clock);
    // The server is the SQLite file's only user from here on.
    if (dialect === 'sqlite') await database.close();

    const server = await startServerProcess({
      ...TEST_ENV, LOG_LEVEL: 'silent', DATA_DIR: dataDir, DATABASE_URL: databaseUrl,
      TOOL_ALLOW_PRIVATE_ENDPOINTS: '1', TOOL_CA_FILE: endpoint.caFile,
    }, 45_000);
    cleanups.push(() => server.signal('SIGKILL'));

    const api = async (path: string, auth: string, body: unknown) => {
      const res = await fetch(`${server.url}${path}`, { method: 'POST', headers: { authorization: `Bearer ${auth}`, 'content-type': 'application/json' }, body: JSON.stringify(body) });
      if (res.status >= 300) throw new Error(`POST ${path}: ${res.status} ${await res.text()}`);
      return ((await res.json()) as { data: { id: string; name: string } }).data;
    };
    const token = await fetch(`${server.url}/api/dev/oauth/token`, {
      method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ grant_type: 'client_credentials', client_id: devApp.clientId, client_secret: devApp.clientSecret }).toString(),
    });
    const devToken = ((await token.json()) as { access_token: string }).access_token;
    const tool = await api('/api/dev/tools', devToken, toolInput({ endpoint: `https://127.0.0.1:${endpoint.port}/quote` }));
    await api(`/api/dev/tools/${tool.id}/publish`, devToken, {});
    const agent = await api('/api/org/agents', org.apiKey, { name: 'Load bot', branding: BRAND });
    const installed = await api('/api/org/installations', org.apiKey, { toolId: tool.id });

    // The load: 20 clients, each calling again as soon as it has its answer, until the server is gone.
    const answered: string[] = [];
    const otherStatuses: number[] = [];
    let killed = false;
    let answers = 0;
    const kill = () => server.signal('SIGKILL');
    const client = async () => {
      while (!killed) {
        try {
          const res = await fetch(`${server.url}/api/org/agents/${agent.id}/tool-calls`, {
            method: 'POST', headers: { authorization: `Bearer ${org.apiKey}`, 'content-type': 'application/json' },
            body: JSON.stringify({ name: installed.name, arguments: { weightKg: 2.5, country: 'PT' } }),
          });
          // The kill comes the moment an answer arrives, while the server is still busy with the calls around it.
          if (res.status === 200 && ++answers === KILL_AFTER_CALLS) kill();
          const body = (await res.json()) as { data?: { callId: string } };
          if (res.status === 200) answered.push(body.data!.callId);
          else otherStatuses.push(res.status);
        } catch {
          // The server was killed while this call was in flight: no answer, nothing promised.
        }
      }
    };
    const exited = server.ended;
    const clients = Array.from({ length: CLIENTS }, client);
    const deadline = setTimeout(kill, MAX_LOAD_MS);
    await exited;
    clearTimeout(deadline);
    killed = true;
    await Promise.all(clients);

    expect(otherStatuses).toEqual([]);
    // Enough calls for the check to mean something.
    expect(answered.length).toBeGreaterThan(100);
    let logged: Set<string>;
    if (dialect === 'sqlite') {
      // The killed server's file, opened afresh as the next start would (WAL recovery included).
      const reopened = openDatabase({ dataDir });
      logged = new Set((await reopened.db.selectFrom('tool_calls').select('id').execute()).map((row) => row.id));
      await reopened.close();
    } else {
      logged = new Set((await database.db.selectFrom('tool_calls').select('id').execute()).map((row) => row.id));
    }
    const missing = answered.filter((callId) => !logged.has(callId));
    expect(missing, `${missing.length} of ${answered.length} answered calls are missing from the call log`).toEqual([]);
  }, 90_000);
});
