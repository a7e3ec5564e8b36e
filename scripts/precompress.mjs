#!/usr/bin/env node
// Writes a brotli (.br) and a gzip (.gz) copy, at their best levels, of every text file of the
// console's build (dist/web/console, or the directories given), so the server sends them as they are
// (@fastify/static's preCompressed) instead of compressing per request. Fonts and images are compressed already.
//   node scripts/precompress.mjs [DIR…]
import { readdir, readFile, stat, writeFile } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { brotliCompressSync, constants, gzipSync } from 'node:zlib';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const dirs = process.argv.length > 2 ? process.argv.slice(2).map((dir) => resolve(dir)) : [join(root, 'dist/web/console')];
const TEXT = /\.(html|js|mjs|css|json|map|svg|txt|webmanifest)$/;

async function walk(dir) {
  const paths = [];
  for (const name of await readdir(dir)) {
    const path = join(dir, name);
    if ((await stat(path)).isDirectory()) paths.push(...(await walk(path)));
    else paths.push(path);
  }
  return paths;
}

for (const dir of dirs) {
  for (const path of await walk(dir)) {
    if (!TEXT.test(path)) continue;
    const contents = await readFile(path);
    await writeFile(`${path}.gz`, gzipSync(contents, { level: 9 }));
    await writeFile(`${path}.br`, brotliCompressSync(contents, { params: { [constants.BROTLI_PARAM_QUALITY]: 11, [constants.BROTLI_PARAM_SIZE_HINT]: contents.length } }));
  }
}
