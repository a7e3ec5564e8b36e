import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { brotliCompressSync, constants, gzipSync } from 'node:zlib';

/**
 * The browser code built by scripts/build-web.mjs (`npm run build`) into dist/web: form-embed.js,
 * form-page.js, form.css, their content-hashed copies and manifest.json. Read and compressed once
 * (gzip and brotli, at their best levels: a few small files), on first use, so an app that never
 * serves them (most test apps) pays nothing.
 *
 * From source (tsx) the directory is ../../dist/web; compiled, dist/src/forms → ../../web is dist/web.
 * When no build is found, `load()` says so and the routes answer 503 with that message.
 */
export interface WebAsset {
  /** The file name it is served under (hashed, except the plain form-embed.js). */
  name: string;
  contentType: string;
  identity: Buffer;
  gzip: Buffer;
  br: Buffer;
  /** Strong ETag of the identity bytes. */
  etag: string;
}

export interface WebAssetSet {
  /** Plain name → its hashed file (e.g. `form-page.js` → asset `form-page.3f2a9c81d04b.js`). */
  hashed(plainName: string): WebAsset;
  /** An asset by its exact file name (a hashed name, or a plain one). */
  byName(name: string): WebAsset | undefined;
}

const TYPES: Record<string, string> = { js: 'text/javascript; charset=utf-8', css: 'text/css; charset=utf-8' };

export function defaultWebDirs(): string[] {
  return [fileURLToPath(new URL('../../dist/web/', import.meta.url)), fileURLToPath(new URL('../../web/', import.meta.url))];
}

function readSet(dir: string): WebAssetSet {
  const manifest = JSON.parse(readFileSync(`${dir}/manifest.json`, 'utf8')) as Record<string, string>;
  const assets = new Map<string, WebAsset>();
  const read = (name: string): WebAsset => {
    const identity = readFileSync(`${dir}/${name}`);
    return {
      name,
      contentType: TYPES[name.split('.').pop() ?? ''] ?? 'application/octet-stream',
      identity,
      gzip: gzipSync(identity, { level: 9 }),
      br: brotliCompressSync(identity, { params: { [constants.BROTLI_PARAM_QUALITY]: 11, [constants.BROTLI_PARAM_SIZE_HINT]: identity.length } }),
      etag: `"${createHash('sha256').update(identity).digest('base64url').slice(0, 22)}"`,
    };
  };
  for (const [plain, versioned] of Object.entries(manifest)) {
    const asset = read(versioned);
    assets.set(versioned, asset);
    // The snippet's plain URL: the same bytes under the plain name.
    if (plain === 'form-embed.js') assets.set(plain, { ...asset, name: plain });
  }
  return {
    hashed(plainName) {
      const asset = assets.get(manifest[plainName] ?? '');
      if (!asset) throw new Error(`dist/web/manifest.json names no ${plainName}: rebuild with npm run build`);
      return asset;
    },
    byName: (name) => assets.get(name),
  };
}

export type WebAssetsState = { ok: true; set: WebAssetSet } | { ok: false; message: string };

/** Finds and loads the build once; later calls answer from memory. */
export function createWebAssets(dirs: string[] = defaultWebDirs()) {
  let state: WebAssetsState | undefined;
  return {
    load(): WebAssetsState {
      if (state?.ok) return state;
      const dir = dirs.find((candidate) => existsSync(`${candidate}/manifest.json`));
      if (!dir) {
        // Not cached: a build made while the server runs is picked up by the next request.
        return { ok: false, message: 'The form scripts are not built: run `npm run build` (npm start does it first).' };
      }
      state = { ok: true, set: readSet(dir) };
      return state;
    },
  };
}

export type WebAssets = ReturnType<typeof createWebAssets>;

/** The best encoding the client accepts: br, then gzip, else none (q=0 refuses). */
export function pickEncoding(acceptEncoding: string | undefined): 'br' | 'gzip' | null {
  if (!acceptEncoding) return null;
  const accepted = new Set<string>();
  for (const part of acceptEncoding.split(',')) {
    const [name, ...params] = part.trim().toLowerCase().split(';');
    const q = params.map((p) => p.trim()).find((p) => p.startsWith('q='));
    if (q && Number(q.slice(2)) === 0) continue;
    if (name) accepted.add(name);
  }
  if (accepted.has('br')) return 'br';
  if (accepted.has('gzip') || accepted.has('*')) return 'gzip';
  return null;
}
