import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { load, memoryMb, startChild, startSwitchboard, throwawaySchema, type Row } from './lib.js';

/**
 * Developer API: the token endpoint (a client-credentials exchange: secret check + token insert)
 * and the tools list (bearer check + one page of 20 tools), each against a bare Fastify
 * server returning the same JSON.
 */
export async function benchDeveloperApi(options: { databaseUrl?: string } = {}): Promise<Row[]> {
  const dataDir = mkdtempSync(join(tmpdir(), 'switchboard-bench-'));
  const schema = options.databaseUrl ? await throwawaySchema(options.databaseUrl) : undefined;
  const env: Record<string, string> = { DATA_DIR: dataDir, LOG_LEVEL: 'warn', NODE_ENV: 'development', ...(schema ? { DATABASE_URL: schema.url } : {}) };
  const label = options.databaseUrl ? 'PostgreSQL' : 'SQLite';
  const cli = (...args: string[]) =>
    JSON.parse(execFileSync(process.execPath, ['--import', 'tsx', 'src/cli.ts', ...args, '--json'], { env: { ...process.env, ...env }, encoding: 'utf8' })) as Record<string, any>;

  const email = `bench-${Date.now()}@example.com`;
  cli('developer', 'create', '--email', email, '--password', 'benchmark-password', '--name', 'Bench');
  const credentials = cli('app', 'create', '--developer', email, '--name', 'Bench');
  const tokenForm = new URLSearchParams({ grant_type: 'client_credentials', client_id: credentials.clientId, client_secret: credentials.clientSecret }).toString();

  const server = await startSwitchboard(env);
  const rows: Row[] = [];
  try {
    const tokenRes = await fetch(`${server.url}/api/dev/oauth/token`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: tokenForm });
    const tokenBody = (await tokenRes.json()) as { access_token: string };
    const auth = { authorization: `Bearer ${tokenBody.access_token}` };
    for (let i = 0; i < 20; i++) {
      const res = await fetch(`${server.url}/api/dev/tools`, {
        method: 'POST',
        headers: { ...auth, 'content-type': 'application/json' },
        body: JSON.stringify({
          name: `lookup_${i}`,
          description: 'Looks up an order by its number and returns its status and delivery date.',
          endpoint: 'https://93.184.215.14/orders/lookup',
          category: 'ecommerce',
          parameters: [{ name: 'orderNumber', type: 'string', description: 'The order number, e.g. A-1042.', required: true }],
        }),
      });
      if (res.status !== 201) throw new Error(`could not create a tool: ${res.status} ${await res.text()}`);
    }
    const listBody = await (await fetch(`${server.url}/api/dev/tools`, { headers: auth })).text();

    // The list first: the token run adds thousands of rows that a read-only scenario should not pay for.
    const list = await load({ url: `${server.url}/api/dev/tools`, serverPid: server.pid, headers: auth });
    const listRss = memoryMb(server.pid).peak;
    const token = await load({
      url: `${server.url}/api/dev/oauth/token`,
      serverPid: server.pid,
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: tokenForm,
    });
    rows.push({ scenario: `POST /api/dev/oauth/token (${label})`, result: token, rssMb: memoryMb(server.pid).peak });
    rows.push({ scenario: `GET /api/dev/tools, 20 tools (${label})`, result: list, rssMb: listRss });

    const bare = await startChild('bench/bare-server.ts', { BARE_BODY: JSON.stringify({ access_token: 'svc_at_x', token_type: 'Bearer', expires_in: 3600, scope: 'tools:read' }) });
    const bareToken = await load({ url: `${bare.url}/token`, serverPid: bare.pid, method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
    await bare.stop();
    const bareList = await startChild('bench/bare-server.ts', { BARE_BODY: listBody });
    const bareListResult = await load({ url: `${bareList.url}/tools`, serverPid: bareList.pid });
    await bareList.stop();
    rows[0]!.baseline = bareToken;
    rows[1]!.baseline = bareListResult;
    rows.unshift({ scenario: 'bare Fastify, token-shaped JSON', result: bareToken }, { scenario: 'bare Fastify, tools-list JSON', result: bareListResult });
  } finally {
    await server.stop();
    await schema?.drop();
    rmSync(dataDir, { recursive: true, force: true });
  }
  return rows;
}
