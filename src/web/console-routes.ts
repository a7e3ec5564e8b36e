import type { FastifyReply, FastifyRequest } from 'fastify';
import type { App } from '../http/app-type.js';
import { pickEncoding } from '../forms/web-assets.js';
import { matchesEtag } from '../forms/public-routes.js';
import { isCompressible, type ConsoleFile, type ConsoleFiles } from './console-files.js';

/**
 * The console under /app (built by `npm run build` into dist/web/console, Vite `base: '/app/'`):
 * - `GET /` → 302 `/app/`;
 * - `/app/assets/*`: hashed names, immutable for a year, brotli or gzip as the client accepts;
 * - other files of the build (its public folder: icons…): an hour;
 * - any other `/app` path: index.html with `Cache-Control: no-cache` (the console routes on the client).
 * Documents get a strict CSP. Without a build, `/app` answers a short page saying to run `npm run build`.
 */
export const CONSOLE_CSP =
  "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data: https:; connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'self'; object-src 'none'";
const IMMUTABLE = 'public, max-age=31536000, immutable';
const HOUR = 'public, max-age=3600';

const NOT_BUILT = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>Switchboard console not built</title></head>
<body style="font-family: system-ui, sans-serif; max-width: 36rem; margin: 3rem auto; padding: 0 1rem; line-height: 1.5">
<h1>The console is not built yet</h1>
<p>Run <code>npm run build</code> (<code>npm start</code> does it first), then reload this page.</p>
<p>The JSON APIs work already: see <a href="/docs">the API reference</a>.</p>
</body></html>
`;

async function send(request: FastifyRequest, reply: FastifyReply, path: string, file: ConsoleFile, cacheControl: string): Promise<FastifyReply> {
  reply.headers({
    'Content-Type': file.contentType,
    'Cache-Control': cacheControl,
    'X-Content-Type-Options': 'nosniff',
    ETag: file.etag,
  });
  if (file.contentType.startsWith('text/html')) {
    reply.headers({ 'Content-Security-Policy': CONSOLE_CSP, 'X-Frame-Options': 'DENY', 'Referrer-Policy': 'same-origin' });
  }
  const compressible = isCompressible(path);
  if (compressible) reply.header('Vary', 'Accept-Encoding');
  if (matchesEtag(request.headers['if-none-match'], file.etag)) return reply.code(304).send();
  const encoding = compressible ? pickEncoding(request.headers['accept-encoding']) : null;
  if (!encoding) return reply.send(file.identity);
  reply.header('Content-Encoding', encoding);
  return reply.send(await file.encoded(encoding));
}

export function registerConsoleRoutes(app: App, deps: { files: ConsoleFiles }): void {
  const hidden = { schema: { hide: true } };

  app.get('/', hidden, (_request, reply) => reply.redirect('/app/', 302));

  const serve = async (request: FastifyRequest, reply: FastifyReply) => {
    const state = deps.files.load();
    if (!state.built) {
      return reply.code(503).headers({ 'Content-Type': 'text/html; charset=utf-8', 'Cache-Control': 'no-store', 'Content-Security-Policy': CONSOLE_CSP }).send(NOT_BUILT);
    }
    const path = ((request.params as { '*'?: string })['*'] ?? '').replace(/^\/+/, '');
    const file = state.build.files.get(path);
    if (path.startsWith('assets/')) {
      if (!file) {
        return reply.code(404).headers({ 'Content-Type': 'text/plain; charset=utf-8', 'Cache-Control': 'no-store' }).send('There is no such file in this build of the console. Reload the page to get the current one.\n');
      }
      return send(request, reply, path, file, IMMUTABLE);
    }
    if (file && path !== 'index.html') return send(request, reply, path, file, HOUR);
    // A client route: the console draws it.
    return send(request, reply, 'index.html', state.build.index, 'no-cache');
  };
  app.get('/app', hidden, serve);
  app.get('/app/*', hidden, serve);
}
