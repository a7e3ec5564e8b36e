import fastifyCookie from '@fastify/cookie';
import send from '@fastify/send';
import fastifyStatic from '@fastify/static';
import type { App } from './app-type.js';

/**
 * The HTTP plumbing Fastify's own plugins do, registered once for the whole app (before any route):
 * - @fastify/cookie, without hooks: `app.parseCookie` and `app.serializeCookie` for the console session
 *   (sessions/sessions-service.ts);
 * - @fastify/static without routes of its own (`serve: false`): `reply.sendFile(name, dir)` sends a
 *   file from disk with a weak ETag (304 on If-None-Match) and, when the client accepts it, the
 *   build's `.br` or `.gz` copy (`preCompressed`: scripts/build-web.mjs and scripts/precompress.mjs
 *   write them, so nothing is compressed per request). The features choose the names, the
 *   Cache-Control and the other headers (forms/asset-routes.ts, web/console-routes.ts).
 * CORS is per API and by hand: `openCors` (http/cors.ts) says why.
 */
export async function registerHttpPlugins(app: App): Promise<void> {
  // RFC 9239: JavaScript is text/javascript (mime 3, which @fastify/send uses, still says application/javascript).
  send.mime.define({ 'text/javascript': ['js', 'mjs'] }, true);
  // Without its hooks: they would run on every route (onRequest parses, onSend writes Set-Cookie), measured at
  // 0.7–0.85 µs of server CPU per request on a bare route of 13–16 µs, about 4% of the public config GET's ~20 µs,
  // which reads no cookie. The session code calls its parser and serializer (app.parseCookie, app.serializeCookie:
  // sessions/sessions-service.ts) where it reads or writes the one cookie; reply.setCookie would write nothing.
  await app.register(fastifyCookie, { hook: false });
  // Cache-Control is the route's (set before sendFile); Last-Modified would only repeat the ETag.
  await app.register(fastifyStatic, { serve: false, preCompressed: true, cacheControl: false, lastModified: false });
}
