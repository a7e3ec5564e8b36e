import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { brotliCompress, constants, gzip } from 'node:zlib';

/**
 * The built console: Vite's output in dist/web/console (`index.html`, `assets/<name>-<hash>.*`
 * and any files of its public folder). Read once, on first use; each file is compressed (brotli and
 * gzip) the first time a client accepts it, unless the build shipped `.br` / `.gz` copies.
 * While there is no build, `load()` says so on every call, so a build made later is picked up.
 */
export interface ConsoleFile {
  contentType: string;
  identity: Buffer;
  etag: string;
  /** Compressed copies, made on first use. */
  encoded(encoding: 'br' | 'gzip'): Promise<Buffer>;
}

export interface ConsoleBuild {
  index: ConsoleFile;
  /** By path under the build root, with forward slashes: `assets/index-3f2a9c81.js`, `favicon.svg`. */
  files: Map<string, ConsoleFile>;
}

export type ConsoleState = { built: true; build: ConsoleBuild } | { built: false; dir: string };

const TYPES: Record<string, string> = {
  html: 'text/html; charset=utf-8',
  js: 'text/javascript; charset=utf-8',
  mjs: 'text/javascript; charset=utf-8',
  css: 'text/css; charset=utf-8',
  json: 'application/json; charset=utf-8',
  map: 'application/json; charset=utf-8',
  svg: 'image/svg+xml',
  png: 'image/png',
  jpg: 'image/jpeg',
  jpeg: 'image/jpeg',
  webp: 'image/webp',
  ico: 'image/x-icon',
  woff2: 'font/woff2',
  woff: 'font/woff',
  txt: 'text/plain; charset=utf-8',
  webmanifest: 'application/manifest+json',
};
/** Worth compressing: text. Images and fonts are compressed already. */
const TEXT = /\.(html|js|mjs|css|json|map|svg|txt|webmanifest)$/;

const brotli = promisify(brotliCompress);
const gz = promisify(gzip);

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

function readFile(path: string, precompressed: Map<string, Buffer>): ConsoleFile {
  const identity = readFileSync(path);
  const name = path.split(sep).pop() ?? '';
  const cache = new Map<'br' | 'gzip', Promise<Buffer>>();
  const shipped = { br: precompressed.get(`${path}.br`), gzip: precompressed.get(`${path}.gz`) };
  return {
    contentType: TYPES[name.split('.').pop()?.toLowerCase() ?? ''] ?? 'application/octet-stream',
    identity,
    etag: `"${createHash('sha256').update(identity).digest('base64url').slice(0, 22)}"`,
    encoded(encoding) {
      const ready = shipped[encoding];
      if (ready) return Promise.resolve(ready);
      let pending = cache.get(encoding);
      if (!pending) {
        pending = encoding === 'br'
          ? brotli(identity, { params: { [constants.BROTLI_PARAM_QUALITY]: 11, [constants.BROTLI_PARAM_SIZE_HINT]: identity.length } })
          : gz(identity, { level: 9 });
        cache.set(encoding, pending);
      }
      return pending;
    },
  };
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
      const paths = walk(dir);
      const precompressed = new Map(paths.filter((p) => p.endsWith('.br') || p.endsWith('.gz')).map((p) => [p, readFileSync(p)]));
      const files = new Map<string, ConsoleFile>();
      for (const path of paths) {
        if (precompressed.has(path)) continue;
        files.set(relative(dir, path).split(sep).join('/'), readFile(path, precompressed));
      }
      build = { index: files.get('index.html')!, files };
      return { built: true, build };
    },
  };
}

export type ConsoleFiles = ReturnType<typeof createConsoleFiles>;
