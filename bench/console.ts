import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { chromium } from 'playwright-core';
import { buildApp } from '../src/app.js';
import { loadConfig } from '../src/config.js';
import { openDatabase } from '../src/db/database.js';
import { migrateToLatest } from '../src/db/migrate.js';
import { createConsoleFiles } from '../src/web/console-files.js';

/**
 * The console's first page (issue 37), in one run:
 *
 * - weight: the JavaScript `/app/signin` loads (the entry chunk, the sign-in page's chunk and every chunk they
 *   import statically), gzipped and brotli'd as scripts/precompress.mjs writes them (scripts/console-size.mjs);
 * - time to interactive in Chromium with a 4× CPU slowdown (CDP Emulation.setCPUThrottlingRate): a fresh
 *   profile each run opens /app/signin from the app on 127.0.0.1; "drawn" is when the email field is in the page,
 *   "interactive" when a key pressed in it has reached React's state (the field shows it after React's render).
 *   The median of BENCH_CONSOLE_RUNS (default 9) runs.
 *
 * BENCH_CONSOLE_DIR measures another build (default dist/web/console, which `npm run bench` builds);
 * BENCH_CONSOLE_BASELINE=<dir> measures a second build (the one before a change) in the same run, its runs
 * taking turns with the first's, so a machine's load falls on both alike.
 */
const RUNS = Number(process.env.BENCH_CONSOLE_RUNS ?? 9);
const CPU_SLOWDOWN = 4;
const root = resolve(import.meta.dirname, '..');

/** Recorded from the page's start: when the email field appears and when the first key reaches it. */
const RECORDER = `
  window.__drawn = 0;
  window.__typed = 0;
  new MutationObserver((_, observer) => {
    if (document.querySelector('input[name=email]')) { window.__drawn = performance.now(); observer.disconnect(); }
  }).observe(document, { subtree: true, childList: true });
  document.addEventListener('input', (event) => {
    const field = event.target;
    if (field.name !== 'email' || window.__typed) return;
    // After React has handled the key: the controlled field keeps it only if React's state took it.
    requestAnimationFrame(() => { if (field.value === 'a') window.__typed = performance.now(); });
  }, true);
`;

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

interface Figures {
  label: string;
  gzip: number;
  brotli: number;
  files: number;
  drawn: number[];
  interactive: number[];
}

function weigh(dir: string, label: string): Figures {
  const size = JSON.parse(execFileSync(process.execPath, [join(root, 'scripts/console-size.mjs'), '--dir', dir, '--json', '--budget', '1e9'], { encoding: 'utf8' })) as {
    files: unknown[];
    gzip: number;
    brotli: number;
  };
  return { label, gzip: size.gzip, brotli: size.brotli, files: size.files.length, drawn: [], interactive: [] };
}

export async function benchConsole(options: { dir?: string; baselineDir?: string } = {}): Promise<string[][]> {
  const dir = options.dir ?? process.env.BENCH_CONSOLE_DIR ?? join(root, 'dist/web/console');
  const baselineDir = options.baselineDir ?? process.env.BENCH_CONSOLE_BASELINE;
  const builds = [{ dir, figures: weigh(dir, baselineDir ? 'after' : '') }];
  if (baselineDir) builds.unshift({ dir: baselineDir, figures: weigh(baselineDir, 'before') });

  const dataDir = mkdtempSync(join(tmpdir(), 'switchboard-bench-console-'));
  const database = openDatabase({ sqliteFile: join(dataDir, 'bench.db') });
  await migrateToLatest(database.db);
  const config = loadConfig({ NODE_ENV: 'development', SECRETS_KEY: '0'.repeat(64), PUBLIC_URL: 'http://127.0.0.1:3000', LOG_LEVEL: 'warn', DATA_DIR: dataDir });
  const apps = [];
  for (const build of builds) {
    const app = await buildApp({ config, database, consoleFiles: createConsoleFiles(build.dir), expiryPurge: false, webhookDelivery: false, notificationDelivery: false });
    apps.push({ app, url: await app.listen({ host: '127.0.0.1', port: 0 }), figures: build.figures });
  }
  const browser = await chromium.launch({ executablePath: '/usr/bin/chromium', headless: true, args: ['--headless', '--no-sandbox', '--disable-gpu'] });
  try {
    for (let run = 0; run < RUNS; run++) {
      for (const { url, figures } of apps) {
        const context = await browser.newContext();
        await context.addInitScript(RECORDER);
        const page = await context.newPage();
        const cdp = await context.newCDPSession(page);
        await cdp.send('Emulation.setCPUThrottlingRate', { rate: CPU_SLOWDOWN });
        await page.goto(`${url}/app/signin`, { waitUntil: 'commit' });
        const email = page.locator('input[name=email]');
        await email.waitFor();
        await email.focus();
        await page.keyboard.press('a');
        await page.waitForFunction('window.__typed > 0', undefined, { timeout: 30_000, polling: 50 });
        const [drawn, typed] = await page.evaluate<[number, number]>('[window.__drawn, window.__typed]');
        figures.drawn.push(drawn);
        figures.interactive.push(typed);
        await context.close();
      }
    }
  } finally {
    await browser.close();
    for (const { app } of apps) await app.close();
    await database.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
  const kb = (bytes: number) => `${(bytes / 1024).toFixed(1)} KB`;
  const runs = (times: number[]) => `median ${median(times).toFixed(0)} ms (${RUNS} runs: ${times.map((t) => t.toFixed(0)).join(', ')})`;
  return apps.flatMap(({ figures: f }) => {
    const which = f.label ? ` (${f.label})` : '';
    return [
      [`first page JavaScript (/app/signin)${which}`, `${f.files} files, gzip ${kb(f.gzip)}, brotli ${kb(f.brotli)}`, '≤ 100 KB gzipped'],
      [`sign-in drawn, ${CPU_SLOWDOWN}× CPU slowdown${which}`, runs(f.drawn), ''],
      [`sign-in interactive, ${CPU_SLOWDOWN}× CPU slowdown${which}`, runs(f.interactive), 'lower than before'],
    ];
  });
}
