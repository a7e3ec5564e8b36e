import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

/** DESIGN: form-embed.js stays under 6 KB gzipped (6,144 bytes), measured on the real build. */
const BUDGET = 6 * 1024;

const root = resolve(import.meta.dirname, '../..');
let outdir: string;
let embed: string;

beforeAll(() => {
  outdir = mkdtempSync(join(tmpdir(), 'svc-web-'));
  execFileSync(process.execPath, [join(root, 'scripts/build-web.mjs'), '--outdir', outdir, '--quiet'], { stdio: 'inherit' });
  embed = readFileSync(join(outdir, 'form-embed.js'), 'utf8');
});

afterAll(() => rmSync(outdir, { recursive: true, force: true }));

describe('the built form-embed.js', () => {
  it(`is under ${BUDGET} bytes gzipped`, () => {
    const gzip = gzipSync(embed, { level: 9 }).length;
    process.stdout.write(`form-embed.js: ${Buffer.byteLength(embed)} B, ${gzip} B gzipped (budget ${BUDGET} B)\n`);
    expect(gzip).toBeLessThan(BUDGET);
  });

  it('needs nothing a strict CSP forbids, and parses no HTML', () => {
    // No eval, no inline styles, no <style> elements: styles only through constructable stylesheets.
    for (const forbidden of [/\beval\(/, /new Function\b/, /innerHTML/, /outerHTML/, /insertAdjacentHTML/, /document\.write/, /createElement\("style"\)/, /setAttribute\("style"/, /\.cssText/]) {
      expect(embed).not.toMatch(forbidden);
    }
    expect(embed).toMatch(/adoptedStyleSheets/);
    expect(embed).toMatch(/replaceSync/);
  });

  it('is plain ASCII, so any declared charset reads it right', () => {
    expect(embed).toMatch(/^[\t\n\r -~]*$/);
  });

  it('comes with hashed copies named in the manifest', () => {
    const manifest = JSON.parse(readFileSync(join(outdir, 'manifest.json'), 'utf8')) as Record<string, string>;
    expect(Object.keys(manifest).sort()).toEqual(['chat-embed.js', 'form-embed.js', 'form-page.js', 'form-renderer.js', 'form.css']);
    for (const [name, versioned] of Object.entries(manifest)) {
      expect(versioned).toMatch(/^(form(-embed|-renderer|-page)?|chat-embed)\.[0-9a-f]{12}\.(js|css)$/);
      expect(readFileSync(join(outdir, versioned))).toEqual(readFileSync(join(outdir, name)));
    }
  });
});
