import type { FastifyReply, FastifyRequest } from 'fastify';
import type { App } from '../http/app-type.js';
import { AppError } from '../http/errors.js';
import { matchesEtag } from './public-routes.js';
import { pickEncoding, type WebAsset, type WebAssets } from './web-assets.js';

/**
 * The browser code, from dist/web (web-assets.ts):
 * - `GET /form-embed.js`: the snippet's URL; 5 minutes of caching, so a new build reaches pages soon;
 * - `GET /form-embed.<hash>.js` and `GET /assets/<name>.<hash>.(js|css)`: immutable, a year;
 * all with `Access-Control-Allow-Origin: *`, gzip or brotli as the client accepts, `Vary: Accept-Encoding`.
 */
const IMMUTABLE = 'public, max-age=31536000, immutable';
const SHORT = 'public, max-age=300';

function sendAsset(request: FastifyRequest, reply: FastifyReply, asset: WebAsset, cacheControl: string): FastifyReply {
  reply.headers({
    'Content-Type': asset.contentType,
    'Cache-Control': cacheControl,
    'Access-Control-Allow-Origin': '*',
    'Cross-Origin-Resource-Policy': 'cross-origin',
    'X-Content-Type-Options': 'nosniff',
    Vary: 'Accept-Encoding',
    ETag: asset.etag,
  });
  if (matchesEtag(request.headers['if-none-match'], asset.etag)) return reply.code(304).send();
  const encoding = pickEncoding(request.headers['accept-encoding']);
  if (encoding) reply.header('Content-Encoding', encoding);
  return reply.send(encoding === 'br' ? asset.br : encoding === 'gzip' ? asset.gzip : asset.identity);
}

export function registerAssetRoutes(app: App, deps: { assets: WebAssets }): void {
  const notFound = () => new AppError('NOT_FOUND', 'There is no such file. The current one is /form-embed.js.');
  const find = (name: string) => {
    const state = deps.assets.load();
    if (!state.ok) throw new AppError('SERVICE_UNAVAILABLE', state.message);
    return state.set.byName(name);
  };
  const hidden = { schema: { hide: true } };

  app.get('/form-embed.js', hidden, (request, reply) => {
    const asset = find('form-embed.js');
    if (!asset) throw notFound();
    return sendAsset(request, reply, asset, SHORT);
  });
  app.get('/form-embed.:hash(^[0-9a-f]{12}).js', hidden, (request, reply) => {
    const asset = find(`form-embed.${(request.params as { hash: string }).hash}.js`);
    if (!asset) throw notFound();
    return sendAsset(request, reply, asset, IMMUTABLE);
  });
  app.get('/assets/:name', hidden, (request, reply) => {
    const { name } = request.params as { name: string };
    // Only hashed names are served here: they never change, so they are cached for a year.
    const asset = /^[\w-]+\.[0-9a-f]{12}\.(js|css)$/.test(name) ? find(name) : undefined;
    if (!asset) throw notFound();
    return sendAsset(request, reply, asset, IMMUTABLE);
  });
}
