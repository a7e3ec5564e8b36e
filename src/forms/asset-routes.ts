import type { FastifyReply, FastifyRequest } from 'fastify';
import type { App } from '../http/app-type.js';
import { AppError } from '../http/errors.js';
import { sendFromMemory } from '../http/in-memory.js';
import type { WebAsset, WebAssets } from './web-assets.js';

/**
 * The browser code, from dist/web (web-assets.ts), with ETag and 304, the build's .br / .gz copy as
 * the client accepts (with `Vary: Accept-Encoding`, set by sendFromMemory), `Access-Control-Allow-Origin: *`:
 * - `GET /form-embed.js`: the snippet's URL, loaded by every page that embeds a form; 5 minutes of
 *   caching, so a new build reaches pages soon.
 * - `GET /chat-embed.js`: the chat widget's snippet URL (web/chat, docs/chat-widget.md), the same way.
 * - `GET /form-embed.<hash>.js`, `GET /chat-embed.<hash>.js` and `GET /assets/<name>.<hash>.(js|css)`: immutable, a year, so a
 *   browser asks once (the hosted page's script and stylesheet, loaded by every new visitor).
 * All from memory, by hand (http/in-memory.ts): through @fastify/static (a stat, an open and a stream
 * per request) form-embed.js cost 113 µs of server CPU per request instead of 22 and served 0.43× the
 * requests per second (8,017/s vs 18,475/s), and the hosted page's stylesheet 109 µs instead of 24
 * (0.36×), far over the 5% a change of plumbing may cost (bench/compare.ts, 12 s per build, 2026-11-26).
 */
const IMMUTABLE = 'public, max-age=31536000, immutable';
const SHORT = 'public, max-age=300';

const COMMON_HEADERS = {
  'Access-Control-Allow-Origin': '*',
  'Cross-Origin-Resource-Policy': 'cross-origin',
  'X-Content-Type-Options': 'nosniff',
};

function sendImmutable(request: FastifyRequest, reply: FastifyReply, asset: WebAsset): FastifyReply {
  const type = asset.name.endsWith('.css') ? 'text/css; charset=utf-8' : 'text/javascript; charset=utf-8';
  return sendFromMemory(request, reply.headers(COMMON_HEADERS).headers({ 'Content-Type': type, 'Cache-Control': IMMUTABLE }), asset.file);
}

export function registerAssetRoutes(app: App, deps: { assets: WebAssets }): void {
  const notFound = () => new AppError('NOT_FOUND', 'There is no such file. The current one is /form-embed.js.');
  const built = () => {
    const state = deps.assets.load();
    if (!state.ok) throw new AppError('SERVICE_UNAVAILABLE', state.message);
    return state.set;
  };
  /** The file, when the build has it (only names from its manifest are served). */
  const find = (name: string): WebAsset => {
    const asset = built().byName(name);
    if (!asset) throw notFound();
    return asset;
  };
  const hidden = { schema: { hide: true } };

  app.get('/form-embed.js', hidden, (request, reply) =>
    sendFromMemory(request, reply.headers(COMMON_HEADERS).headers({ 'Content-Type': 'text/javascript; charset=utf-8', 'Cache-Control': SHORT }), built().embed),
  );
  app.get('/form-embed.:hash(^[0-9a-f]{12}).js', hidden, (request, reply) => {
    return sendImmutable(request, reply, find(`form-embed.${(request.params as { hash: string }).hash}.js`));
  });
  app.get('/chat-embed.js', hidden, (request, reply) => {
    const file = built().chatEmbed;
    if (!file) throw new AppError('SERVICE_UNAVAILABLE', 'The chat widget is not built: run `npm run build`.');
    return sendFromMemory(request, reply.headers(COMMON_HEADERS).headers({ 'Content-Type': 'text/javascript; charset=utf-8', 'Cache-Control': SHORT }), file);
  });
  app.get('/chat-embed.:hash(^[0-9a-f]{12}).js', hidden, (request, reply) => {
    return sendImmutable(request, reply, find(`chat-embed.${(request.params as { hash: string }).hash}.js`));
  });
  app.get('/assets/:name', hidden, (request, reply) => {
    const { name } = request.params as { name: string };
    // Only hashed names are served here: they never change, so they are cached for a year.
    if (!/^[\w-]+\.[0-9a-f]{12}\.(js|css)$/.test(name)) throw notFound();
    return sendImmutable(request, reply, find(name));
  });
}
