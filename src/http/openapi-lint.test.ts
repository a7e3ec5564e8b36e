import { execFile } from 'node:child_process';
import { copyFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestContext } from '../../test/support/context.js';

/**
 * The API reference through the two linters API teams run: Redocly's `recommended` ruleset and Spectral's
 * `oas`, as redocly.yaml, .redocly.lint-ignore.yaml and .spectral.yaml in the repository root configure them
 * (each rule turned off or finding kept is there, with its reason). Any finding of either fails, listed.
 *
 * The linters are run as their CLIs (Redocly's is one bundle with no Node API of its own), with this
 * process's Node, side by side. The document is the one a deployment publishes: a PUBLIC_URL that is
 * neither localhost nor example.com (Redocly's no-server-example.com), served by the app in-process.
 */

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
/** Generous for a busy CI machine; on a quiet one both finish in a few seconds (docs/developer-api.md). */
const LINT_TIMEOUT_MS = 60_000;

/** The file a package's `bin` names, run with this process's Node (no shell, the same Node 20 or 24). */
function binOf(pkg: string, name: string): string {
  const manifest = createRequire(import.meta.url).resolve(`${pkg}/package.json`);
  const bin = (JSON.parse(readFileSync(manifest, 'utf8')) as { bin: Record<string, string> }).bin[name];
  if (bin === undefined) throw new Error(`${pkg} has no bin ${name}`);
  return join(dirname(manifest), bin);
}

/** A CLI's standard output; its exit code says only whether it found something, which the output says too. */
function run(script: string, args: string[], env: Record<string, string> = {}): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile(process.execPath, [script, ...args], { cwd: ROOT, timeout: LINT_TIMEOUT_MS, maxBuffer: 64 * 1024 * 1024, env: { ...process.env, ...env } }, (error, stdout, stderr) => {
      if (stdout.trim().startsWith('{') || stdout.trim().startsWith('[')) resolve(stdout);
      else reject(new Error(`${script} ${args.join(' ')}: ${error?.message ?? 'no output'}\n${stderr}`));
    });
  });
}

interface RedoclyProblem { ruleId: string; severity: string; message: string; location: { pointer?: string }[] }
interface SpectralResult { code: string; severity: number; message: string; path: string[] }
const SPECTRAL_SEVERITY = ['error', 'warning', 'info', 'hint'];

/** Redocly's findings, one line each: `redocly <severity> <rule> at <pointer>: <message>`. */
async function redocly(dir: string): Promise<string[]> {
  const out = await run(binOf('@redocly/cli', 'redocly'), ['lint', join(dir, 'openapi.json'), '--config', join(dir, 'redocly.yaml'), '--format', 'json'], {
    REDOCLY_TELEMETRY: 'off',
    REDOCLY_SUPPRESS_NOTIFICATIONS: 'true',
  });
  const { problems } = JSON.parse(out) as { problems: RedoclyProblem[] };
  return problems.filter((p) => p.severity !== 'off' && !('ignored' in p && p.ignored)).map((p) => `redocly ${p.severity} ${p.ruleId} at ${p.location[0]?.pointer ?? '#'}: ${p.message}`);
}

/** Spectral's findings, one line each, as Redocly's. */
async function spectral(dir: string): Promise<string[]> {
  const out = await run(binOf('@stoplight/spectral-cli', 'spectral'), ['lint', join(dir, 'openapi.json'), '--ruleset', join(ROOT, '.spectral.yaml'), '--format', 'json', '--quiet']);
  const results = JSON.parse(out) as SpectralResult[];
  return results.map((r) => `spectral ${SPECTRAL_SEVERITY[r.severity] ?? r.severity} ${r.code} at #/${r.path.map((key) => key.replaceAll('~', '~0').replaceAll('/', '~1')).join('/')}: ${r.message}`);
}

describe('the API reference, through Redocly\'s and Spectral\'s linters', () => {
  let dir: string;
  beforeAll(async () => {
    const t = await createTestContext('sqlite', { env: { PUBLIC_URL: 'https://switchboard.test' } });
    try {
      const res = await t.app.inject({ method: 'GET', url: '/openapi.json' });
      expect(res.statusCode).toBe(200);
      dir = mkdtempSync(join(tmpdir(), 'switchboard-openapi-lint-'));
      writeFileSync(join(dir, 'openapi.json'), res.body);
    } finally {
      await t.close();
    }
    // Redocly reads the ignore file beside its config, keyed by the document's path relative to it.
    for (const file of ['redocly.yaml', '.redocly.lint-ignore.yaml']) copyFileSync(join(ROOT, file), join(dir, file));
  });
  afterAll(() => {
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('has no finding either ruleset does not keep on purpose', async () => {
    const [fromRedocly, fromSpectral] = await Promise.all([redocly(dir), spectral(dir)]);
    expect([...fromRedocly, ...fromSpectral]).toEqual([]);
  }, LINT_TIMEOUT_MS + 10_000);
});
