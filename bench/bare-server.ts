import Fastify from 'fastify';

/**
 * The baseline: a bare Fastify server answering with fixed JSON of the same shape
 * as the endpoint under test (BARE_BODY), so the ratio shows what Switchboard's own work costs.
 */
const body = JSON.parse(process.env.BARE_BODY ?? '{"success":true,"data":{}}') as unknown;
const app = Fastify({ logger: false });
app.get('/healthz', async () => ({ ok: true }));
app.all('/*', async () => body);
await app.listen({ port: Number(process.env.PORT), host: '127.0.0.1' });
process.once('SIGTERM', () => void app.close().then(() => process.exit(0)));
