import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { brotliCompressSync, constants, gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

/**
 * Issue 37: chat-embed.js, what every page view of a site with the chat loads, stays at most 8 KB gzipped
 * (8,192 bytes) and 7 KB with brotli (7,168 bytes, what browsers get from us); the panel's module, which a
 * visitor who opens the chat loads as well, keeps the whole widget under issue 22's 12 KB gzipped
 * (12,288 bytes). Measured on the real build, compressed as the build compresses them (gzip -9, brotli 11).
 */
const EMBED_GZIP = 8 * 1024;
const EMBED_BROTLI = 7 * 1024;
const OPENED_GZIP = 12 * 1024;

const root = resolve(import.meta.dirname, '../..');
let outdir: string;
let embed: string;
let panel: string;
let manifest: Record<string, string>;

const gzip = (text: string) => gzipSync(text, { level: 9 }).length;
const brotli = (text: string) => brotliCompressSync(text, { params: { [constants.BROTLI_PARAM_QUALITY]: 11, [constants.BROTLI_PARAM_SIZE_HINT]: Buffer.byteLength(text) } }).length;

beforeAll(() => {
  outdir = mkdtempSync(join(tmpdir(), 'svc-chat-web-'));
  execFileSync(process.execPath, [join(root, 'scripts/build-web.mjs'), '--outdir', outdir, '--quiet'], { stdio: 'inherit' });
  embed = readFileSync(join(outdir, 'chat-embed.js'), 'utf8');
  manifest = JSON.parse(readFileSync(join(outdir, 'manifest.json'), 'utf8')) as Record<string, string>;
  panel = readFileSync(join(outdir, manifest['chat-panel.js']!), 'utf8');
});

afterAll(() => rmSync(outdir, { recursive: true, force: true }));

describe('the built chat-embed.js', () => {
  it(`is at most ${EMBED_GZIP} bytes gzipped and ${EMBED_BROTLI} with brotli; with the panel, under ${OPENED_GZIP} gzipped`, () => {
    const sizes = { gzip: gzip(embed), brotli: brotli(embed), panelGzip: gzip(panel), panelBrotli: brotli(panel) };
    process.stdout.write(
      `chat-embed.js: ${Buffer.byteLength(embed)} B, ${sizes.gzip} B gzip, ${sizes.brotli} B brotli (goals ${EMBED_GZIP}, ${EMBED_BROTLI}); ` +
        `chat-panel.js: ${Buffer.byteLength(panel)} B, ${sizes.panelGzip} B gzip, ${sizes.panelBrotli} B brotli\n`,
    );
    expect(sizes.gzip).toBeLessThanOrEqual(EMBED_GZIP);
    expect(sizes.brotli).toBeLessThanOrEqual(EMBED_BROTLI);
    expect(sizes.gzip + sizes.panelGzip).toBeLessThan(OPENED_GZIP);
  });

  it('imports the panel of its own build, by its hashed name, from the service', () => {
    expect(manifest['chat-panel.js']).toMatch(/^chat-panel\.[0-9a-f]{12}\.js$/);
    expect(embed).toContain(`import(\`\${`);
    expect(embed).toContain(`/assets/${manifest['chat-panel.js']}`);
    expect(panel).toMatch(/export\{\w+ as openChat\}/);
  });

  it('needs nothing a strict CSP forbids, and parses no HTML (the panel neither)', () => {
    for (const file of [embed, panel]) {
      for (const forbidden of [/\beval\(/, /new Function\b/, /innerHTML/, /outerHTML/, /insertAdjacentHTML/, /document\.write/, /DOMParser/, /createContextualFragment/, /createElement\("style"\)/, /setAttribute\("style"/, /\.cssText/, /EventSource/]) {
        expect(file).not.toMatch(forbidden);
      }
      expect(file).toMatch(/adoptedStyleSheets/);
      expect(file).toMatch(/replaceSync/);
    }
  });

  it('is plain ASCII, and has a hashed copy with its compressed copies', () => {
    expect(embed).toMatch(/^[\t\n\r -~]*$/);
    expect(panel).toMatch(/^[\t\n\r -~]*$/);
    expect(manifest['chat-embed.js']).toMatch(/^chat-embed\.[0-9a-f]{12}\.js$/);
    expect(readFileSync(join(outdir, manifest['chat-embed.js']!), 'utf8')).toBe(embed);
    for (const name of ['chat-embed.js', manifest['chat-panel.js']!]) {
      expect(readFileSync(join(outdir, `${name}.gz`)).length).toBeGreaterThan(0);
      expect(readFileSync(join(outdir, `${name}.br`)).length).toBeGreaterThan(0);
    }
  });
});
