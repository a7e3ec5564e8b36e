import { fork } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { openDatabase } from '../src/db/database.js';
import { migrateToLatest } from '../src/db/migrate.js';
import { randomBase62 } from '../src/lib/ids.js';
import { pino } from 'pino';
import { loadConfig } from '../src/config.js';
import { createServices } from '../src/services.js';
import { testCertificates } from '../test/support/https-endpoint.js';
import { freePort } from '../test/support/net.js';
import { addressSequence, createBenchForm, fromNewAddress, load, memoryMb, mergeRuns, printTable, startChild, startSwitchboard, throwawaySchema, type LoadResult, type Row } from './lib.js';

/**
 * Public Forms API under load, against Switchboard running as `npm start` runs it
 * (its own process, TRUST_PROXY=1, LOG_LEVEL=warn):
 *
 * - GET /api/public/forms/{slug} vs a bare Fastify server sending the same JSON.
 *   Every request carries its own X-Forwarded-For, so the per-IP rate limiter is in
 *   the path and counts every request (each one a new key: its worst case) without
 *   ever refusing one. The limiter stays in memory and bounded.
 * - GET /f/{slug}, the hosted page, vs a bare Fastify server sending the same HTML (uncompressed:
 *   the load generator asks for no encoding), with a new X-Forwarded-For per request as above.
 * - POST …/submit: each request a new person (own email, own client IP) on a form
 *   with message and create-opportunity on, so each writes a contact, a note, an
 *   opportunity and a submission in one transaction. Measured in alternating quarters against
 *   a second organization's same form whose webhook receives submission.created, contact.created
 *   and opportunity.created: the outbox's cost to the submit path (issue 23: at most 10%). The server
 *   runs with WEBHOOK_DELIVERY=off, as a web node of a fleet whose delivery runs elsewhere, so the
 *   figure is what queueing the events costs, not the sending sharing the same core.
 * - Then the sending: a node with delivery on starts over the backlog those rounds queued and
 *   delivers to a local HTTPS receiver (bench/tool-endpoint.ts, one webhook, so one at a time in
 *   order); deliveries per second over BENCH_SECONDS, counted in the database.
 *
 * Runs on SQLite, and on PostgreSQL when given a database URL (in a throwaway schema).
 */
export interface FormsBenchOptions {
  databaseUrl?: string;
  seconds?: number;
  connections?: number;
}

export async function benchForms(options: FormsBenchOptions = {}): Promise<Row[]> {
  // The server inherits this process's environment: SQLITE_SYNCHRONOUS=full measures power-loss durability.
  const synchronous = process.env.SQLITE_SYNCHRONOUS;
  const label = options.databaseUrl ? 'PostgreSQL' : synchronous ? `SQLite, synchronous=${synchronous}` : 'SQLite';
  const seconds = options.seconds ?? Number(process.env.BENCH_SECONDS ?? 10);
  const connections = options.connections ?? 50;
  const dataDir = mkdtempSync(join(tmpdir(), 'switchboard-bench-forms-'));
  const schema = options.databaseUrl ? await throwawaySchema(options.databaseUrl) : undefined;
  // The webhook receiver: HTTPS with the test CA's certificate, loopback only.
  const certs = testCertificates();
  writeFileSync(join(dataDir, 'hook.key'), certs.key, { mode: 0o600 });
  writeFileSync(join(dataDir, 'hook.pem'), certs.cert);
  const receiverPort = await freePort();
  const receiver = fork('bench/tool-endpoint.ts', [], {
    execArgv: ['--import', 'tsx'],
    env: { ...process.env, PORT: String(receiverPort), TLS_KEY_FILE: join(dataDir, 'hook.key'), TLS_CERT_FILE: join(dataDir, 'hook.pem') },
    stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
  });
  await new Promise<void>((resolve, reject) => {
    receiver.once('message', () => resolve());
    receiver.once('exit', (code) => reject(new Error(`the webhook receiver exited with ${code}`)));
  });
  const env: Record<string, string> = {
    DATA_DIR: dataDir, LOG_LEVEL: 'warn', NODE_ENV: 'development', TRUST_PROXY: '1',
    TOOL_ALLOW_PRIVATE_ENDPOINTS: '1', TOOL_CA_FILE: certs.caFile,
    ...(schema ? { DATABASE_URL: schema.url } : {}),
  };

  // The organization is made in-process, as the CLI would; the form through the Operator API.
  const database = openDatabase({ databaseUrl: schema?.url, dataDir });
  await migrateToLatest(database.db);
  const services = await createServices(loadConfig(env), { database, log: pino({ level: 'silent' }), redis: false, mailer: null });
  const newOrg = (name: string) => services.orgs.createOrganization({
    name,
    email: `bench-${randomBase62(8).toLowerCase()}@example.com`,
    password: 'benchmark-password',
  });
  const org = await newOrg('Bench Dental');
  const hooked = await newOrg('Bench Dental with a webhook');
  await services.close();
  await database.close();

  const server = await startSwitchboard({ ...env, WEBHOOK_DELIVERY: 'off' });
  const rows: Row[] = [];
  try {
    const slug = `bench-${randomBase62(8).toLowerCase()}`;
    await createBenchForm(server.url, org.apiKey.key, slug);
    const configUrl = `${server.url}/api/public/forms/${slug}`;
    const configResponse = await fetch(configUrl, { headers: { 'x-forwarded-for': '192.0.2.1' } });
    const configBody = await configResponse.text();
    const consentVersion = (JSON.parse(configBody) as { data: { consentVersion: string } }).data.consentVersion;

    // Both servers get the same request stream, a new X-Forwarded-For each time, so the load
    // generator (on the same two cores) costs the same in both runs.
    const nextAddress = addressSequence();
    const withNewAddress = fromNewAddress(nextAddress);
    const bare = await startChild('bench/bare-server.ts', { BARE_BODY: configBody });
    const bareUrl = `${bare.url}/api/public/forms/${slug}`;
    // The same bare server sending our answer's headers too (CORS, RateLimit-*, ETag, request id, nosniff…): what
    // the contract's headers cost on their own, apart from the work behind them.
    const headed = await startChild('bench/bare-server.ts', { BARE_BODY: configBody, BARE_HEADERS: JSON.stringify(contractHeaders(configResponse.headers)) });
    const headedUrl = `${headed.url}/api/public/forms/${slug}`;
    const rounds = 4;
    const run = (url: string, pid: number, length = seconds / rounds) => load({ url, serverPid: pid, connections, seconds: length, setupRequest: withNewAddress });
    // Both servers (and the load generator itself) are warmed up first, then measured in
    // alternating quarters, so drift on this shared machine touches both alike.
    await run(bareUrl, bare.pid, 2);
    await run(headedUrl, headed.pid, 2);
    await run(`${server.url}/healthz`, server.pid, 2);
    await run(configUrl, server.pid, 2);
    const bareRuns: LoadResult[] = [];
    const headedRuns: LoadResult[] = [];
    const configRuns: LoadResult[] = [];
    for (let round = 0; round < rounds; round++) {
      bareRuns.push(await run(bareUrl, bare.pid));
      headedRuns.push(await run(headedUrl, headed.pid));
      configRuns.push(await run(configUrl, server.pid));
    }
    await bare.stop();
    await headed.stop();
    const bareResult = mergeRuns(bareRuns);

    // What every route of the app costs before any forms code runs (request id, logger, hooks).
    const appBaseline = await run(`${server.url}/healthz`, server.pid, seconds);
    rows.push({ scenario: 'bare Fastify, form-config JSON', result: bareResult });
    rows.push({ scenario: 'bare Fastify, the same JSON with our headers', result: mergeRuns(headedRuns), baseline: bareResult });
    rows.push({ scenario: `GET /healthz, app baseline (${label})`, result: appBaseline, baseline: bareResult, rssMb: memoryMb(server.pid).peak });
    rows.push({ scenario: `GET /api/public/forms/{slug} (${label})`, result: mergeRuns(configRuns), baseline: bareResult, rssMb: memoryMb(server.pid).peak, goal: '≥0.92× bare, p99 <10 ms' });

    // The hosted page: the same bytes from a bare server, measured in alternating quarters as above.
    const pageUrl = `${server.url}/f/${slug}`;
    const pageResponse = await fetch(pageUrl, { headers: { 'x-forwarded-for': '192.0.2.2', 'accept-encoding': 'identity' } });
    if (pageResponse.status !== 200) throw new Error(`the hosted page answered ${pageResponse.status}`);
    const pageHtml = await pageResponse.text();
    const barePage = await startChild('bench/bare-server.ts', { BARE_BODY: pageHtml, BARE_CONTENT_TYPE: 'text/html; charset=utf-8' });
    const barePageUrl = `${barePage.url}/f/${slug}`;
    const headedPage = await startChild('bench/bare-server.ts', { BARE_BODY: pageHtml, BARE_CONTENT_TYPE: 'text/html; charset=utf-8', BARE_HEADERS: JSON.stringify(contractHeaders(pageResponse.headers)) });
    const headedPageUrl = `${headedPage.url}/f/${slug}`;
    await run(barePageUrl, barePage.pid, 2);
    await run(headedPageUrl, headedPage.pid, 2);
    await run(pageUrl, server.pid, 2);
    const barePageRuns: LoadResult[] = [];
    const headedPageRuns: LoadResult[] = [];
    const pageRuns: LoadResult[] = [];
    for (let round = 0; round < rounds; round++) {
      barePageRuns.push(await run(barePageUrl, barePage.pid));
      headedPageRuns.push(await run(headedPageUrl, headedPage.pid));
      pageRuns.push(await run(pageUrl, server.pid));
    }
    await barePage.stop();
    await headedPage.stop();
    const barePageResult = mergeRuns(barePageRuns);
    rows.push({ scenario: `bare Fastify, hosted page HTML (${Buffer.byteLength(pageHtml)} B)`, result: barePageResult });
    rows.push({ scenario: 'bare Fastify, the same HTML with our headers', result: mergeRuns(headedPageRuns), baseline: barePageResult });
    rows.push({ scenario: `GET /f/{slug} (${label})`, result: mergeRuns(pageRuns), baseline: barePageResult, rssMb: memoryMb(server.pid).peak, goal: '≥0.9× bare, p99 <10 ms' });
    // BENCH_FORMS_PARTS=reads: the two reads against bare Fastify only, no submissions and no deliveries.
    if (process.env.BENCH_FORMS_PARTS === 'reads') return rows;

    // Each request a new person from a new address. The body is spliced from fixed JSON pieces
    // (what JSON.stringify would produce) so the load generator, sharing the two cores, stays cheap.
    let person = 0;
    const visitors = randomBase62(6).toLowerCase();
    const bodyStart = `{"consentVersion":${JSON.stringify(consentVersion)},"name":"Visitor `;
    const bodyEnd = '@example.com","message":"I would like a check-up next week, mornings if possible.","metadata":{"utm_source":"bench","utm_campaign":"load"}}';
    const submitRequest = (request: { headers?: Record<string, string> }) => {
      person++;
      return {
        ...request,
        headers: { 'content-type': 'application/json', 'x-forwarded-for': nextAddress() },
        body: `${bodyStart}${person}","email":"visitor-${visitors}-${person}${bodyEnd}`,
      };
    };
    const hookedSlug = `bench-${randomBase62(8).toLowerCase()}`;
    await createBenchForm(server.url, hooked.apiKey.key, hookedSlug);
    const hook = await fetch(`${server.url}/api/org/webhooks`, {
      method: 'POST',
      headers: { authorization: `Bearer ${hooked.apiKey.key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ url: `https://127.0.0.1:${receiverPort}/hook`, events: ['submission.created', 'contact.created', 'opportunity.created'] }),
    });
    if (hook.status !== 201) throw new Error(`could not add the webhook: ${hook.status} ${await hook.text()}`);
    const submit = (slug: string, length: number) =>
      load({ url: `${server.url}/api/public/forms/${slug}/submit`, serverPid: server.pid, method: 'POST', connections, seconds: length, setupRequest: submitRequest });
    await submit(slug, 2);
    await submit(hookedSlug, 2);
    const plainRuns: LoadResult[] = [];
    const hookedRuns: LoadResult[] = [];
    for (let round = 0; round < rounds; round++) {
      plainRuns.push(await submit(slug, seconds / rounds));
      hookedRuns.push(await submit(hookedSlug, seconds / rounds));
    }
    const submitResult = mergeRuns(plainRuns);
    const goal = options.databaseUrl ? '≥1,500/s, p99 <30 ms, RSS <200 MB' : '≥3,000/s, p99 <30 ms, RSS <200 MB';
    rows.push({ scenario: `POST …/submit, new contact+note+opp (${label})`, result: submitResult, rssMb: memoryMb(server.pid).peak, goal });
    rows.push({ scenario: `POST …/submit, webhook on 3 events (${label})`, result: mergeRuns(hookedRuns), baseline: submitResult, rssMb: memoryMb(server.pid).peak, goal: '≥0.9× no webhook' });
    await server.stop();
    rows.push(await drainRate(env, schema?.url, dataDir, seconds, label));
  } finally {
    receiver.kill('SIGTERM');
    await server.stop();
    await schema?.drop();
    rmSync(dataDir, { recursive: true, force: true });
  }
  return rows;
}

/** An answer's headers a bare server can send as they are: all but those Node writes itself and the body's type. */
function contractHeaders(headers: Headers): Record<string, string> {
  const own = new Set(['content-type', 'content-length', 'content-encoding', 'transfer-encoding', 'date', 'connection', 'keep-alive']);
  return Object.fromEntries([...headers].filter(([name]) => !own.has(name)));
}

/**
 * Deliveries per second: a node with delivery on (the default) starts over the backlog the submit rounds
 * queued, and the delivered rows are counted in the database after `seconds`.
 */
async function drainRate(env: Record<string, string>, databaseUrl: string | undefined, dataDir: string, seconds: number, label: string): Promise<Row> {
  const database = openDatabase({ databaseUrl, dataDir });
  const delivered = async () => Number((await database.db.selectFrom('webhook_deliveries').select((eb) => eb.fn.countAll<number>().as('n')).where('status', '=', 'succeeded').executeTakeFirstOrThrow()).n);
  // Queued: the events still in the outbox (one row per submission, its events inside) and the pending deliveries.
  const outboxEvents = (await database.db.selectFrom('webhook_outbox').select('events').execute()).reduce((sum, row) => sum + (JSON.parse(row.events) as unknown[]).length, 0);
  const pending = outboxEvents + Number((await database.db.selectFrom('webhook_deliveries').select((eb) => eb.fn.countAll<number>().as('n')).where('status', '=', 'pending').executeTakeFirstOrThrow()).n);
  const node = await startSwitchboard(env);
  try {
    const startCount = await delivered();
    const started = performance.now();
    await new Promise((resolve) => setTimeout(resolve, seconds * 1000));
    const count = (await delivered()) - startCount;
    const elapsed = (performance.now() - started) / 1000;
    return {
      scenario: `webhook deliveries to a local receiver, one webhook, from a backlog of ${pending} (${label})`,
      // Latency-bound, not CPU-bound (one webhook: one delivery in flight at a time), so no CPU per delivery.
      result: { requestsPerSecond: count / elapsed, p50: Number.NaN, p99: Number.NaN, total: count, errors: 0, non2xx: 0, loadCpuUs: 0 },
      rssMb: memoryMb(node.pid).peak,
    };
  } finally {
    await node.stop();
    await database.close();
  }
}

// `npx tsx bench/forms.ts` runs this group alone (BENCH_DATABASE_URL or TEST_DATABASE_URL adds PostgreSQL).
if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const rows = await benchForms();
  const databaseUrl = process.env.BENCH_DATABASE_URL ?? process.env.TEST_DATABASE_URL;
  if (databaseUrl) rows.push(...(await benchForms({ databaseUrl })));
  printTable(rows);
}
