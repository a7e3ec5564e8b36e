import { mkdtempSync, rmSync } from 'node:fs';
import { createServer as createHttpsServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { Agent, Pool } from 'undici';
import { testCertificates } from '../test/support/https-endpoint.js';
import { memoryMb, printGrid, startSwitchboard, throwawaySchema } from './lib.js';
import { startBenchModel, type BenchModel } from './model-server.js';
import { benchApi, publishQuoteTool, seedAccounts } from './seed.js';

/**
 * Agent conversations against a scripted model on loopback (bench/model-server.ts, OpenAI Chat
 * Completions streamed) and an HTTPS tool endpoint on loopback, all in this process so one clock
 * stamps the model's, the tool's and the client's side:
 *
 * - **Time to first token**: a streamed turn (`Accept: text/event-stream`) from the request to the
 *   first `text-delta` event, against the same streamed request sent to the model directly, one
 *   turn at a time, alternating. Goal: Switchboard adds < 5 ms at p50. And the same turn through the
 *   chat widget's public path (`POST /api/public/chats/{chat_id}/session/messages`: Origin, the
 *   visitor's session, its rate limits), each visitor from an address of its own (TRUST_PROXY=1),
 *   a new visitor every 5 messages (the widget's per-session rate).
 * - **Overhead per tool round**: turns of 4 tool rounds; per round, the time from the end of the
 *   model's tool-call answer to the tool request's arrival, plus the time from the tool's answer to
 *   the next model request — everything Switchboard does in a round except waiting for the model
 *   and the tool. Against the same two hops made by a bare loop in this process (undici, no checks,
 *   no log). Goal: < 2 ms at p50.
 * - **1,000 concurrent streaming conversations**: every stream open at once (the model writes 20
 *   pieces 100 ms apart, so each lasts about 2 s): errors, streams the model saw open at once, and
 *   Switchboard's resident memory before and at peak.
 */
export async function benchConversations(options: { databaseUrl?: string } = {}): Promise<string[][]> {
  const label = options.databaseUrl ? 'PostgreSQL' : 'SQLite';
  const turns = Number(process.env.BENCH_CONVERSATION_TURNS ?? 300);
  const streams = Number(process.env.BENCH_CONVERSATION_STREAMS ?? 1000);
  const dataDir = mkdtempSync(join(tmpdir(), 'switchboard-bench-conversations-'));
  const schema = options.databaseUrl ? await throwawaySchema(options.databaseUrl) : undefined;
  const certs = testCertificates();
  const tool = await startStampedTool(certs);
  const model = await startBenchModel();
  const env: Record<string, string> = {
    DATA_DIR: dataDir, LOG_LEVEL: 'warn', NODE_ENV: 'development', TRUST_PROXY: '1',
    TOOL_ALLOW_PRIVATE_ENDPOINTS: '1', TOOL_CA_FILE: certs.caFile, MODEL_ALLOW_PRIVATE_ENDPOINTS: '1',
    // The 1,000 streams come from one address here, where a real node sees many: the per-address share (256) would close the rest.
    HTTP_MAX_CONNECTIONS_PER_ADDRESS: String(Math.max(256, streams + 50)),
    ...(schema ? { DATABASE_URL: schema.url } : {}),
  };
  const accounts = seedAccounts(env);
  const key = accounts.org.apiKey;
  const server = await startSwitchboard(env);
  const rows: string[][] = [];
  try {
    const { agentId } = await publishQuoteTool(server.url, accounts, tool.url);
    const provider = await benchApi(server.url, 'POST', '/api/org/model-providers', key, { name: 'Bench model', kind: 'openai', baseUrl: model.baseUrl, apiKey: 'sk-bench-not-a-real-key' });
    await benchApi(server.url, 'PATCH', `/api/org/agents/${agentId}`, key, { model: { providerId: provider.id, model: 'bench', instructions: 'You quote shipping prices.', maxToolRounds: 8 } });
    const newConversation = async () => (await benchApi(server.url, 'POST', `/api/org/agents/${agentId}/conversations`, key)).id as string;

    const switchboard = new Pool(server.url, { connections: 1 });
    const direct = new Pool(new URL(model.baseUrl).origin, { connections: 1 });
    const turn = (pool: Pool, conversationId: string, content: string) => streamedTurn(pool, `/api/org/conversations/${conversationId}/messages`, key, content);
    // The chat widget's public path, for visitors on CHAT_ORIGIN.
    const { chat } = await benchApi(server.url, 'PATCH', `/api/org/agents/${agentId}`, key, { chat: { enabled: true, allowedOrigins: [CHAT_ORIGIN] } });
    let visitors = 0;
    let visitor = { token: '', address: '', sent: 0 };
    const chatTurn = async (pool: Pool, content: string) => {
      if (visitor.token === '' || visitor.sent === 5) {
        visitors++;
        const address = `10.9.${(visitors >> 8) & 255}.${visitors & 255}`;
        const created = await pool.request({
          path: `/api/public/chats/${chat.chatId}/sessions`, method: 'POST',
          headers: { origin: CHAT_ORIGIN, 'content-type': 'application/json', 'x-forwarded-for': address },
          body: JSON.stringify({ pageUrl: `${CHAT_ORIGIN}/pricing` }),
        });
        if (created.statusCode !== 201) throw new Error(`a chat session answered ${created.statusCode}: ${await created.body.text()}`);
        visitor = { token: ((await created.body.json()) as { data: { token: string } }).data.token, address, sent: 0 };
      }
      visitor.sent++;
      return streamedTurn(pool, `/api/public/chats/${chat.chatId}/session/messages`, visitor.token, content, { origin: CHAT_ORIGIN, 'x-forwarded-for': visitor.address });
    };
    try {
      // Time to first token, alternating direct and through Switchboard; a new conversation every 50 turns (100 messages).
      const ttft = { direct: [] as number[], through: [] as number[], chat: [] as number[] };
      let conversationId = await newConversation();
      for (let i = 0; i < turns + 50; i++) {
        if (i % 50 === 49) conversationId = await newConversation();
        const viaModel = await firstTokenDirect(direct);
        const viaSwitchboard = (await turn(switchboard, conversationId, 'rounds=0 chunks=4')).firstToken;
        const viaChat = (await chatTurn(switchboard, 'rounds=0 chunks=4')).firstToken;
        if (i >= 50) {
          ttft.direct.push(viaModel);
          ttft.through.push(viaSwitchboard);
          ttft.chat.push(viaChat);
        }
      }
      const ttftDirect = percentiles(ttft.direct);
      const ttftThrough = percentiles(ttft.through);
      const ttftChat = percentiles(ttft.chat);
      rows.push([
        `time to first token (${label}), ${turns} turns`,
        `direct p50 ${ms(ttftDirect.p50)}, p99 ${ms(ttftDirect.p99)}; through Switchboard p50 ${ms(ttftThrough.p50)}, p99 ${ms(ttftThrough.p99)}; added p50 ${ms(ttftThrough.p50 - ttftDirect.p50)}`,
        'added p50 < 5 ms',
      ]);
      rows.push([
        `time to first token, chat widget's public path (${label}), ${turns} turns`,
        `through /api/public/chats/…/session/messages p50 ${ms(ttftChat.p50)}, p99 ${ms(ttftChat.p99)}; added over the model p50 ${ms(ttftChat.p50 - ttftDirect.p50)}, over the Operator API's turn p50 ${ms(ttftChat.p50 - ttftThrough.p50)}`,
        'reported (issue 22)',
      ]);

      // Overhead per tool round: Switchboard's, then a bare loop's over the same hops.
      const rounds = 4;
      const roundTurns = Math.max(20, Math.floor(turns / 3));
      const overhead: number[] = [];
      conversationId = await newConversation();
      for (let i = 0; i < roundTurns + 10; i++) {
        if (i % 10 === 9) conversationId = await newConversation();
        const from = model.stamps.length;
        const fromTool = tool.stamps.length;
        const result = await turn(switchboard, conversationId, `rounds=${rounds} chunks=1`);
        if (!result.complete) throw new Error(`a tool-round turn did not complete: ${result.text.slice(-1500)}`);
        if (i >= 10) overhead.push(...roundOverheads(model, from, tool, fromTool));
      }
      const bare: number[] = [];
      const toolPool = new Pool(new URL(tool.url).origin, { connections: 1, connect: { ca: [certs.caPem] } });
      try {
        for (let i = 0; i < roundTurns + 10; i++) {
          const from = model.stamps.length;
          const fromTool = tool.stamps.length;
          await bareLoop(direct, toolPool, new URL(tool.url).pathname, rounds);
          if (i >= 10) bare.push(...roundOverheads(model, from, tool, fromTool));
        }
      } finally {
        await toolPool.close();
      }
      const ours = percentiles(overhead);
      const floor = percentiles(bare);
      rows.push([
        `overhead per tool round (${label}), ${overhead.length} rounds`,
        `Switchboard p50 ${ms(ours.p50)}, p99 ${ms(ours.p99)}; bare undici loop p50 ${ms(floor.p50)}, p99 ${ms(floor.p99)}; beyond the bare loop p50 ${ms(ours.p50 - floor.p50)}`,
        'p50 < 2 ms',
      ]);
    } finally {
      await switchboard.close();
      await direct.close();
    }

    // 1,000 concurrent streaming conversations.
    const ids: string[] = [];
    for (let i = 0; i < streams; i += 20) ids.push(...(await Promise.all(Array.from({ length: Math.min(20, streams - i) }, newConversation))));
    const before = memoryMb(server.pid).rss;
    let peak = before;
    const sampler = setInterval(() => { peak = Math.max(peak, memoryMb(server.pid).rss); }, 50);
    const many = new Agent({ connections: streams + 10, pipelining: 1 });
    model.resetPeak();
    const started = performance.now();
    const durations: number[] = [];
    let failed = 0;
    try {
      await Promise.all(ids.map(async (id) => {
        const t0 = performance.now();
        try {
          const result = await streamedTurn(many, `${server.url}/api/org/conversations/${id}/messages`, key, 'rounds=0 chunks=20 delay=100');
          if (!result.complete) failed++;
        } catch {
          failed++;
        }
        durations.push(performance.now() - t0);
      }));
    } finally {
      clearInterval(sampler);
      await many.close();
    }
    const wall = performance.now() - started;
    const each = percentiles(durations);
    rows.push([
      `${streams} concurrent streams (${label})`,
      `${streams - failed}/${streams} complete, ${model.peakOpen} open at once at the model; each ${ms(each.p50)} p50 / ${ms(each.p99)} p99 (the model alone: 1.9 s), all in ${(wall / 1000).toFixed(1)} s; RSS ${before.toFixed(0)} → ${peak.toFixed(0)} MB (peak)`,
      'no error; report RSS',
    ]);
  } finally {
    await server.stop();
    await model.close();
    await tool.close();
    await schema?.drop();
    rmSync(dataDir, { recursive: true, force: true });
  }
  return rows;
}

const ms = (value: number) => `${value.toFixed(2)} ms`;

function percentiles(values: number[]): { p50: number; p99: number } {
  const sorted = [...values].sort((a, b) => a - b);
  const at = (p: number) => sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(p * sorted.length) - 1))] ?? Number.NaN;
  return { p50: at(0.5), p99: at(0.99) };
}

interface Stamp { kind: 'request' | 'answered'; at: number }

/** The HTTPS tool endpoint: a small JSON quote, its request's arrival and its answer's end stamped. */
async function startStampedTool(certs: ReturnType<typeof testCertificates>): Promise<{ url: string; stamps: Stamp[]; close(): Promise<void> }> {
  const stamps: Stamp[] = [];
  const body = JSON.stringify({ price: 12.5, currency: 'EUR', carrier: 'Bench Post', days: 3 });
  const server: Server = createHttpsServer({ key: certs.key, cert: certs.cert }, (req, res) => {
    stamps.push({ kind: 'request', at: performance.now() });
    req.resume();
    req.on('end', () => {
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
      res.end(body);
      stamps.push({ kind: 'answered', at: performance.now() });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `https://127.0.0.1:${(server.address() as AddressInfo).port}/quote`,
    stamps,
    close: () => new Promise<void>((resolve) => { server.closeAllConnections(); server.close(() => resolve()); }),
  };
}

/**
 * Per round of one turn: (tool request arrived − model's tool-call answer ended) + (next model
 * request arrived − tool answered). The stamps since `from`/`fromTool` are one turn's, in order.
 */
function roundOverheads(model: BenchModel, from: number, tool: { stamps: Stamp[] }, fromTool: number): number[] {
  const modelStamps = model.stamps.slice(from);
  const toolStamps = tool.stamps.slice(fromTool);
  const out: number[] = [];
  let t = 0;
  for (let i = 0; i < modelStamps.length; i++) {
    const stamp = modelStamps[i]!;
    if (stamp.kind !== 'answered' || !stamp.toolCall) continue;
    const toolRequest = toolStamps[t];
    const toolAnswered = toolStamps[t + 1];
    const nextModelRequest = modelStamps.slice(i + 1).find((s) => s.kind === 'request');
    t += 2;
    if (!toolRequest || !toolAnswered || !nextModelRequest) continue;
    out.push(toolRequest.at - stamp.at + (nextModelRequest.at - toolAnswered.at));
  }
  return out;
}

/** One streamed turn through Switchboard: ms to the first `text-delta` event, and whether `finish` said complete. */
/** The origin of the host page in the chat widget's scenario (only its name: nothing is served there). */
const CHAT_ORIGIN = 'https://shop.example.com';

async function streamedTurn(dispatcher: Pool | Agent, path: string, key: string, content: string, extraHeaders: Record<string, string> = {}): Promise<{ firstToken: number; complete: boolean; text: string }> {
  const started = performance.now();
  const url = path.startsWith('http') ? new URL(path) : undefined;
  const response = await (dispatcher as Pool).request({
    ...(url ? { origin: url.origin, path: url.pathname } : { path }),
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, accept: 'text/event-stream', 'content-type': 'application/json', ...extraHeaders },
    body: JSON.stringify({ content }),
  });
  if (response.statusCode !== 200) throw new Error(`a turn answered ${response.statusCode}: ${await response.body.text()}`);
  let firstToken = Number.NaN;
  let text = '';
  for await (const piece of response.body) {
    text += piece;
    if (Number.isNaN(firstToken) && text.includes('event: text-delta')) firstToken = performance.now() - started;
  }
  const finish = /event: finish\ndata: (.*)\n/.exec(text)?.[1];
  return { text, firstToken, complete: finish !== undefined && (JSON.parse(finish) as { status: string }).status === 'complete' };
}

/** The same streamed request, straight to the model: ms to its first text piece. */
async function firstTokenDirect(pool: Pool): Promise<number> {
  const started = performance.now();
  const response = await pool.request({
    path: '/v1/chat/completions', method: 'POST', headers: { 'content-type': 'application/json', authorization: 'Bearer sk-bench' },
    body: JSON.stringify({ model: 'bench', stream: true, messages: [{ role: 'user', content: 'rounds=0 chunks=4' }] }),
  });
  let first = Number.NaN;
  let text = '';
  for await (const piece of response.body) {
    text += piece;
    if (Number.isNaN(first) && text.includes('"content":"word0')) first = performance.now() - started;
  }
  return first;
}

/** The floor of a tool round: read the model's streamed tool call, call the tool, ask the model again. No checks, no log. */
async function bareLoop(model: Pool, tool: Pool, toolPath: string, rounds: number): Promise<void> {
  const messages: unknown[] = [{ role: 'user', content: `rounds=${rounds} chunks=1` }];
  for (let round = 0; round <= rounds; round++) {
    const response = await model.request({
      path: '/v1/chat/completions', method: 'POST', headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'bench', stream: true, messages }),
    });
    const text = await response.body.text();
    const call = /"tool_calls":\[\{"index":0,"id":"([^"]+)".*?"arguments":"((?:[^"\\]|\\.)*)"/.exec(text);
    if (!call) return;
    const args = JSON.parse(JSON.parse(`"${call[2]}"`)) as Record<string, unknown>;
    const answer = await tool.request({ path: toolPath, method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ ...args, _svc_context: {} }) });
    const result = await answer.body.text();
    messages.push({ role: 'assistant', content: null, tool_calls: [{ id: call[1], type: 'function', function: { name: 'shipping_quote', arguments: JSON.stringify(args) } }] });
    messages.push({ role: 'tool', tool_call_id: call[1], content: result });
  }
}

// `npx tsx bench/conversations.ts` runs this group alone (after `npm run build`).
if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const rows = await benchConversations();
  const databaseUrl = process.env.BENCH_DATABASE_URL ?? process.env.TEST_DATABASE_URL;
  if (databaseUrl) rows.push(...(await benchConversations({ databaseUrl })));
  printGrid(['conversations', 'figures', 'goal'], rows);
}
