import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { addressSequence, createBenchForm, fromNewAddress, load, memoryMb, mergeRuns, printGrid, startChild, type ChildServer, type LoadResult } from './lib.js';

/**
 * `npm run bench:pretenuring`: why the server turns V8's allocation-site pretenuring off (src/v8-flags.ts).
 * Starts BENCH_SERVERS (default 4) identical servers with V8's default (`--allocation-site-pretenuring`)
 * and as many as `npm start` runs them, seeds each with the benchmarks' form, and loads the public config
 * GET of each in turn for BENCH_ROUNDS (default 2) rounds of BENCH_SECONDS (default 4). Each process is
 * one row: with pretenuring, some processes land in the slow mode and stay there; without, none should.
 * Needs `npm run build` first (the script runs the compiled server, as `npm start` does).
 */

const PASSWORD = 'benchmark-password-1';
const count = Number(process.env.BENCH_SERVERS ?? 4);
const rounds = Number(process.env.BENCH_ROUNDS ?? 2);
const seconds = Number(process.env.BENCH_SECONDS ?? 4);

interface Server {
  label: string;
  child: ChildServer;
  dataDir: string;
  url: string;
  runs: LoadResult[];
  peakRssMb: number;
}

async function start(label: string, nodeArgs: string[], n: number): Promise<Server> {
  const dataDir = mkdtempSync(join(tmpdir(), 'switchboard-bench-pretenuring-'));
  const env = { DATA_DIR: dataDir, LOG_LEVEL: 'warn', NODE_ENV: 'development', TRUST_PROXY: '1' };
  const org = JSON.parse(
    execFileSync(process.execPath, ['dist/src/cli.js', 'org', 'create', '--name', 'Bench Dental', '--email', `bench-${n}@example.com`, '--json'], {
      env: { ...process.env, ...env, SWITCHBOARD_PASSWORD: PASSWORD },
      encoding: 'utf8',
    }),
  ) as { apiKey: string };
  const child = await startChild('dist/src/main.js', env, '/healthz', nodeArgs);
  await createBenchForm(child.url, org.apiKey, 'bench');
  return { label, child, dataDir, url: `${child.url}/api/public/forms/bench`, runs: [], peakRssMb: 0 };
}

const servers: Server[] = [];
const bare = await startChild('bench/bare-server.ts', { BARE_BODY: JSON.stringify({ success: true, data: { slug: 'bench', title: 'Book a visit' } }) });
const bareRuns: LoadResult[] = [];
const withNewAddress = fromNewAddress(addressSequence());
try {
  for (let i = 0; i < count; i++) {
    servers.push(await start('V8 default (pretenuring)', ['--allocation-site-pretenuring'], servers.length));
    servers.push(await start('as npm start (no pretenuring)', [], servers.length));
  }
  for (let round = 0; round < rounds; round++) {
    bareRuns.push(await load({ url: `${bare.url}/bare`, serverPid: bare.pid, seconds, setupRequest: withNewAddress }));
    for (const server of servers) {
      server.runs.push(await load({ url: server.url, serverPid: server.child.pid, seconds, setupRequest: withNewAddress }));
      server.peakRssMb = memoryMb(server.child.pid).peak;
    }
  }
} finally {
  await bare.stop();
  for (const server of servers) await server.child.stop();
  for (const server of servers) rmSync(server.dataDir, { recursive: true, force: true });
}

const bareResult = mergeRuns(bareRuns);
console.log(`\nGET /api/public/forms/{slug}, one process per row — ${new Date().toISOString()}, Node ${process.version}, 50 connections, ${rounds} × ${seconds} s each\n`);
console.log(`bare Fastify: ${bareResult.requestsPerSecond.toFixed(0)} req/s, ${bareResult.serverCpuUs?.toFixed(1)} µs/req\n`);
const rows = servers.map((server) => {
  const result = mergeRuns(server.runs);
  return [server.label, result.requestsPerSecond.toFixed(0), result.serverCpuUs?.toFixed(1) ?? '', `${(result.requestsPerSecond / bareResult.requestsPerSecond).toFixed(2)}×`, String(result.non2xx + result.errors), server.peakRssMb.toFixed(0)];
});
printGrid(['server', 'req/s', 'server µs/req', 'vs bare', 'non-2xx + errors', 'peak RSS MB'], rows.sort((a, b) => a[0]!.localeCompare(b[0]!)));
