import { existsSync, readdirSync, statSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { readInMemoryFile, type InMemoryFile } from '../http/in-memory.js';

/**
 * The built console: Vite's output in dist/web/console (`index.html`, `assets/<name>-<hash>.*`,
 * any files of its public folder, and the `.br` / `.gz` copies scripts/precompress.mjs writes).
 * Listed once, on first use: only the files of the build are served, index.html from memory and the
 * others from disk by @fastify/static (web/console-routes.ts). While there is no build, `load()` says so on every call,
 * so a build made later is picked up.
 */
export interface ConsoleBuild {
  dir: string;
  /** By path under the build root, with forward slashes: `assets/index-3f2a9c81.js`, `favicon.svg` (not the compressed copies). */
  files: Set<string>;
  /** index.html, the answer to every client route of the console: kept in memory (http/in-memory.ts says why). */
  index: InMemoryFile;
}

export type ConsoleState = { built: true; build: ConsoleBuild } | { built: false; dir: string };

/** Worth compressing: text. Images and fonts are compressed already. */
const TEXT = /\.(html|js|mjs|css|json|map|svg|txt|webmanifest)$/;

/** dist/web/console: from source (src/web) ../../dist/web/console; compiled (dist/src/web) ../../web/console. */
export function defaultConsoleDir(): string {
  const here = fileURLToPath(new URL('.', import.meta.url));
  const compiled = here.split(sep).join('/').includes('/dist/src/');
  return fileURLToPath(new URL(compiled ? '../../web/console/' : '../../dist/web/console/', import.meta.url));
}

function walk(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? walk(path) : [path];
  });
}

export function isCompressible(path: string): boolean {
  return TEXT.test(path);
}

export function createConsoleFiles(dir: string = defaultConsoleDir()) {
  let build: ConsoleBuild | undefined;
  return {
    load(): ConsoleState {
      if (build) return { built: true, build };
      if (!existsSync(join(dir, 'index.html'))) return { built: false, dir };
      const files = new Set(
        walk(dir)
          .filter((path) => !path.endsWith('.br') && !path.endsWith('.gz'))
          .map((path) => relative(dir, path).split(sep).join('/')),
      );
      build = { dir, files, index: readInMemoryFile(dir, 'index.html') };
      return { built: true, build };
    },
  };
}

export type ConsoleFiles = ReturnType<typeof createConsoleFiles>;
