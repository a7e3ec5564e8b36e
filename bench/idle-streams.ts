import { request, type ClientRequest } from 'node:http';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { pino } from 'pino';
import { loadConfig } from '../src/config.js';
import { openDatabase } from '../src/db/database.js';
import { migrateToLatest } from '../src/db/migrate.js';
import { randomBase62 } from '../src/lib/ids.js';
import { createServices } from '../src/services.js';
import { addressSequence, createBenchForm, load, memoryMb, mergeRuns, processCpuUs, startSwitchboard, throwawaySchema, type LoadResult } from './lib.js';

/**
 * Idle widget streams (issue 35): STREAMS visitors each hold GET /api/public/chats/{chat_id}/session/events open on
 * one node, as a page with the chat widget does while nobody writes. Measured in one run, against the same node
 * without them:
 *
 * - memory per stream: the server's resident memory with the streams open, less before, over their number;
 * - CPU at idle: the server's CPU time over IDLE_SECONDS with the streams open (keep-alive comments included), and
 *   without;
 * - the public submit path with them open: POST …/submit (a new person each time, as bench/forms.ts), in rounds
 *   without streams, with them, and without again; the goal is within 5 % of without.
 *
 * Every stream is its own connection from its own client address (X-Forwarded-For, TRUST_PROXY=1), so the per-address
 * stream limit counts each visitor as the one it is.
 */
const STREAMS = Number(process.env.BENCH_STREAMS ?? 1000);
const IDLE_SECONDS = 30;
const ORIGIN = 'https://shop.example';

export async function benchIdleStreams(options: { databaseUrl?: string; seconds?: number } = {}): Promise<string[][]> {
  const label = options.databaseUrl ? 'PostgreSQL' : 'SQLite';
  const seconds = options.seconds ?? Number(process.env.BENCH_SECONDS ?? 10);
  const dataDir = mkdtempSync(join(tmpdir(), 'switchboard-bench-streams-'));
  const schema = options.databaseUrl ? await throwawaySchema(options.databaseUrl) : undefined;
  const env: Record<string, string> = {
    DATA_DIR: dataDir, LOG_LEVEL: 'warn', NODE_ENV: 'development', TRUST_PROXY: '1', WEBHOOK_DELIVERY: 'off', MODEL_ALLOW_PRIVATE_ENDPOINTS: '1',
    ...(schema ? { DATABASE_URL: schema.url } : {}),
  };
  const database = openDatabase({ databaseUrl: schema?.url, dataDir });
  await migrateToLatest(database.db);
  const services = await createServices(loadConfig(env), { database, log: pino({ level: 'silent' }), redis: false, mailer: null });
  const org = await services.orgs.createOrganization({ name: 'Bench Streams', email: `bench-${randomBase62(8).toLowerCase()}@example.com`, password: 'benchmark-password' });
  await services.close();
  await database.close();

  const server = await startSwitchboard(env);
  const streams: ClientRequest[] = [];
  try {
    const api = async (method: string, path: string, body?: unknown) => {
      const response = await fetch(`${server.url}${path}`, {
        method,
        headers: { authorization: `Bearer ${org.apiKey.key}`, ...(body !== undefined ? { 'content-type': 'application/json' } : {}) },
        ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
      });
      if (!response.ok) throw new Error(`${method} ${path}: ${response.status} ${await response.text()}`);
      return ((await response.json()) as { data: Record<string, any> }).data;
    };
    const agent = await api('POST', '/api/org/agents', {
      name: 'Front desk',
      branding: { name: 'Bench', primaryColor: '#1a73e8', backgroundColor: '#ffffff', textColor: '#202124', logoUrl: 'https://bench.example/logo.png' },
    });
    // A chat answers only with a model; nobody writes here, so the provider (a closed loopback port) is never asked.
    const provider = await api('POST', '/api/org/model-providers', { name: 'Never asked', kind: 'openai', baseUrl: 'http://127.0.0.1:9/v1', apiKey: 'sk-bench-not-a-real-key' });
    await api('PATCH', `/api/org/agents/${agent.id}`, { model: { providerId: provider.id, model: 'bench', instructions: 'You answer visitors.' } });
    const patched = await api('PATCH', `/api/org/agents/${agent.id}`, { chat: { enabled: true, allowedOrigins: [ORIGIN] } });
    const chatId = patched.chat.chatId as string;
    const slug = `bench-${randomBase62(8).toLowerCase()}`;
    await createBenchForm(server.url, org.apiKey.key, slug);
    const consentVersion = ((await (await fetch(`${server.url}/api/public/forms/${slug}`)).json()) as { data: { consentVersion: string } }).data.consentVersion;

    const nextAddress = addressSequence();
    let person = 0;
    const submitRequest = (req: { headers?: Record<string, string> }) => {
      person++;
      return { ...req, headers: { 'content-type': 'application/json', 'x-forwarded-for': nextAddress() }, body: `{"consentVersion":${JSON.stringify(consentVersion)},"name":"Visitor ${person}","email":"visitor-${slug}-${person}@example.com","message":"Mornings, please."}` };
    };
    const submit = (length: number): Promise<LoadResult> =>
      load({ url: `${server.url}/api/public/forms/${slug}/submit`, serverPid: server.pid, method: 'POST', connections: 50, seconds: length, setupRequest: submitRequest });

    // Sessions first (each from its own address), so opening the streams is all that changes between the rounds.
    const sessions: Array<{ token: string; address: string }> = [];
    for (let i = 0; i < STREAMS; i++) {
      const address = `172.${16 + ((i >> 16) & 15)}.${(i >> 8) & 255}.${i & 255}`;
      const response = await fetch(`${server.url}/api/public/chats/${chatId}/sessions`, { method: 'POST', headers: { origin: ORIGIN, 'x-forwarded-for': address, 'content-type': 'application/json' }, body: '{}' });
      if (response.status !== 201) throw new Error(`session ${i}: ${response.status} ${await response.text()}`);
      sessions.push({ token: ((await response.json()) as { data: { token: string } }).data.token, address });
    }

    await submit(2);
    const quarter = seconds / 4;
    const without: LoadResult[] = [await submit(quarter), await submit(quarter)];
    const idleCpu = async () => {
      const before = processCpuUs(server.pid);
      await sleep(IDLE_SECONDS * 1000);
      return (processCpuUs(server.pid) - before) / (IDLE_SECONDS * 10_000);
    };
    const idleWithout = await idleCpu();
    const rssBefore = memoryMb(server.pid).rss;

    let opened = 0;
    await Promise.all(sessions.map((session) => new Promise<void>((resolve, reject) => {
      const url = new URL(`${server.url}/api/public/chats/${chatId}/session/events`);
      const req = request({ host: url.hostname, port: url.port, path: url.pathname, agent: false, headers: { origin: ORIGIN, authorization: `Bearer ${session.token}`, 'x-forwarded-for': session.address, accept: 'text/event-stream' } }, (response) => {
        if (response.statusCode !== 200) return reject(new Error(`stream: ${response.statusCode}`));
        opened++;
        response.resume();
        resolve();
      });
      req.on('error', (error) => (opened < STREAMS ? reject(error) : undefined));
      req.end();
      streams.push(req);
    })));
    await sleep(2000);
    const rssWith = memoryMb(server.pid).rss;
    const idleWith = await idleCpu();
    const withStreams: LoadResult[] = [await submit(quarter), await submit(quarter)];
    for (const stream of streams) stream.destroy();
    streams.length = 0;
    await sleep(1000);
    without.push(await submit(quarter), await submit(quarter));

    const base = mergeRuns(without);
    const open = mergeRuns(withStreams);
    const perStreamKb = ((rssWith - rssBefore) * 1024) / STREAMS;
    return [
      [`${STREAMS} idle widget streams, memory (${label})`, `${perStreamKb.toFixed(1)} KB per stream (RSS ${rssBefore.toFixed(0)} → ${rssWith.toFixed(0)} MB)`, 'small'],
      [`${STREAMS} idle widget streams, CPU at idle (${label})`, `${idleWith.toFixed(2)} % of a core with them, ${idleWithout.toFixed(2)} % without (${IDLE_SECONDS} s each)`, '≈ 0'],
      [`POST …/submit with ${STREAMS} streams open (${label})`, `${open.requestsPerSecond.toFixed(0)}/s vs ${base.requestsPerSecond.toFixed(0)}/s without: ${(open.requestsPerSecond / base.requestsPerSecond).toFixed(3)}×; p99 ${open.p99} vs ${base.p99} ms`, '≥ 0.95× without'],
    ];
  } finally {
    for (const stream of streams) stream.destroy();
    await server.stop();
    await schema?.drop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}
