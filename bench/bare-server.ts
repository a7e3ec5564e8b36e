import Fastify from 'fastify';

/**
 * The baseline: a bare Fastify server answering with fixed JSON of the same shape
 * as the endpoint under test (BARE_BODY), or the same bytes of another type (BARE_CONTENT_TYPE),
 * so the ratio shows what Switchboard's own work costs.
 */
// With BARE_CONTENT_TYPE (the hosted page's HTML), the body is sent as it is, under that type.
const contentType = process.env.BARE_CONTENT_TYPE;
const raw = process.env.BARE_BODY ?? '{"success":true,"data":{}}';
const body = contentType ? raw : (JSON.parse(raw) as unknown);
// BARE_HEADERS (a JSON object): headers sent with every answer, to price the headers an endpoint's contract adds.
const headers = JSON.parse(process.env.BARE_HEADERS ?? '{}') as Record<string, string>;
const app = Fastify({ logger: false });
app.get('/healthz', async () => ({ ok: true }));
app.all('/*', async (_request, reply) => {
  reply.headers(headers);
  return contentType ? reply.header('content-type', contentType).send(body) : body;
});
await app.listen({ port: Number(process.env.PORT), host: '127.0.0.1' });
process.once('SIGTERM', () => void app.close().then(() => process.exit(0)));
