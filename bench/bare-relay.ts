import { readFileSync } from 'node:fs';
import Fastify from 'fastify';
import { Agent } from 'undici';

/**
 * The floor of a call made through a relay on this machine: a bare Fastify server whose one
 * route sends the request's body to the tool endpoint (RELAY_TARGET, HTTPS with the test CA in
 * RELAY_CA_FILE, over a keep-alive undici pool) and answers with the endpoint's JSON. No auth,
 * no lookup, no argument check, no signing, no log, no deadline: what remains is receiving one
 * HTTP request, making one HTTPS request and answering, which any tool-call path must do.
 * The tools benchmark measures it beside Switchboard's paths, in the same run.
 */
const target = new URL(process.env.RELAY_TARGET!);
const agent = new Agent({ connect: { ca: [readFileSync(process.env.RELAY_CA_FILE!, 'utf8')] } });
const app = Fastify({ logger: false });
app.get('/healthz', async () => ({ ok: true }));
app.post('/relay', async (request) => {
  const response = await agent.request({
    origin: target.origin, path: target.pathname, method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json' },
    body: JSON.stringify(request.body),
  });
  return { success: true, data: { status: response.statusCode, result: await response.body.json() } };
});
await app.listen({ port: Number(process.env.PORT), host: '127.0.0.1' });
process.once('SIGTERM', () => void app.close().then(() => process.exit(0)));
