#!/usr/bin/env node
// Runs a command with throwaway PostgreSQL and Redis servers on loopback, then stops them.
// Sets TEST_DATABASE_URL, TEST_REDIS_URL and TEST_BROWSER (when Chromium is installed).
// PostgreSQL refuses to run as root, so as root the server runs as the `postgres` user.
import { spawn, spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const [command, ...args] = process.argv.slice(2);
if (!command) {
  console.error('usage: with-services.mjs <command> [args…]');
  process.exit(2);
}

// The same as test/support/net.ts freePort: this script runs on plain Node, which cannot import TypeScript.
function freePort() {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
    server.on('error', reject);
  });
}

function pgBin(name) {
  const root = '/usr/lib/postgresql';
  if (existsSync(root)) {
    const versions = readdirSync(root).sort((a, b) => Number(b) - Number(a));
    for (const v of versions) {
      const path = join(root, v, 'bin', name);
      if (existsSync(path)) return path;
    }
  }
  return name;
}

const isRoot = process.getuid?.() === 0;
function runAsPostgres(bin, argv) {
  const result = isRoot
    ? spawnSync('runuser', ['-u', 'postgres', '--', bin, ...argv], { stdio: 'inherit' })
    : spawnSync(bin, argv, { stdio: 'inherit' });
  if (result.status !== 0) throw new Error(`${bin} ${argv.join(' ')} failed`);
}

const cleanups = [];
function cleanup() {
  while (cleanups.length) {
    try {
      cleanups.pop()();
    } catch (error) {
      console.error(String(error));
    }
  }
}

async function startPostgres() {
  const dir = mkdtempSync(join(tmpdir(), 'switchboard-pg-'));
  chmodSync(dir, 0o777);
  const data = join(dir, 'data');
  const port = await freePort();
  runAsPostgres(pgBin('initdb'), ['-D', data, '-A', 'trust', '-U', 'postgres', '--no-sync', '-E', 'UTF8']);
  runAsPostgres(pgBin('pg_ctl'), [
    '-D', data, '-l', join(dir, 'log'), '-w', '-o',
    `-c listen_addresses=127.0.0.1 -p ${port} -k ${dir} -c fsync=off -c synchronous_commit=off -c full_page_writes=off -c max_connections=300`,
    'start',
  ]);
  cleanups.push(() => {
    runAsPostgres(pgBin('pg_ctl'), ['-D', data, '-m', 'immediate', 'stop']);
    rmSync(dir, { recursive: true, force: true });
  });
  return `postgres://postgres@127.0.0.1:${port}/postgres`;
}

async function startRedis() {
  const port = await freePort();
  const child = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], { stdio: 'ignore' });
  cleanups.push(() => child.kill('SIGTERM'));
  // Wait until it accepts connections.
  for (let i = 0; i < 50; i++) {
    const ok = spawnSync('redis-cli', ['-p', String(port), 'ping'], { encoding: 'utf8' }).stdout?.trim() === 'PONG';
    if (ok) return `redis://127.0.0.1:${port}`;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error('redis-server did not start');
}

process.on('SIGINT', () => { cleanup(); process.exit(130); });
process.on('SIGTERM', () => { cleanup(); process.exit(143); });

let code = 1;
try {
  const env = { ...process.env };
  env.TEST_DATABASE_URL = await startPostgres();
  env.TEST_REDIS_URL = await startRedis();
  if (existsSync('/usr/bin/chromium')) env.TEST_BROWSER = '1';
  console.log(`with-services: PostgreSQL ${env.TEST_DATABASE_URL}, Redis ${env.TEST_REDIS_URL}, browser ${env.TEST_BROWSER ? 'on' : 'off'}`);
  const result = spawnSync(command, args, { stdio: 'inherit', env, shell: false });
  code = result.status ?? 1;
} catch (error) {
  console.error(`with-services: ${error instanceof Error ? error.message : String(error)}`);
} finally {
  cleanup();
}
process.exit(code);
