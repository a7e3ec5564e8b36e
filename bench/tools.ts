import { fork } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { testCertificates } from '../test/support/https-endpoint.js';
import { freePort } from '../test/support/net.js';
import { benchApi, publishQuoteTool, seedAccounts } from './seed.js';
import { load, memoryMb, mergeRuns, printTable, sequentialLatency, serverNodeArgs, startChild, startSwitchboard, throwawaySchema, type LoadResult, type Row, type SequentialResult } from './lib.js';

/**
 * Tool calls under load (50 connections): a local HTTPS tool endpoint on 127.0.0.1 answering a
 * small JSON (its own process, test CA), called
 *
 * - directly (the baseline: TLS, keep-alive, the same JSON),
 * - through `POST /api/org/agents/{id}/tool-calls` of the compiled server (agent → invoker → endpoint),
 * - through MCP `tools/call` on `/mcp`, for each protocol revision served, replaying exactly the
 *   request the SDK's own client sends.
 *
 * The goal: the p50 a call through Switchboard adds over the direct call is under 1 ms, and its
 * throughput is at least 0.5× direct. Each path is also timed one call at a time (2,000 calls over
 * one keep-alive connection, sub-millisecond precision), which shows what a call adds when
 * nothing queues; under 50 connections on two cores the p50 is mostly queueing. Server CPU per call is Switchboard's (the endpoint's own is
 * in the direct row). Runs on SQLite, and on PostgreSQL when given a database URL.
 */
export async function benchTools(options: { databaseUrl?: string; seconds?: number; connections?: number } = {}): Promise<Row[]> {
  const label = options.databaseUrl ? 'PostgreSQL' : 'SQLite';
  const seconds = options.seconds ?? Number(process.env.BENCH_SECONDS ?? 10);
  const connections = options.connections ?? 50;
  const dataDir = mkdtempSync(join(tmpdir(), 'switchboard-bench-tools-'));
  const schema = options.databaseUrl ? await throwawaySchema(options.databaseUrl) : undefined;

  // The endpoint: HTTPS with the test CA's certificate (valid for 127.0.0.1), loopback only.
  const certs = testCertificates();
  writeFileSync(join(dataDir, 'tool.key'), certs.key, { mode: 0o600 });
  writeFileSync(join(dataDir, 'tool.pem'), certs.cert);
  const toolPort = await freePort();
  const tool = fork('bench/tool-endpoint.ts', [], {
    execArgv: ['--import', 'tsx'],
    env: { ...process.env, PORT: String(toolPort), TLS_KEY_FILE: join(dataDir, 'tool.key'), TLS_CERT_FILE: join(dataDir, 'tool.pem') },
    stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
  });
  await new Promise<void>((resolve, reject) => {
    tool.once('message', () => resolve());
    tool.once('exit', (code) => reject(new Error(`the tool endpoint exited with ${code}`)));
  });
  const toolUrl = `https://127.0.0.1:${toolPort}/quote`;

  const env: Record<string, string> = {
    DATA_DIR: dataDir, LOG_LEVEL: 'warn', NODE_ENV: 'development',
    TOOL_ALLOW_PRIVATE_ENDPOINTS: '1', TOOL_CA_FILE: certs.caFile,
    ...(schema ? { DATABASE_URL: schema.url } : {}),
  };
  const accounts = seedAccounts(env);
  const org = accounts.org;

  const server = await startSwitchboard(env);
  // The floor: a bare Fastify + undici relay to the same endpoint (bench/bare-relay.ts).
  // Profiled with the servers (BENCH_SERVER_NODE_ARGS): the floor's profile is the one to compare with.
  const relay = await startChild('bench/bare-relay.ts', { RELAY_TARGET: toolUrl, RELAY_CA_FILE: certs.caFile }, '/healthz', serverNodeArgs());
  const rows: Row[] = [];
  try {
    const { toolId, agentId } = await publishQuoteTool(server.url, accounts, toolUrl);
    const agentKey = (await benchApi(server.url, 'POST', `/api/org/agents/${agentId}/keys`, org.apiKey, { name: 'bench' })).key as string;
    const args = { weightKg: 2.5, country: 'PT' };

    // The MCP requests exactly as the SDK's client sends them, per revision (captured, then replayed).
    const mcpRequests: Array<{ revision: string; headers: Record<string, string>; body: string }> = [];
    for (const [revision, clientOptions] of [['2025-11-25', {}], ['2026-07-28', { versionNegotiation: { mode: { pin: '2026-07-28' } } }]] as const) {
      let captured: { headers: Record<string, string>; body: string } | undefined;
      const transport = new StreamableHTTPClientTransport(new URL(`${server.url}/mcp`), {
        requestInit: { headers: { Authorization: `Bearer ${agentKey}` } },
        fetch: async (url, init) => {
          const body = typeof init?.body === 'string' ? init.body : '';
          if (body.includes('"tools/call"')) captured = { headers: Object.fromEntries(new Headers(init?.headers).entries()), body };
          return fetch(url, init);
        },
      });
      const client = new Client({ name: 'switchboard-bench', version: '1.0.0' }, clientOptions);
      await client.connect(transport);
      const result = await client.callTool({ name: 'shipping_quote', arguments: args });
      if (result.isError || client.getNegotiatedProtocolVersion() !== revision) throw new Error(`MCP ${revision} call failed: ${JSON.stringify(result)}`);
      await client.close();
      if (!captured) throw new Error('the tools/call request was not captured');
      mcpRequests.push({ revision, ...captured });
    }

    // Each path's request, sent under load by autocannon and one at a time by sequentialLatency.
    type Target = { url: string; pid: number; headers: Record<string, string>; body: string; ca?: string };
    const targets: Array<{ name: string; target: Target }> = [
      {
        name: 'direct',
        target: {
          url: toolUrl, pid: tool.pid!, ca: certs.caPem, headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ ...args, _svc_context: { agentId, orgId: org.orgId, timestamp: new Date().toISOString(), callId: 'call_bench', toolId } }),
        },
      },
      { name: 'relay', target: { url: `${relay.url}/relay`, pid: relay.pid, headers: { 'content-type': 'application/json' }, body: JSON.stringify(args) } },
      {
        name: 'operator',
        target: {
          url: `${server.url}/api/org/agents/${agentId}/tool-calls`, pid: server.pid,
          headers: { authorization: `Bearer ${org.apiKey}`, 'content-type': 'application/json' },
          body: JSON.stringify({ name: 'shipping_quote', arguments: args }),
        },
      },
      ...mcpRequests.map((request) => ({ name: `mcp ${request.revision}`, target: { url: `${server.url}/mcp`, pid: server.pid, headers: request.headers, body: request.body } })),
    ];
    // BENCH_TOOLS_SCENARIOS=direct,operator (say) measures only those, e.g. to profile one path alone.
    const wanted = process.env.BENCH_TOOLS_SCENARIOS?.split(',').map((name) => name.trim());
    const scenarios = targets
      .filter((scenario) => !wanted || wanted.includes(scenario.name) || (scenario.name === 'direct'))
      .map(({ name, target }) => ({
        name,
        target,
        run: (length: number): Promise<LoadResult> => load({
          url: target.url, serverPid: target.pid, method: 'POST', connections, seconds: length, headers: target.headers, body: target.body,
          ...(target.ca ? { tlsOptions: { ca: target.ca } } : {}),
        }),
      }));

    // Warm everything up, then measure in alternating rounds so drift on this shared machine touches all alike.
    for (const scenario of scenarios) await scenario.run(2);
    const rounds = 3;
    const results = new Map<string, LoadResult[]>(scenarios.map((s) => [s.name, []]));
    for (let round = 0; round < rounds; round++) {
      for (const scenario of scenarios) results.get(scenario.name)!.push(await scenario.run(seconds / rounds));
    }
    // Then one call at a time: what each path adds when nothing queues (the p50 under load is mostly queueing).
    const oneAtATime = new Map<string, SequentialResult>();
    for (const { name, target } of scenarios) {
      oneAtATime.set(name, await sequentialLatency({ url: target.url, method: 'POST', headers: target.headers, body: target.body, ...(target.ca ? { ca: target.ca } : {}) }));
    }
    const merged = (name: string) => mergeRuns(results.get(name)!);
    const directResult = merged('direct');
    const directAlone = oneAtATime.get('direct')!;
    const added = (name: string, result: LoadResult) => {
      const alone = oneAtATime.get(name)!;
      return `p50 +${(result.p50 - directResult.p50).toFixed(1)} ms; one at a time p50 ${alone.p50.toFixed(2)} ms (+${(alone.p50 - directAlone.p50).toFixed(2)}), p99 ${alone.p99.toFixed(2)}`;
    };
    const goal = '+p50 <1 ms, ≥0.5× direct';
    rows.push({ scenario: `HTTPS endpoint, called directly; one at a time p50 ${directAlone.p50.toFixed(2)} ms, p99 ${directAlone.p99.toFixed(2)}`, result: directResult, rssMb: memoryMb(tool.pid!).peak });
    if (results.get('relay')) {
      const relayResult = merged('relay');
      rows.push({ scenario: `bare Fastify+undici relay (the floor), ${added('relay', relayResult)}`, result: relayResult, baseline: directResult, rssMb: memoryMb(relay.pid).peak });
    }
    if (results.get('operator')) {
      const operatorResult = merged('operator');
      rows.push({ scenario: `POST …/tool-calls (${label}), ${added('operator', operatorResult)}`, result: operatorResult, baseline: directResult, rssMb: memoryMb(server.pid).peak, goal });
    }
    for (const request of mcpRequests) {
      if (!results.get(`mcp ${request.revision}`)) continue;
      const result = merged(`mcp ${request.revision}`);
      rows.push({ scenario: `MCP tools/call ${request.revision} (${label}), ${added(`mcp ${request.revision}`, result)}`, result, baseline: directResult, rssMb: memoryMb(server.pid).peak, goal });
    }
  } finally {
    await relay.stop();
    await server.stop();
    await new Promise<void>((resolve) => {
      if (tool.exitCode !== null) return resolve();
      tool.once('exit', () => resolve());
      tool.kill('SIGTERM');
    });
    await schema?.drop();
    rmSync(dataDir, { recursive: true, force: true });
  }
  return rows;
}

// `npx tsx bench/tools.ts` runs this group alone (after `npm run build`).
if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const rows = await benchTools();
  const databaseUrl = process.env.BENCH_DATABASE_URL ?? process.env.TEST_DATABASE_URL;
  if (databaseUrl) rows.push(...(await benchTools({ databaseUrl })));
  printTable(rows);
}
