import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { brotliCompressSync, constants, gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

/**
 * Issue 37: form-embed.js, what every page view of a site with a form loads, stays at most 4.5 KB gzipped
 * (4,608 bytes) and 4 KB with brotli (4,096 bytes, what browsers get from us); with the submission's module,
 * which a visitor who fills the form in loads as well, under the 8 KB gzipped (8,192 bytes) the whole script
 * was allowed before (DESIGN's 6 KB plus the module's own imports). Measured on the real build, compressed as
 * the build compresses them (gzip -9, brotli 11).
 */
const EMBED_GZIP = 4608;
const EMBED_BROTLI = 4096;
const FILLED_GZIP = 8 * 1024;

const root = resolve(import.meta.dirname, '../..');
let outdir: string;
let embed: string;
let submit: string;
let manifest: Record<string, string>;

const gzip = (text: string) => gzipSync(text, { level: 9 }).length;
const brotli = (text: string) => brotliCompressSync(text, { params: { [constants.BROTLI_PARAM_QUALITY]: 11, [constants.BROTLI_PARAM_SIZE_HINT]: Buffer.byteLength(text) } }).length;

beforeAll(() => {
  outdir = mkdtempSync(join(tmpdir(), 'svc-web-'));
  execFileSync(process.execPath, [join(root, 'scripts/build-web.mjs'), '--outdir', outdir, '--quiet'], { stdio: 'inherit' });
  embed = readFileSync(join(outdir, 'form-embed.js'), 'utf8');
  manifest = JSON.parse(readFileSync(join(outdir, 'manifest.json'), 'utf8')) as Record<string, string>;
  submit = readFileSync(join(outdir, manifest['form-submit.js']!), 'utf8');
});

afterAll(() => rmSync(outdir, { recursive: true, force: true }));

describe('the built form-embed.js', () => {
  it(`is at most ${EMBED_GZIP} bytes gzipped and ${EMBED_BROTLI} with brotli; with the submission, under ${FILLED_GZIP} gzipped`, () => {
    const sizes = { gzip: gzip(embed), brotli: brotli(embed), submitGzip: gzip(submit), submitBrotli: brotli(submit) };
    process.stdout.write(
      `form-embed.js: ${Buffer.byteLength(embed)} B, ${sizes.gzip} B gzip, ${sizes.brotli} B brotli (goals ${EMBED_GZIP}, ${EMBED_BROTLI}); ` +
        `form-submit.js: ${Buffer.byteLength(submit)} B, ${sizes.submitGzip} B gzip, ${sizes.submitBrotli} B brotli\n`,
    );
    expect(sizes.gzip).toBeLessThanOrEqual(EMBED_GZIP);
    expect(sizes.brotli).toBeLessThanOrEqual(EMBED_BROTLI);
    expect(sizes.gzip + sizes.submitGzip).toBeLessThan(FILLED_GZIP);
  });

  it('imports the submission of its own build, by its hashed name, from the service', () => {
    expect(manifest['form-submit.js']).toMatch(/^form-submit\.[0-9a-f]{12}\.js$/);
    expect(embed).toContain(`/assets/${manifest['form-submit.js']}`);
    expect(submit).toMatch(/export\{\w+ as submitter\}/);
    // The submission's code itself is not in the embed.
    expect(embed).not.toContain('Idempotency-Key');
  });

  it('needs nothing a strict CSP forbids, and parses no HTML (the submission neither)', () => {
    // No eval, no inline styles, no <style> elements: styles only through constructable stylesheets.
    for (const file of [embed, submit]) {
      for (const forbidden of [/\beval\(/, /new Function\b/, /innerHTML/, /outerHTML/, /insertAdjacentHTML/, /document\.write/, /createElement\("style"\)/, /setAttribute\("style"/, /\.cssText/]) {
        expect(file).not.toMatch(forbidden);
      }
    }
    expect(embed).toMatch(/adoptedStyleSheets/);
    expect(embed).toMatch(/replaceSync/);
  });

  it('is plain ASCII, so any declared charset reads it right', () => {
    expect(embed).toMatch(/^[\t\n\r -~]*$/);
    expect(submit).toMatch(/^[\t\n\r -~]*$/);
  });

  it('comes with hashed copies named in the manifest', () => {
    expect(Object.keys(manifest).sort()).toEqual(['chat-embed.js', 'chat-panel.js', 'form-embed.js', 'form-page.js', 'form-renderer.js', 'form-submit.js', 'form.css']);
    for (const [name, versioned] of Object.entries(manifest)) {
      expect(versioned).toMatch(/^(form(-embed|-renderer|-page|-submit)?|chat-(embed|panel))\.[0-9a-f]{12}\.(js|css)$/);
      expect(readFileSync(join(outdir, versioned))).toEqual(readFileSync(join(outdir, name)));
    }
  });
});

describe('the on-demand modules of earlier builds', () => {
  it('stay beside the new ones, the four newest of each, named in the manifest so the server keeps serving them', () => {
    const dir = mkdtempSync(join(tmpdir(), 'svc-web-earlier-'));
    try {
      // Five earlier builds' submission modules, the oldest first, and a stale hashed renderer.
      const earlier = ['000000000001', '000000000002', '000000000003', '000000000004', '000000000005'].map((hash) => `form-submit.${hash}.js`);
      earlier.forEach((name, i) => {
        for (const file of [name, `${name}.br`, `${name}.gz`]) {
          writeFileSync(join(dir, file), 'export{};');
          utimesSync(join(dir, file), 1_000_000 + i, 1_000_000 + i);
        }
      });
      writeFileSync(join(dir, 'form-renderer.000000000001.js'), '');
      execFileSync(process.execPath, [join(root, 'scripts/build-web.mjs'), '--outdir', dir, '--quiet'], { stdio: 'inherit' });
      const names = JSON.parse(readFileSync(join(dir, 'manifest.json'), 'utf8')) as Record<string, string>;
      expect(names['form-submit.js']).toBe(manifest['form-submit.js']);
      expect(Object.entries(names).filter(([key]) => key.startsWith('form-submit.js~'))).toEqual([
        ['form-submit.js~1', earlier[4]],
        ['form-submit.js~2', earlier[3]],
        ['form-submit.js~3', earlier[2]],
        ['form-submit.js~4', earlier[1]],
      ]);
      expect(existsSync(join(dir, `${earlier[1]}.br`))).toBe(true);
      expect(existsSync(join(dir, earlier[0]!))).toBe(false);
      expect(existsSync(join(dir, `${earlier[0]}.gz`))).toBe(false);
      expect(existsSync(join(dir, 'form-renderer.000000000001.js'))).toBe(false);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
