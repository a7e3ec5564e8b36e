import { spawn, type ChildProcess } from 'node:child_process';
import { openSync, readFileSync } from 'node:fs';
import autocannon from 'autocannon';
import pg from 'pg';
import { Pool } from 'undici';
import { randomBase62 } from '../src/lib/ids.js';
import { freePort } from '../test/support/net.js';

/** Shared pieces of the benchmarks: child-process servers, autocannon runs, memory readings, the table. */

export interface ChildServer {
  url: string;
  pid: number;
  stop(): Promise<void>;
}

/**
 * Starts a server script in its own process (a `.ts` one through tsx) and waits until
 * GET <readyPath> answers.
 */
export async function startChild(script: string, env: Record<string, string>, readyPath = '/healthz', nodeArgs: string[] = []): Promise<ChildServer> {
  const port = await freePort();
  const args = [...nodeArgs, ...(script.endsWith('.ts') ? ['--import', 'tsx', script] : [script])];
  const child: ChildProcess = spawn(process.execPath, args, {
    env: { ...process.env, ...env, PORT: String(port), HOST: '127.0.0.1' },
    // BENCH_SERVER_STDOUT=<file> keeps what the server prints (with --trace-gc, say).
    stdio: ['ignore', process.env.BENCH_SERVER_STDOUT ? openSync(process.env.BENCH_SERVER_STDOUT, 'a') : 'ignore', 'inherit'],
  });
  const url = `http://127.0.0.1:${port}`;
  // BENCH_READY_SECONDS: longer on a machine busy enough that a server takes more than 30 s to start.
  const deadline = Date.now() + Number(process.env.BENCH_READY_SECONDS ?? 30) * 1000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`${script} exited with ${child.exitCode}`);
    try {
      const res = await fetch(url + readyPath);
      if (res.ok) break;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`${script} did not become ready`);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  return {
    url,
    pid: child.pid ?? 0,
    stop: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
        setTimeout(() => child.kill('SIGKILL'), 5000).unref();
      }),
  };
}

/** Switchboard exactly as `npm start` runs it: the compiled build (`npm run bench` builds first). */
export function startSwitchboard(env: Record<string, string>): Promise<ChildServer> {
  return startChild('dist/src/main.js', env, '/healthz', serverNodeArgs());
}

/**
 * BENCH_SERVER_NODE_ARGS="--cpu-prof --cpu-prof-dir=/tmp/prof" profiles the Switchboard servers under load;
 * "--trace-gc" with BENCH_SERVER_STDOUT=/tmp/gc.log shows their garbage collections.
 */
export function serverNodeArgs(): string[] {
  return (process.env.BENCH_SERVER_NODE_ARGS ?? '').split(' ').filter(Boolean);
}

/** 10.0.0.1, 10.0.0.2, …: a new client address for every request, so per-address limits never refuse one. */
export function addressSequence(): () => string {
  let n = 0;
  return () => {
    n++;
    return `10.${(n >> 16) & 255}.${(n >> 8) & 255}.${n & 255}`;
  };
}

/** An autocannon request builder that sends each request from the next address of `next`. */
export function fromNewAddress(next: () => string) {
  return (request: { headers?: Record<string, string> }) => ({ ...request, headers: { ...request.headers, 'x-forwarded-for': next() } });
}

/**
 * The benchmarks' form (name, email, message, an opportunity per submission), created through the
 * Operator API with an org API key.
 */
export async function createBenchForm(serverUrl: string, apiKey: string, slug: string): Promise<void> {
  const created = await fetch(`${serverUrl}/api/org/forms`, {
    method: 'POST',
    headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' },
    body: JSON.stringify({
      slug,
      title: 'Book a visit',
      consentText: 'I agree that Bench Dental may contact me about my request.',
      fields: { name: { enabled: true, required: true }, email: { enabled: true, required: true }, message: { enabled: true, required: false } },
      createOpportunity: true,
    }),
  });
  if (created.status !== 201) throw new Error(`could not create the form at ${serverUrl}: ${created.status} ${await created.text()}`);
}

/** Resident and peak resident memory of a process, in MB (Linux). */
export function memoryMb(pid: number): { rss: number; peak: number } {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    const kb = (field: string) => Number(new RegExp(`${field}:\\s+(\\d+)`).exec(status)?.[1] ?? 0);
    return { rss: kb('VmRSS') / 1024, peak: kb('VmHWM') / 1024 };
  } catch {
    return { rss: 0, peak: 0 };
  }
}

export interface LoadOptions {
  url: string;
  /** The server's process id: its CPU time per request is reported. */
  serverPid?: number;
  method?: 'GET' | 'POST';
  headers?: Record<string, string>;
  body?: string;
  connections?: number;
  seconds?: number;
  /** Passed to tls.connect for an https URL (a test CA, the server name). */
  tlsOptions?: Record<string, unknown>;
  /** Builds each request, for per-request bodies or client IPs. */
  setupRequest?: (request: { method?: string; path?: string; headers?: Record<string, string>; body?: string | Buffer }) => typeof request;
}

export interface LoadResult {
  requestsPerSecond: number;
  p50: number;
  p99: number;
  total: number;
  errors: number;
  non2xx: number;
  /** CPU time per request of the server process (µs), when its pid was given. */
  serverCpuUs?: number;
  /** CPU time per request of this process, the load generator (µs). */
  loadCpuUs: number;
}

/** User + system CPU time of a process so far, in µs (Linux: /proc/<pid>/stat, clock ticks of 10 ms). */
export function processCpuUs(pid: number): number {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.split(' ') ?? [];
    // utime and stime are fields 14 and 15 of the file, 12 and 13 after the command name.
    return (Number(fields[11]) + Number(fields[12])) * 10_000;
  } catch {
    return Number.NaN;
  }
}

/** A bounded autocannon run (default 10 s). */
export async function load(options: LoadOptions): Promise<LoadResult> {
  const serverCpuBefore = options.serverPid ? processCpuUs(options.serverPid) : Number.NaN;
  const loadCpuBefore = process.cpuUsage();
  const result = await autocannon({
    url: options.url,
    method: options.method ?? 'GET',
    headers: options.headers ?? {},
    ...(options.body !== undefined ? { body: options.body } : {}),
    ...(options.tlsOptions ? { tlsOptions: options.tlsOptions } : {}),
    connections: options.connections ?? 50,
    duration: options.seconds ?? Number(process.env.BENCH_SECONDS ?? 10),
    ...(options.setupRequest ? { requests: [{ setupRequest: options.setupRequest as never }] } : {}),
  });
  const loadCpu = process.cpuUsage(loadCpuBefore);
  const serverCpu = options.serverPid ? processCpuUs(options.serverPid) - serverCpuBefore : Number.NaN;
  const total = Math.max(1, result.requests.total);
  return {
    ...(Number.isFinite(serverCpu) ? { serverCpuUs: serverCpu / total } : {}),
    loadCpuUs: (loadCpu.user + loadCpu.system) / total,
    // Over the run's actual length: autocannon's own average is of whole-second samples.
    requestsPerSecond: result.requests.total / result.duration,
    p50: result.latency.p50,
    p99: result.latency.p99,
    total: result.requests.total,
    errors: result.errors + result.timeouts,
    non2xx: result.non2xx,
  };
}

/**
 * Several runs of one scenario as one result: throughput and CPU over all of them,
 * the median of their medians and, conservatively, the worst of their p99s.
 */
export function mergeRuns(runs: LoadResult[]): LoadResult {
  const total = runs.reduce((sum, run) => sum + run.total, 0);
  const seconds = runs.reduce((sum, run) => sum + run.total / run.requestsPerSecond, 0);
  const weighted = (value: (run: LoadResult) => number | undefined) =>
    runs.every((run) => value(run) !== undefined) ? runs.reduce((sum, run) => sum + (value(run) ?? 0) * run.total, 0) / total : undefined;
  const p50s = runs.map((run) => run.p50).sort((a, b) => a - b);
  const serverCpuUs = weighted((run) => run.serverCpuUs);
  return {
    requestsPerSecond: total / seconds,
    p50: p50s[Math.floor(p50s.length / 2)] ?? 0,
    p99: Math.max(...runs.map((run) => run.p99)),
    total,
    errors: runs.reduce((sum, run) => sum + run.errors, 0),
    non2xx: runs.reduce((sum, run) => sum + run.non2xx, 0),
    ...(serverCpuUs === undefined ? {} : { serverCpuUs }),
    loadCpuUs: weighted((run) => run.loadCpuUs) ?? 0,
  };
}

/** Latency of one call at a time (no queueing), in ms with sub-millisecond precision. */
export interface SequentialResult {
  p50: number;
  p99: number;
  calls: number;
}

/**
 * `calls` requests one after another over one keep-alive connection, after a warm-up: what a
 * call costs in time when nothing waits in a queue (autocannon's percentiles are whole ms).
 */
export async function sequentialLatency(options: { url: string; method: 'POST'; headers: Record<string, string>; body: string; ca?: string; calls?: number }): Promise<SequentialResult> {
  const url = new URL(options.url);
  const pool = new Pool(url.origin, { connections: 1, ...(options.ca ? { connect: { ca: [options.ca] } } : {}) });
  const once = async () => {
    const response = await pool.request({ path: url.pathname, method: options.method, headers: options.headers, body: options.body });
    await response.body.arrayBuffer();
    if (response.statusCode >= 300) throw new Error(`${options.url} answered ${response.statusCode}`);
  };
  try {
    for (let i = 0; i < 200; i++) await once();
    const calls = options.calls ?? 2000;
    const times: number[] = [];
    for (let i = 0; i < calls; i++) {
      const started = performance.now();
      await once();
      times.push(performance.now() - started);
    }
    times.sort((a, b) => a - b);
    const at = (p: number) => times[Math.min(times.length - 1, Math.ceil(p * times.length) - 1)]!;
    return { p50: at(0.5), p99: at(0.99), calls };
  } finally {
    await pool.close();
  }
}

/**
 * Like `sequentialLatency` for several requests at once, interleaved: each round sends every request once, one
 * after another (each over its own keep-alive connection, the order turned every round), so a busy moment on a
 * shared machine touches them all alike. Results in the order of `requests`.
 */
export async function interleavedLatency(requests: Array<{ url: string; method: 'POST'; headers: Record<string, string>; body: string; ca?: string }>, calls = 2000): Promise<SequentialResult[]> {
  const senders = requests.map((options) => {
    const url = new URL(options.url);
    const pool = new Pool(url.origin, { connections: 1, ...(options.ca ? { connect: { ca: [options.ca] } } : {}) });
    const once = async () => {
      const response = await pool.request({ path: url.pathname, method: options.method, headers: options.headers, body: options.body });
      await response.body.arrayBuffer();
      if (response.statusCode >= 300) throw new Error(`${options.url} answered ${response.statusCode}`);
    };
    return { pool, once, times: [] as number[] };
  });
  try {
    for (let i = 0; i < 200; i++) for (const sender of senders) await sender.once();
    for (let i = 0; i < calls; i++) {
      for (const sender of i % 2 === 0 ? senders : [...senders].reverse()) {
        const started = performance.now();
        await sender.once();
        sender.times.push(performance.now() - started);
      }
    }
    return senders.map(({ times }) => {
      times.sort((a, b) => a - b);
      const at = (p: number) => times[Math.min(times.length - 1, Math.ceil(p * times.length) - 1)]!;
      return { p50: at(0.5), p99: at(0.99), calls };
    });
  } finally {
    await Promise.all(senders.map(({ pool }) => pool.close()));
  }
}

export interface Row {
  scenario: string;
  result: LoadResult;
  rssMb?: number;
  baseline?: LoadResult;
  goal?: string;
}

export function printTable(rows: Row[]): void {
  const header = ['scenario', 'req/s', 'p50 ms', 'p99 ms', 'non-2xx', 'errors', 'RSS MB', 'server µs/req', 'load µs/req', 'vs bare', 'goal'];
  const lines = rows.map((row) => [
    row.scenario,
    row.result.requestsPerSecond.toFixed(0),
    // Not a latency measurement (a drain rate, say): a dash.
    Number.isFinite(row.result.p50) ? row.result.p50.toFixed(1) : '—',
    Number.isFinite(row.result.p99) ? row.result.p99.toFixed(1) : '—',
    String(row.result.non2xx),
    String(row.result.errors),
    row.rssMb === undefined ? '' : row.rssMb.toFixed(0),
    row.result.serverCpuUs === undefined ? '' : row.result.serverCpuUs.toFixed(0),
    row.result.loadCpuUs.toFixed(0),
    row.baseline ? `${(row.result.requestsPerSecond / row.baseline.requestsPerSecond).toFixed(2)}×` : '',
    row.goal ?? '',
  ]);
  printGrid(header, lines);
}

/** A Markdown table of text cells, columns padded to their widest cell. */
export function printGrid(header: string[], lines: string[][]): void {
  const widths = header.map((h, i) => Math.max(h.length, ...lines.map((l) => (l[i] ?? '').length)));
  const fmt = (cells: string[]) => `| ${cells.map((c, i) => c.padEnd(widths[i] ?? 0)).join(' | ')} |`;
  console.log(fmt(header));
  console.log(`|${widths.map((w) => '-'.repeat(w + 2)).join('|')}|`);
  for (const line of lines) console.log(fmt(line));
}

/** A fresh PostgreSQL schema, so the benchmark never touches real data. */
export async function throwawaySchema(url: string): Promise<{ url: string; drop(): Promise<void> }> {
  const schema = `bench_${randomBase62(10).toLowerCase()}`;
  const admin = new pg.Client({ connectionString: url });
  await admin.connect();
  await admin.query(`create schema ${schema}`);
  await admin.end();
  const scoped = new URL(url);
  scoped.searchParams.set('options', `-c search_path=${schema}`);
  return {
    url: scoped.toString(),
    drop: async () => {
      const cleanup = new pg.Client({ connectionString: url });
      await cleanup.connect();
      await cleanup.query(`drop schema ${schema} cascade`);
      await cleanup.end();
    },
  };
}

