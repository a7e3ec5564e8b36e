#!/usr/bin/env node
// The console's first-page weight: the JavaScript a browser loads to show /app/signin (the entry
// chunk, the sign-in page's lazy chunk and every chunk they import statically), gzipped, read from
// the manifest Vite writes into dist/web/console/.vite/manifest.json. Fails over the budget.
// The budget: issue 37's goal, 100 KB (98.8 KB after its cuts; docs/benchmarks.md).
//   node scripts/console-size.mjs [--dir DIR] [--page web/console/src/pages/auth/SignIn.tsx] [--budget 102400] [--json]
import { readFile } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { brotliCompressSync, constants, gzipSync } from 'node:zlib';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const { values: args } = parseArgs({
  options: {
    dir: { type: 'string', default: join(root, 'dist/web/console') },
    page: { type: 'string', default: 'src/pages/auth/SignIn.tsx' },
    budget: { type: 'string', default: String(100 * 1024) },
    json: { type: 'boolean', default: false },
  },
});

const manifest = JSON.parse(await readFile(join(args.dir, '.vite/manifest.json'), 'utf8'));
const entry = Object.keys(manifest).find((key) => manifest[key].isEntry);
const page = Object.keys(manifest).find((key) => key === args.page || key.endsWith(args.page));
if (!entry || !page) {
  console.error(`console-size: ${entry ? `no chunk for ${args.page}` : 'no entry chunk'} in the manifest`);
  process.exit(1);
}

/** A chunk and everything it imports statically: what the browser fetches before it runs. */
function closure(key, seen = new Set()) {
  if (seen.has(key)) return seen;
  seen.add(key);
  for (const imported of manifest[key].imports ?? []) closure(imported, seen);
  return seen;
}
const keys = closure(page, closure(entry));

let raw = 0;
let gzip = 0;
let brotli = 0;
const files = [];
for (const key of keys) {
  const file = manifest[key].file;
  if (!file.endsWith('.js')) continue;
  const contents = await readFile(join(args.dir, file));
  // As scripts/precompress.mjs writes them: what the server sends.
  const gz = gzipSync(contents, { level: 9 }).length;
  const br = brotliCompressSync(contents, { params: { [constants.BROTLI_PARAM_QUALITY]: 11, [constants.BROTLI_PARAM_SIZE_HINT]: contents.length } }).length;
  raw += contents.length;
  gzip += gz;
  brotli += br;
  files.push({ file, bytes: contents.length, gzip: gz, brotli: br });
}

const budget = Number(args.budget);
if (args.json) console.log(JSON.stringify({ page: args.page, files, bytes: raw, gzip, brotli, budget }));
else {
  for (const { file, bytes, gzip: gz, brotli: br } of files) console.log(`${file.padEnd(40)} ${String(bytes).padStart(8)} B   gzip ${String(gz).padStart(7)} B   brotli ${String(br).padStart(7)} B`);
  console.log(`first page (/app/signin) JavaScript: ${(raw / 1024).toFixed(1)} KB, gzipped ${(gzip / 1024).toFixed(1)} KB, brotli ${(brotli / 1024).toFixed(1)} KB (budget ${(budget / 1024).toFixed(0)} KB gzipped)`);
}
if (gzip > budget) {
  console.error(`console-size: the first page's JavaScript is ${gzip} B gzipped, over the ${budget} B budget`);
  process.exit(1);
}
