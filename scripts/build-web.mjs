#!/usr/bin/env node
// Builds the browser code of web/ into dist/web (or --outdir DIR):
//   form-embed.js    the native embed script: one minified IIFE, no dependencies; it draws the forms and
//                    imports form-submit.<hash>.js when the visitor first focuses or types in one
//   form-submit.js   the forms' submission (web/form/submit.ts): one minified ES module, served only under its
//                    hashed name (/assets/form-submit.<hash>.js), which the build writes into form-embed.js
//   form-renderer.js the renderer as an ES module, for the hosted page and the console preview
//   form-page.js     the hosted page's enhancement (/f/{slug}): one minified IIFE, the renderer inside
//   form.css         the renderer's stylesheet, for a page that links it instead of inlining it
//   chat-embed.js    the chat widget's script (web/chat): one minified IIFE, no dependencies; it draws the
//                    launcher and imports chat-panel.<hash>.js when the visitor first opens the chat
//   chat-panel.js    the chat panel (web/chat/panel.ts): one minified ES module, served only under its hashed
//                    name (/assets/chat-panel.<hash>.js), which the build writes into chat-embed.js
// plus a copy of each under a content-hashed name, for long-lived caching, manifest.json
// mapping each plain name to its hashed one: {"form-embed.js": "form-embed.3f2a9c81d04b.js", …},
// and a brotli (.br) and gzip (.gz) copy of every file, at their best levels, which the server
// sends to clients that accept them (@fastify/static's preCompressed: nothing compressed per request).
import { build } from 'esbuild';
import { createHash } from 'node:crypto';
import { mkdir, readdir, rm, stat, writeFile } from 'node:fs/promises';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { brotliCompressSync, constants, gzipSync } from 'node:zlib';
import { analyze, table } from './web-analysis.mjs';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const { values: args } = parseArgs({ options: { outdir: { type: 'string' }, quiet: { type: 'boolean' }, analyze: { type: 'boolean' } } });
const outdir = resolve(args.outdir ?? join(root, 'dist/web'));

// Syntax up to ES2020 (?. and ??): every browser that has constructable stylesheets, which the
// embed needs anyway (Chrome 73, Firefox 101, Safari 16.4), runs it.
// Output stays ASCII (… becomes \u2026): the script is read correctly whatever charset a server or cache declares.
const common = { bundle: true, write: false, minify: true, target: 'es2020', legalComments: 'none', logLevel: 'warning' };

const analyses = [];

/** `entry` bundled and minified; `define` replaces the named globals (a lazily imported module's hashed name). */
async function bundle(entry, format, name, define = {}) {
  const options = { ...common, entryPoints: [join(root, entry)], format, platform: 'browser', define };
  const result = await build(options);
  if (args.analyze && name) {
    // The same build with an external source map (the code is byte for byte the same): whose bytes are whose.
    const mapped = await build({ ...options, sourcemap: 'external', outfile: join(outdir, name) });
    const map = mapped.outputFiles.find((file) => file.path.endsWith('.map'));
    const code = mapped.outputFiles.find((file) => !file.path.endsWith('.map'));
    if (Buffer.compare(code.contents, result.outputFiles[0].contents) !== 0) throw new Error(`${name}: the mapped build differs`);
    analyses.push(table(name, analyze(code.text, map.text, (source) => relative(root, resolve(outdir, source)))));
  }
  return result.outputFiles[0].contents;
}

/** The CSS string exported by web/form/styles.ts, read by bundling the module and importing it. */
async function css() {
  const result = await build({ ...common, minify: false, entryPoints: [join(root, 'web/form/styles.ts')], format: 'esm', platform: 'neutral' });
  const module = await import(`data:text/javascript;base64,${Buffer.from(result.outputFiles[0].contents).toString('base64')}`);
  return Buffer.from(module.formStyles);
}

/** `name` with the first 12 hex digits of the SHA-256 of `contents`: form-embed.js → form-embed.3f2a9c81d04b.js. */
function versionedName(name, contents) {
  const hash = createHash('sha256').update(contents).digest('hex').slice(0, 12);
  return name.replace(/\.(js|css)$/, `.${hash}.$1`);
}

// The modules the embeds import on demand first: each embed is given its module's hashed name.
const formSubmit = await bundle('web/form/submit.ts', 'esm', 'form-submit.js');
const chatPanel = await bundle('web/chat/panel.ts', 'esm', 'chat-panel.js');

const files = {
  'form-embed.js': await bundle('web/form/embed.ts', 'iife', 'form-embed.js', { FORM_SUBMIT: JSON.stringify(versionedName('form-submit.js', formSubmit)) }),
  'form-submit.js': formSubmit,
  'form-renderer.js': await bundle('web/form/renderer.ts', 'esm'),
  'form-page.js': await bundle('web/form/page.ts', 'iife'),
  'form.css': await css(),
  'chat-embed.js': await bundle('web/chat/embed.ts', 'iife', 'chat-embed.js', { CHAT_PANEL: JSON.stringify(versionedName('chat-panel.js', chatPanel)) }),
  'chat-panel.js': chatPanel,
};

await mkdir(outdir, { recursive: true });
// Only our own outputs are replaced: tsc may write other files under dist/web.
const hashed = /^(form(-embed|-renderer|-page|-submit)?|chat-(embed|panel))\.[0-9a-f]{12}\.(js|css)(\.br|\.gz)?$/;
// Except the on-demand modules of the last few builds: an embed of an earlier build (cached for up to 5 minutes,
// or held by a page opened before this build was served) imports its own build's module by name. They stay, the
// newest first, and the manifest names them (`chat-panel.js~1`, …), so the server keeps serving them.
const ON_DEMAND = /^(form-submit|chat-panel)\.[0-9a-f]{12}\.js$/;
const RETAINED = 4;
const earlier = [];
for (const name of await readdir(outdir)) {
  if (ON_DEMAND.test(name)) earlier.push({ name, time: (await stat(join(outdir, name))).mtimeMs });
  else if (hashed.test(name) && !ON_DEMAND.test(name.replace(/\.(br|gz)$/, ''))) await rm(join(outdir, name));
}

const manifest = {};
const sizes = [];
for (const [name, contents] of Object.entries(files)) {
  const versioned = versionedName(name, contents);
  const gzip = gzipSync(contents, { level: 9 });
  const brotli = brotliCompressSync(contents, { params: { [constants.BROTLI_PARAM_QUALITY]: 11, [constants.BROTLI_PARAM_SIZE_HINT]: contents.length } });
  for (const file of [name, versioned]) {
    await writeFile(join(outdir, file), contents);
    await writeFile(join(outdir, `${file}.gz`), gzip);
    await writeFile(join(outdir, `${file}.br`), brotli);
  }
  manifest[name] = versioned;
  sizes.push({ file: name, bytes: contents.length, gzip: gzip.length, brotli: brotli.length });
}
const current = new Set(Object.values(manifest));
const kept = new Map();
for (const { name } of earlier.filter((file) => !current.has(file.name)).sort((a, b) => b.time - a.time)) {
  const plain = name.replace(/\.[0-9a-f]{12}\.js$/, '.js');
  const count = (kept.get(plain) ?? 0) + 1;
  kept.set(plain, count);
  if (count <= RETAINED) manifest[`${plain}~${count}`] = name;
  else for (const file of [name, `${name}.br`, `${name}.gz`]) await rm(join(outdir, file), { force: true });
}
await writeFile(join(outdir, 'manifest.json'), `${JSON.stringify(manifest, null, 2)}\n`);

if (!args.quiet) {
  for (const { file, bytes, gzip, brotli } of sizes) console.log(`${file.padEnd(18)} ${String(bytes).padStart(7)} B   gzip ${String(gzip).padStart(6)} B   brotli ${String(brotli).padStart(6)} B`);
  console.log(`→ ${outdir}`);
}
if (args.analyze) console.log(`\n${analyses.join('\n\n')}`);
