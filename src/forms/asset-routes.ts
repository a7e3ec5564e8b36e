import type { FastifyReply } from 'fastify';
import type { App } from '../http/app-type.js';
import { AppError } from '../http/errors.js';
import type { WebAssets } from './web-assets.js';

/**
 * The browser code, from dist/web (web-assets.ts), sent by @fastify/static (http/plugins.ts: ETag
 * and 304, the build's .br / .gz copies as the client accepts):
 * - `GET /form-embed.js`: the snippet's URL; 5 minutes of caching, so a new build reaches pages soon;
 * - `GET /form-embed.<hash>.js` and `GET /assets/<name>.<hash>.(js|css)`: immutable, a year;
 * all with `Access-Control-Allow-Origin: *` and `Vary: Accept-Encoding`.
 */
const IMMUTABLE = 'public, max-age=31536000, immutable';
const SHORT = 'public, max-age=300';

function sendAsset(reply: FastifyReply, dir: string, name: string, cacheControl: string): FastifyReply {
  reply.headers({
    'Cache-Control': cacheControl,
    'Access-Control-Allow-Origin': '*',
    'Cross-Origin-Resource-Policy': 'cross-origin',
    'X-Content-Type-Options': 'nosniff',
    Vary: 'Accept-Encoding',
  });
  return reply.sendFile(name, dir);
}

export function registerAssetRoutes(app: App, deps: { assets: WebAssets }): void {
  const notFound = () => new AppError('NOT_FOUND', 'There is no such file. The current one is /form-embed.js.');
  /** The build's directory and the file's name, when the build has it (only names from its manifest are served). */
  const find = (name: string) => {
    const state = deps.assets.load();
    if (!state.ok) throw new AppError('SERVICE_UNAVAILABLE', state.message);
    const asset = state.set.byName(name);
    if (!asset) throw notFound();
    return { dir: state.set.dir, name: asset.name };
  };
  const hidden = { schema: { hide: true } };

  app.get('/form-embed.js', hidden, (_request, reply) => {
    const { dir, name } = find('form-embed.js');
    return sendAsset(reply, dir, name, SHORT);
  });
  app.get('/form-embed.:hash(^[0-9a-f]{12}).js', hidden, (request, reply) => {
    const { dir, name } = find(`form-embed.${(request.params as { hash: string }).hash}.js`);
    return sendAsset(reply, dir, name, IMMUTABLE);
  });
  app.get('/assets/:name', hidden, (request, reply) => {
    const { name } = request.params as { name: string };
    // Only hashed names are served here: they never change, so they are cached for a year.
    if (!/^[\w-]+\.[0-9a-f]{12}\.(js|css)$/.test(name)) throw notFound();
    const found = find(name);
    return sendAsset(reply, found.dir, found.name, IMMUTABLE);
  });
}
