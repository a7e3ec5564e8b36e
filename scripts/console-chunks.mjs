#!/usr/bin/env node
// Where the console's bytes go: builds web/console (into a temp dir, or DIR) and lists each JavaScript chunk,
// its size and gzip size, its static imports and the packages and source files in it, by their size before
// minifying (Rolldown's renderedLength). SPLIT=1 gives each npm package its own chunk, to weigh them gzipped.
//   NODE_ENV=production node scripts/console-chunks.mjs [DIR] [name,name…]
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { build } from 'vite';

const out = process.argv[2] ?? mkdtempSync(join(tmpdir(), 'svc-console-chunks-'));
const only = process.argv[3]?.split(',');
const byPackage = (id) => {
  const match = id.match(/node_modules\/((?:@[^/]+\/)?[^/]+)/);
  return match ? `pkg-${match[1].replace('/', '_')}` : undefined;
};
const chunks = [];
await build({
  configFile: 'web/console/vite.config.ts',
  logLevel: 'error',
  build: { outDir: out, emptyOutDir: true, ...(process.env.SPLIT ? { rollupOptions: { output: { manualChunks: byPackage } } } : {}) },
  plugins: [{ name: 'console-chunks', generateBundle(_, bundle) { for (const c of Object.values(bundle)) if (c.type === 'chunk') chunks.push(c); } }],
});
for (const chunk of chunks) {
  if (only && !only.some((name) => chunk.fileName.includes(name))) continue;
  console.log(`\n${chunk.fileName} ${chunk.code.length} B, gzip ${gzipSync(chunk.code, { level: 9 }).length} B, imports ${chunk.imports.join(' ') || 'none'}`);
  const parts = {};
  for (const [id, module] of Object.entries(chunk.modules)) {
    const name = id.includes('node_modules/') ? id.match(/node_modules\/((?:@[^/]+\/)?[^/]+)/)[1] : id.replace(/.*web\/console\//, '');
    parts[name] = (parts[name] ?? 0) + module.renderedLength;
  }
  for (const [name, size] of Object.entries(parts).sort((a, b) => b[1] - a[1])) if (size) console.log(`  ${String(size).padStart(8)}  ${name}`);
}
