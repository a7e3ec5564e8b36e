import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

/**
 * The console's production build (web/console, Vite): what the server serves under /app must hold under
 * the console's CSP (script-src 'self'; style-src 'self'), and the first page stays under its budget of
 * gzipped JavaScript (scripts/console-size.mjs, the figure `npm run build` prints; docs/benchmarks.md).
 */
const root = resolve(import.meta.dirname, '..');
let outdir: string;

beforeAll(() => {
  outdir = mkdtempSync(join(tmpdir(), 'svc-console-'));
  execFileSync(process.execPath, [join(root, 'node_modules/vite/bin/vite.js'), 'build', '--config', join(root, 'web/console/vite.config.ts'), '--outDir', outdir, '--logLevel', 'error'], {
    stdio: 'inherit',
    cwd: root,
    // vitest sets NODE_ENV=test, which would give React's development build.
    env: { ...process.env, NODE_ENV: 'production' },
  });
}, 120_000);

afterAll(() => rmSync(outdir, { recursive: true, force: true }));

describe('the built console', () => {
  it('loads its script and stylesheet from hashed files under /app/assets/, nothing inline', () => {
    const html = readFileSync(join(outdir, 'index.html'), 'utf8');
    const scripts = [...html.matchAll(/<script\b[^>]*>([\s\S]*?)<\/script>/g)];
    expect(scripts.length).toBe(1);
    for (const [tag, body] of scripts) {
      expect(tag).toMatch(/src="\/app\/assets\/index-[\w-]+\.js"/);
      expect(body!.trim()).toBe('');
    }
    expect(html).not.toMatch(/<style\b|\sstyle=|\son\w+=/i);
    expect(html).toMatch(/<link rel="stylesheet"[^>]*href="\/app\/assets\/index-[\w-]+\.css"/);
    const assets = readdirSync(join(outdir, 'assets'));
    expect(assets.every((name) => /^[\w-]+-[\w-]{8}\.(js|css)$/.test(name))).toBe(true);
  });

  it('builds no code from strings (a CSP without unsafe-eval runs it)', () => {
    for (const name of readdirSync(join(outdir, 'assets')).filter((n) => n.endsWith('.js'))) {
      const code = readFileSync(join(outdir, 'assets', name), 'utf8');
      expect(code, name).not.toMatch(/\bnew Function\s*\(|\beval\s*\(/);
    }
  });

  it('keeps the first page (/app/signin) under 100 KB of gzipped JavaScript, with no TanStack Query and no signed-in page in it', () => {
    const out = execFileSync(process.execPath, [join(root, 'scripts/console-size.mjs'), '--dir', outdir, '--json'], { encoding: 'utf8' });
    const size = JSON.parse(out) as { gzip: number; brotli: number; budget: number; files: { file: string }[] };
    process.stdout.write(`console first page: ${size.gzip} B gzipped, ${size.brotli} B brotli, in ${size.files.length} files (budget ${size.budget} B)\n`);
    expect(size.files.some((f) => /SignIn-/.test(f.file))).toBe(true);
    expect(size.gzip).toBeLessThanOrEqual(100 * 1024);
    // What issue 37 took out of the first page stays out: the chunks it loads hold none of these.
    const code = size.files.map((f) => readFileSync(join(outdir, f.file), 'utf8')).join('\n');
    expect(code).not.toMatch(/No QueryClient set|refetchOnWindowFocus|SignedInShell-|FormEdit-|Layout-/);
    // Nor what vite.config.ts takes out of React Router: its developer warnings, framework mode's link prefetching.
    expect(code).not.toMatch(/blocker on a POP navigation|server:\/\/singlefetch/);
  });
});
