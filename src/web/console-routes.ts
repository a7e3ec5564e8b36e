import type { FastifyReply, FastifyRequest } from 'fastify';
import type { App } from '../http/app-type.js';
import { sendFromMemory } from '../http/in-memory.js';
import { isCompressible, type ConsoleFiles } from './console-files.js';

/**
 * The console under /app (built by `npm run build` into dist/web/console, Vite `base: '/app/'`):
 * - `GET /` → 302 `/app/`;
 * - `/app/assets/*`: hashed names, immutable for a year, the build's brotli or gzip copy as the client accepts;
 * - other files of the build (its public folder: icons…): an hour;
 * - any other `/app` path: index.html with `Cache-Control: no-cache` (the console routes on the client).
 * Documents get a strict CSP. Without a build, `/app` answers a short page saying to run `npm run build`.
 * index.html, asked for on every visit and every reload, is answered from memory (http/in-memory.ts: from
 * disk it cost 103 µs of server CPU per request instead of 22). The other files are sent from disk by
 * @fastify/static (http/plugins.ts): hashed and immutable, a browser asks for each once per build.
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

const DOCUMENT_HEADERS = { 'Content-Security-Policy': CONSOLE_CSP, 'X-Frame-Options': 'DENY', 'Referrer-Policy': 'same-origin' };

/** A file of the build from disk (@fastify/static: ETag and 304, the build's .br / .gz copy as accepted). */
function send(reply: FastifyReply, dir: string, path: string, cacheControl: string): FastifyReply {
  reply.headers({ 'Cache-Control': cacheControl, 'X-Content-Type-Options': 'nosniff' });
  if (path.endsWith('.html')) reply.headers(DOCUMENT_HEADERS);
  if (isCompressible(path)) reply.header('Vary', 'Accept-Encoding');
  return reply.sendFile(path, dir);
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
    const { dir, files } = state.build;
    if (path.startsWith('assets/')) {
      if (!files.has(path)) {
        return reply.code(404).headers({ 'Content-Type': 'text/plain; charset=utf-8', 'Cache-Control': 'no-store' }).send('There is no such file in this build of the console. Reload the page to get the current one.\n');
      }
      return send(reply, dir, path, IMMUTABLE);
    }
    if (files.has(path) && path !== 'index.html') return send(reply, dir, path, HOUR);
    // A client route: the console draws it.
    reply.headers({ 'Content-Type': 'text/html; charset=utf-8', 'Cache-Control': 'no-cache', 'X-Content-Type-Options': 'nosniff', ...DOCUMENT_HEADERS });
    return sendFromMemory(request, reply, state.build.index);
  };
  app.get('/app', hidden, serve);
  app.get('/app/*', hidden, serve);
}
