import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

/** Issue 22: chat-embed.js stays under 12 KB gzipped (12,288 bytes), measured on the real build. */
const BUDGET = 12 * 1024;

const root = resolve(import.meta.dirname, '../..');
let outdir: string;
let embed: string;

beforeAll(() => {
  outdir = mkdtempSync(join(tmpdir(), 'svc-chat-web-'));
  execFileSync(process.execPath, [join(root, 'scripts/build-web.mjs'), '--outdir', outdir, '--quiet'], { stdio: 'inherit' });
  embed = readFileSync(join(outdir, 'chat-embed.js'), 'utf8');
});

afterAll(() => rmSync(outdir, { recursive: true, force: true }));

describe('the built chat-embed.js', () => {
  it(`is under ${BUDGET} bytes gzipped`, () => {
    const gzip = gzipSync(embed, { level: 9 }).length;
    process.stdout.write(`chat-embed.js: ${Buffer.byteLength(embed)} B, ${gzip} B gzipped (budget ${BUDGET} B)\n`);
    expect(gzip).toBeLessThan(BUDGET);
  });

  it('needs nothing a strict CSP forbids, and parses no HTML', () => {
    for (const forbidden of [/\beval\(/, /new Function\b/, /innerHTML/, /outerHTML/, /insertAdjacentHTML/, /document\.write/, /DOMParser/, /createContextualFragment/, /createElement\("style"\)/, /setAttribute\("style"/, /\.cssText/, /EventSource/]) {
      expect(embed).not.toMatch(forbidden);
    }
    expect(embed).toMatch(/adoptedStyleSheets/);
    expect(embed).toMatch(/replaceSync/);
  });

  it('is plain ASCII, and has a hashed copy with its compressed copies', () => {
    expect(embed).toMatch(/^[\t\n\r -~]*$/);
    const manifest = JSON.parse(readFileSync(join(outdir, 'manifest.json'), 'utf8')) as Record<string, string>;
    expect(manifest['chat-embed.js']).toMatch(/^chat-embed\.[0-9a-f]{12}\.js$/);
    expect(readFileSync(join(outdir, manifest['chat-embed.js']!), 'utf8')).toBe(embed);
    expect(readFileSync(join(outdir, 'chat-embed.js.gz')).length).toBeGreaterThan(0);
    expect(readFileSync(join(outdir, 'chat-embed.js.br')).length).toBeGreaterThan(0);
  });
});
