import { CLI_AUDIT } from '../src/audit/context.js';
import { fork } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { pino } from 'pino';
import { loadConfig } from '../src/config.js';
import { openDatabase, type Database } from '../src/db/database.js';
import { migrateToLatest } from '../src/db/migrate.js';
import type { WebhookOutboxTable } from '../src/db/tables.js';
import { randomBase62 } from '../src/lib/ids.js';
import { createServices } from '../src/services.js';
import { outboxRow, type WebhookEventInput } from '../src/webhooks/outbox.js';
import { subscriptionsOf } from '../src/webhooks/subscriptions.js';
import { testCertificates } from '../test/support/https-endpoint.js';
import { freePort } from '../test/support/net.js';
import { memoryMb, printTable, processCpuUs, startSwitchboard, throwawaySchema, type Row } from './lib.js';

/**
 * Webhook delivery to one local receiver (issue 32, item 7): how fast a node drains one webhook's queue from
 * a short queue (2,000 events) and from a backlog (200,000), on SQLite and PostgreSQL.
 *
 * Each case starts from a fresh database whose outbox holds the events as the changes' transactions left them
 * (one `webhook_outbox` row per form submission, its contact.created, opportunity.created and
 * submission.created, each for the one webhook), as after a burst of submissions or a node that was down: the
 * node has to move the outbox into deliveries (dispatch.ts) and send them. A node with delivery on (the
 * compiled build, as `npm start`) is then started beside an HTTPS receiver on 127.0.0.1 (bench/tool-endpoint.ts)
 * and stopped when its queue is empty or after BENCH_SECONDS (the backlog would take minutes); the rate is the
 * succeeded deliveries over the time between the first and the last (`delivered_at`), so start-up is not counted.
 * One webhook means one delivery in flight at a time (in order): the rate is a round trip plus what the node
 * does between two sends.
 *
 * BENCH_WEBHOOK_QUEUES="2000,200000" sets the sizes (the first is the reference of the others' ratio);
 * BENCH_WEBHOOK_ROUNDS (default 2) repeats the sizes in turn, so drift on a shared machine touches each alike;
 * BENCH_WEBHOOK_GAPS=1 prints the time between consecutive deliveries (percentiles, and the time in gaps of
 * 100 ms or more: a stalled worker shows there, not in the p50).
 */
export interface WebhooksBenchOptions {
  databaseUrl?: string;
  seconds?: number;
}

/** A submission's three events, about the size the submit path writes (1.5 KB an outbox row). */
function submissionEvents(orgId: string, n: number): WebhookEventInput[] {
  const contact = {
    id: `ct_bench${n}`, name: `Visitor ${n}`, email: `visitor-${n}@example.com`, phone: null, company: null, title: null,
    source: 'form', tags: [], custom: {}, consentVersion: 'v1', createdAt: '2026-11-28T00:00:00.000Z', updatedAt: '2026-11-28T00:00:00.000Z',
  };
  return [
    { orgId, type: 'contact.created', data: { contact } },
    { orgId, type: 'opportunity.created', data: { opportunity: { id: `op_bench${n}`, contactId: contact.id, title: 'Book a visit', stageId: 'st_new', value: null, createdAt: contact.createdAt } } },
    {
      orgId, type: 'submission.created',
      data: {
        submissionId: `sub_bench${n}`, form: { id: 'fm_bench', slug: 'bench', title: 'Book a visit' },
        values: { name: contact.name, email: contact.email, message: 'I would like a check-up next week, mornings if possible.' },
        custom: {}, consentVersion: 'v1', utm: { source: 'bench', medium: null, campaign: 'load', term: null, content: null },
        contact: { id: contact.id, created: true }, opportunityId: `op_bench${n}`,
      },
    },
  ];
}

/** Fills the outbox with `events` events for the webhook, oldest a few minutes ago, one millisecond apart. */
async function seedOutbox(database: Database, orgId: string, webhookId: string, events: number): Promise<void> {
  const subscriptions = subscriptionsOf([{ id: webhookId, events: ['contact.created', 'opportunity.created', 'submission.created'] }]);
  const rows: WebhookOutboxTable[] = [];
  const start = Date.now() - events - 60_000;
  for (let n = 0; n * 3 < events; n++) {
    const now = new Date(start + n).toISOString();
    const row = outboxRow(subscriptions, submissionEvents(orgId, n).slice(0, events - n * 3), now);
    rows.push(row!.row);
  }
  for (let i = 0; i < rows.length; i += 500) await database.db.insertInto('webhook_outbox').values(rows.slice(i, i + 500)).execute();
}

interface DrainResult {
  delivered: number;
  perSecond: number;
  /** Left when the node stopped: outbox rows not yet dispatched, deliveries pending. */
  outboxLeft: number;
  pendingLeft: number;
  rssMb: number;
  /** The node's CPU (all its threads) per delivery, from its first delivery to the end: dispatch included, start-up not. */
  serverCpuUs: number;
}

async function drain(queued: number, options: { databaseUrl?: string; seconds: number; receiverPort: number; caFile: string }): Promise<DrainResult> {
  const dataDir = mkdtempSync(join(tmpdir(), 'switchboard-bench-webhooks-'));
  const schema = options.databaseUrl ? await throwawaySchema(options.databaseUrl) : undefined;
  const env: Record<string, string> = {
    DATA_DIR: dataDir, LOG_LEVEL: 'warn', NODE_ENV: 'development',
    TOOL_ALLOW_PRIVATE_ENDPOINTS: '1', TOOL_CA_FILE: options.caFile,
    ...(schema ? { DATABASE_URL: schema.url } : {}),
  };
  const database = openDatabase({ databaseUrl: schema?.url, dataDir });
  try {
    await migrateToLatest(database.db);
    // The organization and its webhook made in-process, as the CLI and the Operator API would, with no worker running.
    const services = await createServices(loadConfig(env), { database, log: pino({ level: 'silent' }), redis: false, mailer: null });
    const org = await services.orgs.createOrganization({ name: 'Bench Webhooks', email: `bench-${randomBase62(8).toLowerCase()}@example.com`, password: 'benchmark-password' });
    const hook = await services.webhooks.create(org.org.id, { url: `https://127.0.0.1:${options.receiverPort}/hook`, events: ['contact.created', 'opportunity.created', 'submission.created'] }, CLI_AUDIT);
    await services.close();
    await seedOutbox(database, org.org.id, hook.id, queued);

    const count = async (table: 'webhook_outbox' | 'webhook_deliveries', status?: string) =>
      Number((await database.db.selectFrom(table).select((eb) => eb.fn.countAll<number>().as('n')).$if(status !== undefined, (qb) => qb.where('status' as never, '=', status as never)).executeTakeFirstOrThrow()).n);
    const node = await startSwitchboard(env);
    let rssMb = 0;
    let cpu = Number.NaN;
    let counted = 0;
    try {
      // The node's CPU is counted from its first delivery: the tail of its start-up is not a delivery's.
      const ready = performance.now();
      while (performance.now() - ready < 60_000 && (await count('webhook_deliveries', 'succeeded')) === 0) await new Promise((resolve) => setTimeout(resolve, 20));
      const cpuBefore = processCpuUs(node.pid);
      const deliveredBefore = await count('webhook_deliveries', 'succeeded');
      // Until every event is delivered or the time is up, whichever comes first (bounded).
      const deadline = performance.now() + options.seconds * 1000;
      while (performance.now() < deadline && (await count('webhook_deliveries', 'succeeded')) < queued) await new Promise((resolve) => setTimeout(resolve, 100));
      rssMb = memoryMb(node.pid).peak;
      cpu = processCpuUs(node.pid) - cpuBefore;
      counted = (await count('webhook_deliveries', 'succeeded')) - deliveredBefore;
    } finally {
      await node.stop();
    }
    const span = await database.db
      .selectFrom('webhook_deliveries')
      .select((eb) => [eb.fn.countAll<number>().as('n'), eb.fn.min('delivered_at').as('first'), eb.fn.max('delivered_at').as('last')])
      .where('status', '=', 'succeeded')
      .executeTakeFirstOrThrow();
    if (process.env.BENCH_WEBHOOK_GAPS) {
      const times = (await database.db.selectFrom('webhook_deliveries').select('delivered_at').where('status', '=', 'succeeded').orderBy('delivered_at').execute()).map((row) => Date.parse(row.delivered_at!));
      const gaps = times.slice(1).map((t, i) => t - times[i]!).sort((a, b) => a - b);
      const sum = gaps.reduce((a, b) => a + b, 0);
      console.log(`gaps: n=${gaps.length} p50=${gaps[gaps.length >> 1]} p90=${gaps[Math.floor(gaps.length * 0.9)]} p99=${gaps[Math.floor(gaps.length * 0.99)]} max=${gaps.at(-1)} total=${sum} in gaps>=100ms: ${gaps.filter((g) => g >= 100).reduce((a, b) => a + b, 0)} (${gaps.filter((g) => g >= 100).length})`);
    }
    const delivered = Number(span.n);
    const seconds = (Date.parse(String(span.last)) - Date.parse(String(span.first))) / 1000;
    return { delivered, perSecond: delivered > 1 && seconds > 0 ? (delivered - 1) / seconds : 0, outboxLeft: await count('webhook_outbox'), pendingLeft: await count('webhook_deliveries', 'pending'), rssMb, serverCpuUs: cpu / Math.max(counted, 1) };
  } finally {
    await database.close();
    await schema?.drop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

export async function benchWebhooks(options: WebhooksBenchOptions = {}): Promise<Row[]> {
  const label = options.databaseUrl ? 'PostgreSQL' : 'SQLite';
  const seconds = options.seconds ?? Number(process.env.BENCH_SECONDS ?? 10);
  const sizes = (process.env.BENCH_WEBHOOK_QUEUES ?? '2000,200000').split(',').map(Number);
  const rounds = Number(process.env.BENCH_WEBHOOK_ROUNDS ?? 2);
  const certsDir = mkdtempSync(join(tmpdir(), 'switchboard-bench-hook-'));
  const certs = testCertificates();
  writeFileSync(join(certsDir, 'hook.key'), certs.key, { mode: 0o600 });
  writeFileSync(join(certsDir, 'hook.pem'), certs.cert);
  const receiverPort = await freePort();
  const receiver = fork('bench/tool-endpoint.ts', [], {
    execArgv: ['--import', 'tsx'],
    env: { ...process.env, PORT: String(receiverPort), TLS_KEY_FILE: join(certsDir, 'hook.key'), TLS_CERT_FILE: join(certsDir, 'hook.pem') },
    stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
  });
  try {
    await new Promise<void>((resolve, reject) => {
      receiver.once('message', () => resolve());
      receiver.once('exit', (code) => reject(new Error(`the webhook receiver exited with ${code}`)));
    });
    const results = new Map<number, DrainResult[]>(sizes.map((size) => [size, []]));
    for (let round = 0; round < rounds; round++) {
      for (const size of sizes) {
        // The short queue drains in a second or two; a backlog would take minutes: BENCH_SECONDS of it.
        const result = await drain(size, { ...options, seconds: size <= 20_000 ? Math.max(60, seconds) : seconds, receiverPort, caFile: certs.caFile });
        results.get(size)!.push(result);
        console.log(`webhooks (${label}) round ${round + 1}: ${size} queued → ${result.delivered} delivered at ${result.perSecond.toFixed(0)}/s; left ${result.outboxLeft} outbox rows, ${result.pendingLeft} pending deliveries; server ${result.serverCpuUs.toFixed(0)} µs/delivery`);
      }
    }
    const asRow = (size: number, reference?: DrainResult[]): Row => {
      const runs = results.get(size)!;
      const delivered = runs.reduce((sum, run) => sum + run.delivered, 0);
      // Over all rounds: deliveries ÷ the time they took.
      const perSecond = delivered / runs.reduce((sum, run) => sum + run.delivered / Math.max(run.perSecond, 1e-9), 0);
      const serverCpuUs = runs.reduce((sum, run) => sum + run.serverCpuUs * run.delivered, 0) / Math.max(delivered, 1);
      const result = { requestsPerSecond: perSecond, p50: Number.NaN, p99: Number.NaN, total: delivered, errors: 0, non2xx: 0, loadCpuUs: 0, serverCpuUs };
      const baseline = reference ? asRow(sizes[0]!).result : undefined;
      return {
        scenario: `webhook deliveries, one webhook, ${size.toLocaleString('en')} queued (${label}; ${runs.map((run) => run.perSecond.toFixed(0)).join(', ')}/s)`,
        result,
        rssMb: Math.max(...runs.map((run) => run.rssMb)),
        ...(baseline ? { baseline, goal: `≥0.8× ${sizes[0]!.toLocaleString('en')} queued` } : {}),
      };
    };
    return sizes.map((size, i) => asRow(size, i === 0 ? undefined : results.get(sizes[0]!)));
  } finally {
    receiver.kill('SIGTERM');
    rmSync(certsDir, { recursive: true, force: true });
  }
}

// `npx tsx bench/webhooks.ts` runs this group alone, on the last build (BENCH_DATABASE_URL or TEST_DATABASE_URL adds PostgreSQL).
if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const rows: Row[] = [];
  const databaseUrl = process.env.BENCH_DATABASE_URL ?? process.env.TEST_DATABASE_URL;
  if (process.env.BENCH_WEBHOOK_DATABASES !== 'postgres') rows.push(...(await benchWebhooks()));
  if (databaseUrl) rows.push(...(await benchWebhooks({ databaseUrl })));
  printTable(rows);
}
