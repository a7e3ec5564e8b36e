import { execFileSync, execSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { randomBase62 } from '../src/lib/ids.js';
import { addressSequence, createBenchForm, fromNewAddress, load, mergeRuns, printGrid, serverNodeArgs, startChild, type ChildServer, type LoadOptions, type LoadResult } from './lib.js';

/**
 * `npm run bench:compare -- <git ref>`: the public paths of this working tree against the same
 * paths of another commit, in the same run, so a refactor can show it costs nothing.
 *
 * The other commit is checked out into a throwaway worktree (sharing this node_modules) and built
 * there; both builds then run side by side as `npm start` runs them, each seeded through its own
 * CLI (`org create`, `developer create`, `app create`) and Operator API, so neither depends on the
 * other's internals. Every path is measured in alternating rounds (bare, base, this tree) after a
 * warm-up, so the shared machine's drift touches all three alike. The table gives each build's
 * throughput, the ratio to a bare Fastify server sending the config JSON, and this tree ÷ base in
 * throughput and in the server's CPU time per request (the steadier of the two on a shared machine).
 *
 * BENCH_SECONDS (default 12) is each path's measured time per build, split over BENCH_ROUNDS (default 4);
 * BENCH_PATHS=submit,config (comma-separated, matched in the path names) measures only those paths.
 */

interface Build {
  label: string;
  dir: string;
}

interface Seeded {
  server: ChildServer;
  slug: string;
  consentVersion: string;
  clientId: string;
  clientSecret: string;
  /** The hosted page's hashed stylesheet (`/assets/form.<hash>.css`), from the page itself. */
  stylesheet: string;
  dataDir: string;
}

const PASSWORD = 'benchmark-password-1';

function cli(build: Build, env: Record<string, string>, args: string[]): Record<string, unknown> {
  const out = execFileSync(process.execPath, [join(build.dir, 'dist/src/cli.js'), ...args, '--json'], {
    env: { ...process.env, ...env, SWITCHBOARD_PASSWORD: PASSWORD },
    encoding: 'utf8',
  });
  return JSON.parse(out) as Record<string, unknown>;
}

async function seed(build: Build): Promise<Seeded> {
  const dataDir = mkdtempSync(join(tmpdir(), 'switchboard-bench-compare-'));
  const env = { DATA_DIR: dataDir, LOG_LEVEL: 'warn', NODE_ENV: 'development', TRUST_PROXY: '1' };
  const tag = randomBase62(6).toLowerCase();
  const org = cli(build, env, ['org', 'create', '--name', 'Bench Dental', '--email', `bench-${tag}@example.com`]);
  const developerEmail = `dev-${tag}@example.com`;
  cli(build, env, ['developer', 'create', '--email', developerEmail, '--name', 'Bench Developer']);
  const app = cli(build, env, ['app', 'create', '--developer', developerEmail, '--name', 'Bench app']);
  // Both builds without V8's allocation-site pretenuring, which puts a random half of server processes in a
  // mode twice as slow (src/v8-flags.ts): a build from before that file would otherwise be measured in a lottery.
  const server = await startChild(join(build.dir, 'dist/src/main.js'), env, '/healthz', ['--no-allocation-site-pretenuring', ...serverNodeArgs()]);
  const slug = `bench-${tag}`;
  await createBenchForm(server.url, String(org.apiKey), slug);
  const config = (await (await fetch(`${server.url}/api/public/forms/${slug}`, { headers: { 'x-forwarded-for': '192.0.2.1' } })).json()) as { data: { consentVersion: string } };
  const page = await (await fetch(`${server.url}/f/${slug}`, { headers: { 'x-forwarded-for': '192.0.2.1' } })).text();
  const stylesheet = /href="(\/assets\/form\.[0-9a-f]{12}\.css)"/.exec(page)?.[1];
  if (!stylesheet) throw new Error(`${build.label}: the hosted page names no stylesheet`);
  return { server, slug, stylesheet, consentVersion: config.data.consentVersion, clientId: String(app.clientId), clientSecret: String(app.clientSecret), dataDir };
}

interface Path {
  name: string;
  /** The load for one build (its seeded server); the bare server gets GET of its one body. */
  options(target: Seeded): Omit<LoadOptions, 'seconds' | 'serverPid'>;
}

const nextAddress = addressSequence();
const withNewAddress = fromNewAddress(nextAddress);

function paths(): Path[] {
  let person = 0;
  return [
    { name: 'GET /api/public/forms/{slug}', options: (t) => ({ url: `${t.server.url}/api/public/forms/${t.slug}`, setupRequest: withNewAddress }) },
    { name: 'GET /f/{slug}', options: (t) => ({ url: `${t.server.url}/f/${t.slug}`, setupRequest: withNewAddress }) },
    { name: 'GET /form-embed.js', options: (t) => ({ url: `${t.server.url}/form-embed.js`, setupRequest: withNewAddress }) },
    { name: 'GET /form-embed.js, gzip', options: (t) => ({ url: `${t.server.url}/form-embed.js`, headers: { 'accept-encoding': 'gzip' }, setupRequest: withNewAddress }) },
    { name: 'GET /assets/form.<hash>.css, gzip', options: (t) => ({ url: `${t.server.url}${t.stylesheet}`, headers: { 'accept-encoding': 'gzip' }, setupRequest: withNewAddress }) },
    { name: 'GET /app/ (console)', options: (t) => ({ url: `${t.server.url}/app/`, setupRequest: withNewAddress }) },
    {
      name: 'POST …/submit (new contact)',
      options: (t) => ({
        url: `${t.server.url}/api/public/forms/${t.slug}/submit`,
        method: 'POST',
        setupRequest: (request) => {
          person++;
          return {
            ...request,
            headers: { 'content-type': 'application/json', 'x-forwarded-for': nextAddress() },
            body: JSON.stringify({ consentVersion: t.consentVersion, name: `Visitor ${person}`, email: `visitor-${person}@example.com`, message: 'A check-up next week, please.' }),
          };
        },
      }),
    },
    {
      name: 'POST /api/dev/oauth/token',
      options: (t) => ({
        url: `${t.server.url}/api/dev/oauth/token`,
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ grant_type: 'client_credentials', client_id: t.clientId, client_secret: t.clientSecret }).toString(),
      }),
    },
  ];
}

function prepareBase(ref: string): Build {
  const sha = execSync(`git rev-parse --verify ${JSON.stringify(`${ref}^{commit}`)}`, { encoding: 'utf8' }).trim();
  const dir = join(tmpdir(), `switchboard-bench-base-${sha.slice(0, 12)}`);
  if (!existsSync(dir)) {
    execSync(`git worktree add --detach ${dir} ${sha}`, { stdio: 'inherit' });
    symlinkSync(resolve('node_modules'), join(dir, 'node_modules'));
  }
  execSync('npm run -s build', { cwd: dir, stdio: 'inherit' });
  return { label: `base ${sha.slice(0, 7)}`, dir };
}

const ref = process.argv[2];
if (!ref) {
  console.error('usage: npm run bench:compare -- <git ref>   (e.g. main, HEAD~3, a commit id)');
  process.exit(2);
}
const base = prepareBase(ref);
execSync('npm run -s build', { stdio: 'inherit' });
const head: Build = { label: 'this tree', dir: resolve('.') };

const seconds = Number(process.env.BENCH_SECONDS ?? 12);
const rounds = Number(process.env.BENCH_ROUNDS ?? 4);
const targets = [await seed(base), await seed(head)];
const bare = await startChild('bench/bare-server.ts', { BARE_BODY: JSON.stringify({ success: true, data: { slug: 'bench', title: 'Book a visit' } }) });

interface Line {
  path: string;
  bare: LoadResult;
  base: LoadResult;
  head: LoadResult;
}
const lines: Line[] = [];
try {
  const only = (process.env.BENCH_PATHS ?? '').split(',').filter(Boolean);
  for (const path of paths().filter((p) => only.length === 0 || only.some((word) => p.name.includes(word)))) {
    const run = (target: Seeded, length: number) => load({ ...path.options(target), serverPid: target.server.pid, seconds: length });
    const runBare = (length: number) => load({ url: `${bare.url}/bare`, serverPid: bare.pid, seconds: length, setupRequest: withNewAddress });
    await runBare(1);
    for (const target of targets) await run(target, 2);
    const runs: [LoadResult[], LoadResult[], LoadResult[]] = [[], [], []];
    for (let round = 0; round < rounds; round++) {
      // The order turns each round, so neither build always runs right after the other.
      const order = round % 2 === 0 ? [0, 1] : [1, 0];
      runs[0].push(await runBare(seconds / rounds));
      for (const i of order) runs[i + 1]!.push(await run(targets[i]!, seconds / rounds));
    }
    const [bareRuns, baseRuns, headRuns] = runs.map(mergeRuns) as [LoadResult, LoadResult, LoadResult];
    lines.push({ path: path.name, bare: bareRuns, base: baseRuns, head: headRuns });
    console.error(`${path.name}: base ${baseRuns.requestsPerSecond.toFixed(0)}/s, this tree ${headRuns.requestsPerSecond.toFixed(0)}/s`);
  }
} finally {
  await bare.stop();
  for (const target of targets) {
    await target.server.stop();
    rmSync(target.dataDir, { recursive: true, force: true });
  }
}

console.log(`\nSwitchboard ${base.label} vs this tree — ${new Date().toISOString()}, Node ${process.version}, 50 connections, ${seconds} s per path and build in ${rounds} alternating rounds\n`);
const header = ['path', 'base req/s', 'tree req/s', 'base p99', 'tree p99', 'base µs/req', 'tree µs/req', 'base vs bare', 'tree vs bare', 'req/s tree ÷ base', 'CPU tree ÷ base'];
const rows = lines.map((l) => [
  l.path,
  l.base.requestsPerSecond.toFixed(0),
  l.head.requestsPerSecond.toFixed(0),
  l.base.p99.toFixed(1),
  l.head.p99.toFixed(1),
  l.base.serverCpuUs?.toFixed(1) ?? '',
  l.head.serverCpuUs?.toFixed(1) ?? '',
  `${(l.base.requestsPerSecond / l.bare.requestsPerSecond).toFixed(2)}×`,
  `${(l.head.requestsPerSecond / l.bare.requestsPerSecond).toFixed(2)}×`,
  (l.head.requestsPerSecond / l.base.requestsPerSecond).toFixed(3),
  l.head.serverCpuUs && l.base.serverCpuUs ? (l.head.serverCpuUs / l.base.serverCpuUs).toFixed(3) : '',
]);
printGrid(header, rows);
const refused = lines.filter((l) => l.base.non2xx + l.base.errors + l.head.non2xx + l.head.errors > 0);
for (const l of refused) console.log(`warning: ${l.path} had non-2xx answers or errors (base ${l.base.non2xx}/${l.base.errors}, this tree ${l.head.non2xx}/${l.head.errors})`);
