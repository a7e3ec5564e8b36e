import { spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from './net.js';

/**
 * A PostgreSQL server of a test's own, on loopback, that the test may stop, start and pause
 * (the shared TEST_DATABASE_URL server is never touched). Started as scripts/with-services.mjs
 * starts its own: initdb + pg_ctl, as the `postgres` user through runuser when we are root
 * (PostgreSQL refuses to run as root).
 */
export interface PgCluster {
  url: string;
  /** `pg_ctl stop -m fast`: every connection is terminated, new ones are refused. */
  stop(): void;
  /** `pg_ctl start`, waiting until it accepts connections. */
  start(): void;
  /** SIGSTOP (true) or SIGCONT (false) to the postmaster and every backend: the server stops answering, connections stay open. */
  pause(paused: boolean): void;
  /** Runs `sql` with psql; returns its output (unaligned, no headers). */
  psql(sql: string): string;
  /** Stops it for good and deletes its files. */
  destroy(): void;
}

function pgBin(name: string): string | undefined {
  const root = '/usr/lib/postgresql';
  if (!existsSync(root)) return undefined;
  for (const version of readdirSync(root).sort((a, b) => Number(b) - Number(a))) {
    const path = join(root, version, 'bin', name);
    if (existsSync(path)) return path;
  }
  return undefined;
}

/** Whether the PostgreSQL server binaries are installed (Debian's layout). */
export function hasPostgresBinaries(): boolean {
  return ['initdb', 'pg_ctl', 'psql'].every((name) => pgBin(name) !== undefined);
}

const isRoot = process.getuid?.() === 0;

function run(bin: string, argv: string[]): string {
  const path = pgBin(bin);
  if (!path) throw new Error(`${bin} is not installed`);
  const result = isRoot ? spawnSync('runuser', ['-u', 'postgres', '--', path, ...argv], { encoding: 'utf8' }) : spawnSync(path, argv, { encoding: 'utf8' });
  if (result.status !== 0) throw new Error(`${bin} ${argv.join(' ')} failed: ${result.stderr || result.stdout}`);
  return result.stdout;
}

/** The postmaster's pid and its children's (the backends and background workers). */
function serverPids(data: string): number[] {
  const postmaster = Number(readFileSync(join(data, 'postmaster.pid'), 'utf8').split('\n')[0]);
  const children = readdirSync('/proc')
    .filter((entry) => /^\d+$/.test(entry))
    .filter((pid) => {
      try {
        // The fourth field of /proc/<pid>/stat is the parent pid (the name in parentheses may contain spaces).
        const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
        return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]) === postmaster;
      } catch {
        return false;
      }
    })
    .map(Number);
  return [postmaster, ...children];
}

export async function startPgCluster(): Promise<PgCluster> {
  const dir = mkdtempSync(join(tmpdir(), 'switchboard-pg-fault-'));
  chmodSync(dir, 0o777);
  const data = join(dir, 'data');
  const port = await freePort();
  run('initdb', ['-D', data, '-A', 'trust', '-U', 'postgres', '--no-sync', '-E', 'UTF8']);
  const start = () =>
    void run('pg_ctl', ['-D', data, '-l', join(dir, 'log'), '-w', '-o', `-c listen_addresses=127.0.0.1 -p ${port} -k ${dir} -c fsync=off -c full_page_writes=off -c max_connections=100`, 'start']);
  start();
  const url = `postgres://postgres@127.0.0.1:${port}/postgres`;
  let paused = false;
  return {
    url,
    stop: () => void run('pg_ctl', ['-D', data, '-m', 'fast', '-w', 'stop']),
    start,
    pause: (pause) => {
      for (const pid of serverPids(data)) {
        try {
          process.kill(pid, pause ? 'SIGSTOP' : 'SIGCONT');
        } catch {
          // A backend that ended meanwhile.
        }
      }
      paused = pause;
    },
    psql: (sql) => run('psql', ['-h', '127.0.0.1', '-p', String(port), '-U', 'postgres', '-d', 'postgres', '-X', '-A', '-t', '-v', 'ON_ERROR_STOP=1', '-c', sql]),
    destroy: () => {
      if (paused) for (const pid of serverPids(data)) process.kill(pid, 'SIGCONT');
      try {
        run('pg_ctl', ['-D', data, '-m', 'immediate', '-w', 'stop']);
      } catch {
        // Already stopped.
      }
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
