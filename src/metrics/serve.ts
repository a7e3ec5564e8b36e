import { timingSafeEqual } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { App } from '../http/app-type.js';
import { AppError } from '../http/errors.js';
import { metricsServed, type Metrics, type MetricsConfig } from './metrics.js';

/**
 * Where the metrics are read. Never public: on a listener of their own (METRICS_PORT, on
 * METRICS_HOST, which defaults to HOST), where only the network decides who scrapes; and/or as
 * `GET /metrics` on the main port behind a bearer token (METRICS_TOKEN), for a scraper that can
 * reach only that port. With neither set, nothing is served and the HTTP histogram is not kept.
 */

/** The route's pattern, so ids in paths never become label values; requests no route matched share one label. */
const routeOf = (request: FastifyRequest): string => request.routeOptions.url ?? 'unmatched';

export function installMetrics(app: App, metrics: Metrics, config: { metrics: MetricsConfig }): void {
  if (!metricsServed(config)) return;
  // Synchronous, like the other per-request hook: no promise per request. A streamed answer (hijacked) is not counted here.
  app.addHook('onResponse', (request, reply, done) => {
    metrics.httpRequest(routeOf(request), request.method, reply.statusCode, reply.elapsedTime / 1000);
    done();
  });

  const { token, port, host } = config.metrics;
  if (token !== undefined) {
    const expected = Buffer.from(`Bearer ${token}`);
    app.get('/metrics', { schema: { hide: true } }, async (request: FastifyRequest, reply: FastifyReply) => {
      const given = Buffer.from(request.headers.authorization ?? '');
      if (given.length !== expected.length || !timingSafeEqual(given, expected)) {
        throw new AppError('UNAUTHORIZED', 'Metrics need the bearer token set in METRICS_TOKEN.', { headers: { 'WWW-Authenticate': 'Bearer realm="metrics"' } });
      }
      return reply.type(metrics.registry.contentType).send(await metrics.registry.metrics());
    });
  }

  if (port !== undefined) {
    let server: Server | undefined;
    app.addHook('onListen', async () => {
      server = await listenForScrapes(metrics, host, port);
      app.log.info({ url: `http://${host.includes(':') ? `[${host}]` : host}:${port}/metrics` }, 'metrics served');
    });
    app.addHook('onClose', async () => {
      if (server) await new Promise<void>((resolve) => server!.close(() => resolve()));
    });
  }
}

/** The metrics listener: `GET /metrics` and nothing else. */
function listenForScrapes(metrics: Metrics, host: string, port: number): Promise<Server> {
  const server = createServer((request, response) => {
    const path = (request.url ?? '').split('?')[0];
    if (path !== '/metrics' || (request.method !== 'GET' && request.method !== 'HEAD')) {
      response.writeHead(404, { 'content-type': 'text/plain; charset=utf-8', 'x-content-type-options': 'nosniff' }).end('Not found: metrics are at GET /metrics.\n');
      return;
    }
    metrics.registry.metrics().then(
      (text) => response.writeHead(200, { 'content-type': metrics.registry.contentType, 'x-content-type-options': 'nosniff' }).end(request.method === 'HEAD' ? undefined : text),
      () => response.writeHead(500, { 'content-type': 'text/plain; charset=utf-8', 'x-content-type-options': 'nosniff' }).end('The metrics could not be collected.\n'),
    );
  });
  // A scrape is short; an idle scraper connection is not kept forever.
  server.keepAliveTimeout = 30_000;
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve(server);
    });
  });
}
