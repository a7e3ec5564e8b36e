import { fork, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { testCertificates } from '../test/support/https-endpoint.js';
import { freePort } from '../test/support/net.js';
import { connectInstallation, signInToConsole } from './oauth-connection.js';
import { benchApi, developerToken, publishQuoteShapedTool, publishQuoteTool, seedAccounts } from './seed.js';
import { interleavedLatency, load, memoryMb, mergeRuns, printTable, sequentialLatency, serverNodeArgs, startChild, startSwitchboard, throwawaySchema, type LoadResult, type Row, type SequentialResult } from './lib.js';

/**
 * Tool calls under load (50 connections): a local HTTPS tool endpoint on 127.0.0.1 answering a
 * small JSON (its own process, test CA), called
 *
 * - directly (the baseline: TLS, keep-alive, the same JSON),
 * - through `POST /api/org/agents/{id}/tool-calls` of the compiled server (agent → invoker → endpoint),
 * - through MCP `tools/call` on `/mcp`, for each protocol revision served, replaying exactly the
 *   request the SDK's own client sends,
 * - through `POST /api/org/agents/{id}/tool-calls` for the same tool published twice more, once with
 *   `authType: "bearer"` (a token entered on the installation) and once with `authType: "oauth2"` (an account
 *   connected through `/oauth/callback`, the endpoint process answering the token URL too): issue 33's figure, a
 *   connected call within 5% of a bearer one. The token is issued with `expires_in` of a day, so no refresh falls in
 *   the run (checked: the token URL is asked once, for the code exchange). In every round the two take their time
 *   in BENCH_TOOLS_PAIR_TURNS short alternating turns (default 4, of whole seconds: bearer, oauth2, oauth2,
 *   bearer, and the other way round in the next round), so drift on a shared machine touches both alike;
 *   BENCH_TOOLS_ROUNDS sets the rounds of the whole group (default 3). BENCH_TOOLS_PAIR_CONTROL=1 sends the bearer call in both halves of the pair: bearer ÷ bearer, what
 *   the method reads when there is no difference to find.
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
  // Two tokens of one length (so both calls' requests are the same size): the bearer installation's, and the one
  // the endpoint's token URL issues to the oauth2 installation.
  const bearerToken = randomBytes(32).toString('base64url');
  const oauthAccessToken = randomBytes(32).toString('base64url');
  const oauthExpiresIn = 86_400;
  const tool = fork('bench/tool-endpoint.ts', [], {
    execArgv: ['--import', 'tsx'],
    env: {
      ...process.env, PORT: String(toolPort), TLS_KEY_FILE: join(dataDir, 'tool.key'), TLS_CERT_FILE: join(dataDir, 'tool.pem'),
      OAUTH_ACCESS_TOKEN: oauthAccessToken, OAUTH_EXPIRES_IN: String(oauthExpiresIn),
    },
    stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
  });
  await new Promise<void>((resolve, reject) => {
    tool.once('message', () => resolve());
    tool.once('exit', (code) => reject(new Error(`the tool endpoint exited with ${code}`)));
  });
  const toolOrigin = `https://127.0.0.1:${toolPort}`;
  const toolUrl = `${toolOrigin}/quote`;

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

    // The same tool as a bearer one and as an oauth2 one (names of one length), both installed for every agent;
    // the oauth2 installation connected as a person would, through the console's session and /oauth/callback.
    const devToken = await developerToken(server.url, accounts);
    const bearerToolId = await publishQuoteShapedTool(server.url, devToken, toolUrl, { name: 'shipping_quote_bearer', authType: 'bearer' });
    const oauthToolId = await publishQuoteShapedTool(server.url, devToken, toolUrl, {
      name: 'shipping_quote_oauth2',
      authType: 'oauth2',
      oauth: { authorizationUrl: `${toolOrigin}/oauth/authorize`, tokenUrl: `${toolOrigin}/oauth/token`, scopes: ['quotes'], clientId: 'bench-client', clientSecret: 'bench-client-secret' },
    });
    await benchApi(server.url, 'POST', '/api/org/installations', org.apiKey, { toolId: bearerToolId, credentials: { token: bearerToken } });
    const oauthInstallation = await benchApi(server.url, 'POST', '/api/org/installations', org.apiKey, { toolId: oauthToolId });
    const session = await signInToConsole(server.url, org.email, org.password);
    await connectInstallation(server.url, org.apiKey, session, oauthInstallation.id as string);
    for (const name of ['shipping_quote_bearer', 'shipping_quote_oauth2']) {
      const called = await benchApi(server.url, 'POST', `/api/org/agents/${agentId}/tool-calls`, org.apiKey, { name, arguments: args });
      if (called.status !== 200) throw new Error(`${name}: ${JSON.stringify(called)}`);
    }

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
      ...(['bearer', 'oauth2'] as const).map((auth) => ({
        name: auth,
        target: {
          url: `${server.url}/api/org/agents/${agentId}/tool-calls`, pid: server.pid,
          headers: { authorization: `Bearer ${org.apiKey}`, 'content-type': 'application/json' },
          body: JSON.stringify({ name: `shipping_quote_${auth}`, arguments: args }),
        },
      })),
    ];
    const control = process.env.BENCH_TOOLS_PAIR_CONTROL === '1';
    if (control) targets.find((scenario) => scenario.name === 'oauth2')!.target.body = targets.find((scenario) => scenario.name === 'bearer')!.target.body;
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
    const rounds = Number(process.env.BENCH_TOOLS_ROUNDS ?? 3);
    const results = new Map<string, LoadResult[]>(scenarios.map((s) => [s.name, []]));
    const windows: Array<{ name: string; round: number; startUs: number; endUs: number }> = [];
    const measure = async (scenario: (typeof scenarios)[number], round: number, length: number) => {
      const startUs = Number(process.hrtime.bigint() / 1000n);
      results.get(scenario.name)!.push(await scenario.run(length));
      windows.push({ name: scenario.name, round, startUs, endUs: Number(process.hrtime.bigint() / 1000n) });
    };
    // bearer and oauth2 (when both run): each round's time of the two in short turns back to back, ABBA then BAAB.
    const bearer = scenarios.find((s) => s.name === 'bearer');
    const oauth2 = scenarios.find((s) => s.name === 'oauth2');
    const turns = bearer && oauth2 ? Number(process.env.BENCH_TOOLS_PAIR_TURNS ?? 4) : 1;
    for (let round = 0; round < rounds; round++) {
      for (const scenario of scenarios) {
        if (scenario === oauth2 && bearer) continue; // measured in bearer's turns
        if (scenario === bearer && oauth2) {
          for (let turn = 0; turn < turns; turn++) {
            // autocannon ends a run on its once-a-second sample: a turn is whole seconds.
            // Turned every round too (BOOB…, then OBBO…): neither is always the first after, or the last before, the other paths.
            for (const one of (turn + round) % 2 === 0 ? [bearer, oauth2] : [oauth2, bearer]) await measure(one, round, Math.max(1, Math.round(seconds / rounds / turns)));
          }
          continue;
        }
        await measure(scenario, round, seconds / rounds);
      }
    }
    // BENCH_TOOLS_WINDOWS=/tmp/windows writes /tmp/windows-SQLite.json (and -PostgreSQL): when each measured run was,
    // on the monotonic clock a --cpu-prof profile's timestamps use (µs), so a profile of the server can be split by path.
    if (process.env.BENCH_TOOLS_WINDOWS) writeFileSync(`${process.env.BENCH_TOOLS_WINDOWS}-${label}.json`, JSON.stringify({ label, windows, calls: Object.fromEntries([...results].map(([name, runs]) => [name, runs.map((run) => run.total)])) }));
    // Then one call at a time: what each path adds when nothing queues (the p50 under load is mostly queueing).
    const oneAtATime = new Map<string, SequentialResult>();
    const request = (target: Target) => ({ url: target.url, method: 'POST' as const, headers: target.headers, body: target.body, ...(target.ca ? { ca: target.ca } : {}) });
    for (const { name, target } of scenarios) {
      if ((name === 'bearer' || name === 'oauth2') && bearer && oauth2) continue;
      oneAtATime.set(name, await sequentialLatency(request(target)));
    }
    // bearer and oauth2 call by call in turns, so the two are timed under the same conditions.
    if (bearer && oauth2) {
      const [bearerAlone, oauthAlone] = await interleavedLatency([request(bearer.target), request(oauth2.target)]);
      oneAtATime.set('bearer', bearerAlone!);
      oneAtATime.set('oauth2', oauthAlone!);
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
    // The bearer and oauth2 rows (each alone with BENCH_TOOLS_SCENARIOS=bearer or oauth2, to profile one path), and
    // when both ran, oauth2 ÷ bearer: over the whole run, per round, in server CPU per call and one call at a time.
    if (results.get('bearer')) {
      const bearerResult = merged('bearer');
      rows.push({ scenario: `POST …/tool-calls, bearer installation (${label}), ${added('bearer', bearerResult)}`, result: bearerResult, baseline: directResult, rssMb: memoryMb(server.pid).peak });
    }
    if (results.get('oauth2')) {
      const oauthResult = merged('oauth2');
      // What the endpoint saw: each path's token, and the token URL asked once (the code exchange), never to refresh.
      const stats = await endpointStats(tool);
      const asked = Object.entries(stats.tokenRequests).map(([grant, count]) => `${grant} ${count}`).join(', ') || 'never';
      const refreshes = stats.tokenRequests['refresh_token'] ?? 0;
      const oauthSent = stats.authorizations[`Bearer ${oauthAccessToken}`] ?? 0;
      const bearerSent = stats.authorizations[`Bearer ${bearerToken}`] ?? 0;
      const bearerTotal = results.get('bearer') ? merged('bearer').total : 0;
      if (!control && (oauthSent < oauthResult.total || bearerSent < bearerTotal)) {
        throw new Error(`the endpoint saw ${oauthSent} calls with the oauth2 token (${oauthResult.total} measured) and ${bearerSent} with the bearer one (${bearerTotal})`);
      }
      let ratio = '';
      if (results.get('bearer')) {
        const bearerResult = merged('bearer');
        const bearerRuns = results.get('bearer')!;
        // Per round (its turns together) and per turn (each oauth2 run against the bearer run beside it).
        const oauthRuns = results.get('oauth2')!;
        const perTurn = oauthRuns.map((run, i) => run.requestsPerSecond / bearerRuns[i]!.requestsPerSecond).sort((x, y) => x - y);
        const perRound = Array.from({ length: rounds }, (_, round) => {
          const of = (runs: LoadResult[]) => mergeRuns(runs.slice(round * turns, (round + 1) * turns)).requestsPerSecond;
          return of(oauthRuns) / of(bearerRuns);
        }).sort((x, y) => x - y);
        const cpuRatio = (oauthResult.serverCpuUs ?? Number.NaN) / (bearerResult.serverCpuUs ?? Number.NaN);
        const aloneRatio = oneAtATime.get('oauth2')!.p50 / oneAtATime.get('bearer')!.p50;
        ratio = `**oauth2 ÷ bearer: ${(oauthResult.requestsPerSecond / bearerResult.requestsPerSecond).toFixed(3)}× req/s** (rounds ${perRound[0]!.toFixed(3)}–${perRound[perRound.length - 1]!.toFixed(3)}; median of ${perTurn.length} turns ${perTurn[Math.floor(perTurn.length / 2)]!.toFixed(3)}), `
          + `${cpuRatio.toFixed(3)}× server µs/call, one at a time p50 ${aloneRatio.toFixed(3)}×; `;
      }
      rows.push({
        scenario: control
          ? `CONTROL (BENCH_TOOLS_PAIR_CONTROL=1): the bearer call again in oauth2's turns (${label}), ${added('oauth2', oauthResult)}; ${ratio.replace('oauth2 ÷ bearer', 'bearer ÷ bearer')}`
          : (`POST …/tool-calls, connected oauth2 installation (${label}), ${added('oauth2', oauthResult)}; ${ratio}`
            + `token URL asked: ${asked} (expires_in ${oauthExpiresIn} s${refreshes === 0 ? ', no refresh in the run' : ''})`),
        result: oauthResult, baseline: directResult, rssMb: memoryMb(server.pid).peak, goal: '≥ 0.95× bearer',
      });
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

/** The endpoint's counts (bench/tool-endpoint.ts): token requests by grant type, calls by Authorization header. */
function endpointStats(tool: ChildProcess): Promise<{ tokenRequests: Record<string, number>; authorizations: Record<string, number> }> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      tool.off('message', onMessage);
      reject(new Error('the tool endpoint did not send its counts'));
    }, 5_000);
    function onMessage(message: unknown) {
      if (typeof message !== 'object' || message === null || (message as { type?: unknown }).type !== 'stats') return;
      clearTimeout(timer);
      tool.off('message', onMessage);
      resolve(message as { tokenRequests: Record<string, number>; authorizations: Record<string, number> });
    }
    tool.on('message', onMessage);
    tool.send('stats');
  });
}

// `npx tsx bench/tools.ts` runs this group alone (after `npm run build`).
if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const rows = await benchTools();
  const databaseUrl = process.env.BENCH_DATABASE_URL ?? process.env.TEST_DATABASE_URL;
  if (databaseUrl) rows.push(...(await benchTools({ databaseUrl })));
  printTable(rows);
}
