import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import { loadConfig } from '../src/config.js';
import { openDatabase } from '../src/db/database.js';
import { migrateToLatest } from '../src/db/migrate.js';
import { randomBase62 } from '../src/lib/ids.js';
import { createServices } from '../src/services.js';
import { addressSequence, createBenchForm, fromNewAddress, load, startChild, startSwitchboard } from './lib.js';

/**
 * `npx tsx bench/profile-config.ts <dir>` (after `npm run build`): the public config GET and a bare Fastify server
 * sending the same JSON, each in its own process under `--cpu-prof`, loaded alike (a new X-Forwarded-For per
 * request) for BENCH_SECONDS (default 10); the two .cpuprofile files land in <dir>/switchboard and <dir>/bare.
 * BENCH_PROFILE_PATH=/f picks the hosted page instead. Read them with bench/profile-top.ts.
 */
const dir = process.argv[2] ?? '/tmp/profile-config';
const seconds = Number(process.env.BENCH_SECONDS ?? 10);
const pagePath = process.env.BENCH_PROFILE_PATH === '/f';
const dataDir = mkdtempSync(join(tmpdir(), 'switchboard-profile-'));
const env: Record<string, string> = { DATA_DIR: dataDir, LOG_LEVEL: 'warn', NODE_ENV: 'development', TRUST_PROXY: '1' };
const database = openDatabase({ dataDir });
await migrateToLatest(database.db);
const services = await createServices(loadConfig(env), { database, log: pino({ level: 'silent' }), redis: false, mailer: null });
const org = await services.orgs.createOrganization({ name: 'Profile Dental', email: `profile-${randomBase62(8).toLowerCase()}@example.com`, password: 'benchmark-password' });
await services.close();
await database.close();

const prof = (name: string) => ['--cpu-prof', `--cpu-prof-dir=${join(dir, name)}`];
process.env.BENCH_SERVER_NODE_ARGS = prof('switchboard').join(' ');
const serverStarted = performance.now();
const server = await startSwitchboard(env);
const slug = `profile-${randomBase62(8).toLowerCase()}`;
await createBenchForm(server.url, org.apiKey.key, slug);
const url = `${server.url}${pagePath ? `/f/${slug}` : `/api/public/forms/${slug}`}`;
const body = await (await fetch(url, { headers: { 'x-forwarded-for': '192.0.2.1' } })).text();
const bareStarted = performance.now();
const bare = await startChild('bench/bare-server.ts', pagePath ? { BARE_BODY: body, BARE_CONTENT_TYPE: 'text/html; charset=utf-8' } : { BARE_BODY: body }, '/healthz', prof('bare'));
const withNewAddress = fromNewAddress(addressSequence());
const bareUrl = `${bare.url}${new URL(url).pathname}`;
await load({ url: bareUrl, serverPid: bare.pid, seconds: 2, setupRequest: withNewAddress });
await load({ url, serverPid: server.pid, seconds: 2, setupRequest: withNewAddress });
// Where the measured rounds start in each profile (a little late: a process starts before it is spawned's promise resolves).
console.log(`measured from ${(performance.now() - serverStarted).toFixed(0)} ms (switchboard), ${(performance.now() - bareStarted).toFixed(0)} ms (bare)`);
const served = { bare: 0, switchboard: 0 };
for (let round = 0; round < 2; round++) {
  const b = await load({ url: bareUrl, serverPid: bare.pid, seconds: seconds / 2, setupRequest: withNewAddress });
  const s = await load({ url, serverPid: server.pid, seconds: seconds / 2, setupRequest: withNewAddress });
  served.bare += b.total;
  served.switchboard += s.total;
  console.log(`round ${round}: bare ${b.requestsPerSecond.toFixed(0)}/s ${b.serverCpuUs?.toFixed(1)} µs, switchboard ${s.requestsPerSecond.toFixed(0)}/s ${s.serverCpuUs?.toFixed(1)} µs, ${(s.requestsPerSecond / b.requestsPerSecond).toFixed(3)}×`);
}
console.log(`requests: switchboard ${served.switchboard}, bare ${served.bare}`);
await bare.stop();
await server.stop();
rmSync(dataDir, { recursive: true, force: true });
for (const name of ['switchboard', 'bare']) console.log(name, readdirSync(join(dir, name)).map((f) => join(dir, name, f)).join(' '));
