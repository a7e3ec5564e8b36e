import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { readInMemoryFile, type InMemoryFile } from '../http/in-memory.js';

/**
 * The browser code built by scripts/build-web.mjs (`npm run build`) into dist/web: form-embed.js,
 * form-page.js, form.css, chat-embed.js, the modules the embeds import on demand (form-submit, chat-panel:
 * this build's and the last few builds', for an embed of an earlier build still in a browser), their
 * content-hashed copies, a `.br` and a `.gz` copy of each, and manifest.json. Read here on first use (so an app that never serves them pays nothing): the manifest,
 * and every file it names and form-embed.js, with their copies, which asset-routes.ts answers from memory.
 *
 * From source (tsx) the directory is ../../dist/web; compiled, dist/src/forms → ../../web is dist/web.
 * When no build is found, `load()` says so and the routes answer 503 with that message.
 */
export interface WebAsset {
  /** The file name it is served under (hashed). */
  name: string;
  /** Its bytes and compressed copies, read with the manifest (the four files of a build weigh about 60 KB with their copies). */
  file: InMemoryFile;
}

export interface WebAssetSet {
  /** The directory of the build. */
  dir: string;
  /** The snippet's plain URL, /form-embed.js. */
  embed: InMemoryFile;
  /** The chat widget's plain URL, /chat-embed.js (web/chat); absent from a build made before it existed. */
  chatEmbed: InMemoryFile | undefined;
  /** Plain name → its hashed file (e.g. `form-page.js` → asset `form-page.3f2a9c81d04b.js`). */
  hashed(plainName: string): WebAsset;
  /** An asset by its exact (hashed) file name. */
  byName(name: string): WebAsset | undefined;
}

export function defaultWebDirs(): string[] {
  return [fileURLToPath(new URL('../../dist/web/', import.meta.url)), fileURLToPath(new URL('../../web/', import.meta.url))];
}

function readSet(dir: string): WebAssetSet {
  const manifest = JSON.parse(readFileSync(`${dir}/manifest.json`, 'utf8')) as Record<string, string>;
  const assets = new Map<string, WebAsset>();
  for (const versioned of Object.values(manifest)) assets.set(versioned, { name: versioned, file: readInMemoryFile(dir, versioned) });
  const embed = readInMemoryFile(dir, 'form-embed.js');
  const chatEmbed = manifest['chat-embed.js'] ? readInMemoryFile(dir, 'chat-embed.js') : undefined;
  return {
    dir,
    embed,
    chatEmbed,
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
