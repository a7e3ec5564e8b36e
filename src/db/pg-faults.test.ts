import { sql, type Kysely } from 'kysely';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TestClock } from '../../test/support/context.js';
import { createOrgWithKey, type OrgWithKey } from '../../test/support/org-factories.js';
import { hasPostgresBinaries, startPgCluster, type PgCluster } from '../../test/support/pg-cluster.js';
import { startServerProcess, type ServerProcess } from '../../test/support/server-process.js';
import { openDatabase } from './database.js';
import type { DatabaseLimits } from './limits.js';
import type { DB } from './tables.js';
import { migrateToLatest } from './migrate.js';
import { isDatabaseUnavailable } from './unavailable.js';

/**
 * The server against a PostgreSQL that goes away under load: every backend terminated, a
 * restart (`pg_ctl stop -m fast`, 10 s, start), a pause (SIGSTOP for 10 s). The server runs in a
 * child process, so an uncaught exception would end it; the database is a cluster of this file's
 * own (never the shared TEST_DATABASE_URL server). Runs in `npm run test:all`.
 */
const enabled = Boolean(process.env.TEST_DATABASE_URL) && hasPostgresBinaries();

// Short limits, so the outage phases stay short: a request waits at most ACQUIRE for a
// connection, then at most STATEMENT + 1 s (the client-side grace, pg-pool.ts) for one statement.
const LIMITS = { DATABASE_CONNECT_TIMEOUT_MS: '1000', DATABASE_ACQUIRE_TIMEOUT_MS: '2000', DATABASE_STATEMENT_TIMEOUT_MS: '2000' };
/** The longest any request may take: the waits above, plus room for a loaded machine. */
const ANSWER_BOUND_MS = 2000 + 3000 + 3000;
const OUTAGE_MS = 10_000;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

interface Outcome {
  kind: 'submit' | 'contact';
  email: string;
  /** 0: no answer (the client gave up after 15 s, or the connection failed). */
  status: number;
  retryAfter: string | null;
  code: string | undefined;
  startedAt: number;
  ms: number;
}

interface Probe {
  status: number;
  startedAt: number;
  answeredAt: number;
}

describe.skipIf(!enabled)('PostgreSQL faults, on a server of this file\'s own', () => {
  let cluster: PgCluster;
  beforeAll(async () => {
    cluster = await startPgCluster();
  }, 60_000);
  afterAll(() => cluster?.destroy());

  describe('one pool, in this process', () => {
    const limits: DatabaseLimits = { connectTimeoutMs: 1000, acquireTimeoutMs: 1000, statementTimeoutMs: 1000, sqliteBusyTimeoutMs: 1000 };
    const warnings: string[] = [];
    const log = { warn: (_details: object, message: string) => void warnings.push(message), error: (_details: object, message: string) => void warnings.push(message) };
    const open = () => openDatabase({ databaseUrl: cluster.url, pgSchema: 'probe', pgPoolSize: 1, limits, log });
    const ids = async (database: ReturnType<typeof open>) =>
      (await sql<{ id: number }>`select id from fault_probe order by id`.execute(database.db)).rows.map((row) => row.id);
    const backendPid = async (db: Kysely<DB>) =>
      (await sql<{ pid: number }>`select pg_backend_pid() as pid`.execute(db)).rows[0]!.pid;

    beforeAll(() => {
      cluster.psql('create schema probe; create table probe.fault_probe (id integer primary key)');
    });

    it('an idle connection terminated: the pool drops it, the process goes on, the next query opens another', async () => {
      const database = open();
      try {
        await sql`select 1`.execute(database.db);
        cluster.psql("select pg_terminate_backend(pid) from pg_stat_activity where backend_type = 'client backend' and pid <> pg_backend_pid()");
        // The connection's error arrives while it sits in the pool (without a listener: an uncaught exception).
        await sleep(300);
        expect(warnings).toContain('an idle PostgreSQL connection failed; it was dropped and will be replaced');
        expect((await sql<{ one: number }>`select 1 as one`.execute(database.db)).rows).toEqual([{ one: 1 }]);
      } finally {
        await database.close();
      }
    });

    it('a connection terminated between two statements of a transaction: the transaction fails as unavailable, nothing of it is written', async () => {
      const database = open();
      try {
        const failure = await database.db
          .transaction()
          .execute(async (trx) => {
            await sql`insert into fault_probe (id) values (1)`.execute(trx);
            cluster.psql(`select pg_terminate_backend(${await backendPid(trx)})`);
            // Its error arrives while the connection is lent out and no statement runs.
            await sleep(300);
            await sql`insert into fault_probe (id) values (2)`.execute(trx);
          })
          .then(() => undefined, (error: unknown) => error);
        expect(isDatabaseUnavailable(failure)).toBe(true);
        expect(await ids(database)).toEqual([]);
      } finally {
        await database.close();
      }
    });

    it('a statement the server does not answer: given up after statement_timeout + 1 s, ROLLBACK does not wait again, the connection is never lent again', async () => {
      const database = open();
      let paused = 0;
      try {
        const started = performance.now();
        const failure = await database.db
          .transaction()
          .execute(async (trx) => {
            await sql`insert into fault_probe (id) values (10)`.execute(trx);
            paused = await backendPid(trx);
            process.kill(paused, 'SIGSTOP');
            await sql`select 1`.execute(trx);
          })
          .then(() => undefined, (error: unknown) => error);
        const waited = performance.now() - started;
        expect(isDatabaseUnavailable(failure)).toBe(true);
        // 1 s statement limit + 1 s for a server that sends nothing; a second wait for ROLLBACK would make it 3 s.
        expect(waited).toBeGreaterThanOrEqual(1900);
        expect(waited).toBeLessThan(2900);
        // The pool has one connection: this transaction would get the stuck one if it had been put back.
        await database.db.transaction().execute((trx) => sql`insert into fault_probe (id) values (11)`.execute(trx));
        process.kill(paused, 'SIGCONT');
        paused = 0;
        await sleep(300);
        await database.db.transaction().execute((trx) => sql`insert into fault_probe (id) values (12)`.execute(trx));
        // Row 10 belonged to the failed transaction: a COMMIT on the resumed connection would have written it.
        expect(await ids(database)).toEqual([11, 12]);
      } finally {
        if (paused !== 0) process.kill(paused, 'SIGCONT');
        await database.close();
      }
    });

    it('a long statement is cancelled by the server at the statement limit; the connection stays in the pool; migrations have no limit', async () => {
      const database = open();
      try {
        const before = await backendPid(database.db);
        const started = performance.now();
        const failure = await sql`select pg_sleep(3)`.execute(database.db).then(() => undefined, (error: unknown) => error);
        const waited = performance.now() - started;
        expect((failure as { code?: string }).code).toBe('57014');
        expect(isDatabaseUnavailable(failure)).toBe(true);
        expect(waited).toBeGreaterThanOrEqual(950);
        expect(waited).toBeLessThan(1900);
        // The server answered: the same connection serves the next query.
        expect(await backendPid(database.db)).toBe(before);
        await sql`select pg_sleep(1.5)`.execute(database.migrationDb);
      } finally {
        await database.close();
      }
    });

    it('waiting for a pooled connection is bounded by the acquire limit', async () => {
      const database = open();
      try {
        let waited = 0;
        await database.db.transaction().execute(async () => {
          const started = performance.now();
          const failure = await sql`select 1`.execute(database.db).then(() => undefined, (error: unknown) => error);
          waited = performance.now() - started;
          expect(isDatabaseUnavailable(failure)).toBe(true);
        });
        expect(waited).toBeGreaterThanOrEqual(950);
        expect(waited).toBeLessThan(2000);
      } finally {
        await database.close();
      }
    });
  });

  describe('the server under load, in a child process', () => {
    let server: ServerProcess;
    let org: OrgWithKey;
    let slug: string;
    let consentVersion: string;
    const outcomes: Outcome[] = [];
    const probes: Probe[] = [];
    const figures: string[] = [];
    let loading = false;
    let loops: Promise<void>[] = [];
    let counter = 0;

    async function write(worker: number): Promise<void> {
      const n = counter++;
      const kind: Outcome['kind'] = n % 3 === 2 ? 'contact' : 'submit';
      const email = `load-${worker}-${n}@example.com`;
      const startedAt = performance.now();
      let status = 0;
      let retryAfter: string | null = null;
      let code: string | undefined;
      try {
        const res =
          kind === 'submit'
            ? await fetch(`${server.url}/api/public/forms/${slug}/submit`, {
                method: 'POST',
                headers: { 'content-type': 'application/json', 'x-forwarded-for': `198.18.${(n >> 8) & 255}.${n & 255}` },
                body: JSON.stringify({ consentVersion, email, name: `Load ${n}` }),
                signal: AbortSignal.timeout(15_000),
              })
            : await fetch(`${server.url}/api/org/contacts`, {
                method: 'POST',
                headers: { 'content-type': 'application/json', authorization: `Bearer ${org.apiKey}` },
                body: JSON.stringify({ email, name: `Contact ${n}` }),
                signal: AbortSignal.timeout(15_000),
              });
        status = res.status;
        retryAfter = res.headers.get('retry-after');
        code = ((await res.json()) as { code?: string }).code;
      } catch {
        status = 0;
      }
      outcomes.push({ kind, email, status, retryAfter, code, startedAt, ms: performance.now() - startedAt });
    }

    async function loadLoop(worker: number): Promise<void> {
      while (loading) {
        await write(worker);
        await sleep(20);
      }
    }

    async function probeLoop(): Promise<void> {
      while (loading) {
        const startedAt = performance.now();
        let status = 0;
        try {
          status = (await fetch(`${server.url}/readyz`, { signal: AbortSignal.timeout(10_000) })).status;
        } catch {
          status = 0;
        }
        probes.push({ status, startedAt, answeredAt: performance.now() });
        await sleep(100);
      }
    }

    /** The first /readyz answer with `status` from a probe that started at or after `since`. */
    function firstProbe(status: number, since: number): Probe | undefined {
      return probes.find((probe) => probe.startedAt >= since && probe.status === status);
    }

    /** Writes started at or after `since` that succeed, after the service came back. */
    async function writesSucceedAgain(since: number): Promise<number> {
      for (;;) {
        expectAlive();
        const fine = outcomes.filter((o) => o.startedAt >= since && (o.status === 200 || o.status === 201));
        if (fine.length >= 5) return fine[0]!.startedAt + fine[0]!.ms;
        if (performance.now() - since > 20_000) throw new Error('writes did not succeed again within 20 s');
        await sleep(100);
      }
    }

    /** Status counts of the writes started between `from` and `to`, for the figures. */
    function tally(from: number, to: number): string {
      const counts = new Map<number, number>();
      for (const o of outcomes) if (o.startedAt >= from && o.startedAt < to) counts.set(o.status, (counts.get(o.status) ?? 0) + 1);
      return [...counts].sort(([a], [b]) => a - b).map(([status, count]) => `${count} × ${status}`).join(', ');
    }

    function expectAlive(): void {
      expect(server.exit(), `the server exited:\n${server.output().slice(-4000)}`).toBeUndefined();
    }

    beforeAll(async () => {
      const database = openDatabase({ databaseUrl: cluster.url });
      await migrateToLatest(database.migrationDb);
      org = await createOrgWithKey(database, new TestClock());
      await database.close();
      server = await startServerProcess({
        NODE_ENV: 'test',
        SECRETS_KEY: '0'.repeat(64),
        DATABASE_URL: cluster.url,
        DATABASE_POOL_SIZE: '4',
        TRUST_PROXY: '1',
        LOG_LEVEL: 'warn',
        ...LIMITS,
      });
      const created = await fetch(`${server.url}/api/org/forms`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${org.apiKey}` },
        body: JSON.stringify({ slug: 'fault-form', title: 'Faults', consentText: 'I agree to be contacted.' }),
      });
      expect(created.status).toBe(201);
      const form = ((await created.json()) as { data: { slug: string; consentVersion: string } }).data;
      slug = form.slug;
      consentVersion = form.consentVersion;
      loading = true;
      loops = [...[0, 1, 2, 3].map((worker) => loadLoop(worker)), probeLoop()];
      await sleep(1000);
    }, 60_000);

    afterAll(async () => {
      loading = false;
      await Promise.all(loops);
      await server?.stop();
      // The figures the README and the report quote: recovery times and time to the first 503.
      if (figures.length > 0) process.stdout.write(`PostgreSQL faults:\n  ${figures.join('\n  ')}\n`);
    });

    it('every backend terminated: the process lives and writes go on', async () => {
      // Again and again for 2 s, so that connections are caught idle in the pool, lent to a request
      // between two statements of its transaction, and in the middle of a statement.
      const since = performance.now();
      let terminated = 0;
      while (performance.now() - since < 2000) {
        terminated += cluster.psql("select pg_terminate_backend(pid) from pg_stat_activity where backend_type = 'client backend' and pid <> pg_backend_pid()").split('\n').filter((line) => line === 't').length;
        await sleep(50);
      }
      const lastAt = performance.now();
      const back = await writesSucceedAgain(lastAt);
      figures.push(`terminate: ${terminated} backends terminated over 2 s; writes succeed again ${Math.round(back - lastAt)} ms after the last; writes meanwhile: ${tally(since, back)}`);
      expectAlive();
    }, 30_000);

    it('a restart (pg_ctl stop -m fast, 10 s, start): 503 within 2 s, 200 again within 5 s of its return', async () => {
      const stoppedAt = performance.now();
      cluster.stop();
      try {
        await sleep(OUTAGE_MS);
        expectAlive();
      } finally {
        cluster.start();
      }
      const returnedAt = performance.now();
      const down = firstProbe(503, stoppedAt);
      const up = await waitForProbe(200, returnedAt);
      const recovered = await writesSucceedAgain(returnedAt);
      figures.push(
        `restart: /readyz 503 ${Math.round(down!.answeredAt - stoppedAt)} ms after the stop, 200 ${Math.round(up.answeredAt - returnedAt)} ms after the start; ` +
          `writes succeed again ${Math.round(recovered - returnedAt)} ms after the start; writes meanwhile: ${tally(stoppedAt, recovered)}`,
      );
      expect(down).toBeDefined();
      expect(down!.answeredAt - stoppedAt).toBeLessThan(2000);
      expect(up.answeredAt - returnedAt).toBeLessThan(5000);
      expectAlive();
    }, 60_000);

    it('a pause (SIGSTOP 10 s): 503 within 2 s, 200 again within 5 s of SIGCONT', async () => {
      const pausedAt = performance.now();
      cluster.pause(true);
      try {
        await sleep(OUTAGE_MS);
        expectAlive();
      } finally {
        cluster.pause(false);
      }
      const returnedAt = performance.now();
      const down = firstProbe(503, pausedAt);
      const up = await waitForProbe(200, returnedAt);
      const recovered = await writesSucceedAgain(returnedAt);
      const firstWrite503 = outcomes.find((o) => o.startedAt >= pausedAt - ANSWER_BOUND_MS && o.status === 503 && o.startedAt + o.ms >= pausedAt);
      figures.push(
        `pause: /readyz 503 ${Math.round(down!.answeredAt - pausedAt)} ms after SIGSTOP, 200 ${Math.round(up.answeredAt - returnedAt)} ms after SIGCONT; ` +
          `first write 503 ${firstWrite503 ? Math.round(firstWrite503.startedAt + firstWrite503.ms - pausedAt) : '–'} ms after SIGSTOP; ` +
          `writes succeed again ${Math.round(recovered - returnedAt)} ms after SIGCONT; writes meanwhile: ${tally(pausedAt, recovered)}`,
      );
      expect(down).toBeDefined();
      expect(down!.answeredAt - pausedAt).toBeLessThan(2000);
      // Writes were answered during the pause, not held until it ended.
      expect(outcomes.filter((o) => o.status === 503 && o.startedAt + o.ms > pausedAt && o.startedAt + o.ms < returnedAt).length).toBeGreaterThan(0);
      expect(up.answeredAt - returnedAt).toBeLessThan(5000);
      expectAlive();
    }, 60_000);

    it('every request was answered within its bound, 200/201 or 503 with Retry-After, and no acknowledged write is missing', async () => {
      loading = false;
      await Promise.all(loops);
      expectAlive();
      const byStatus = new Map<number, number>();
      for (const o of outcomes) byStatus.set(o.status, (byStatus.get(o.status) ?? 0) + 1);
      figures.push(`writes: ${[...byStatus].map(([status, count]) => `${count} × ${status}`).join(', ')}; slowest ${Math.round(Math.max(...outcomes.map((o) => o.ms)))} ms`);
      figures.push(`/readyz: ${probes.length} probes, slowest ${Math.round(Math.max(...probes.map((p) => p.answeredAt - p.startedAt)))} ms`);

      const wrong = outcomes.filter((o) => !(o.status === 200 || o.status === 201 || (o.status === 503 && o.retryAfter !== null && o.code === 'SERVICE_UNAVAILABLE')));
      expect(wrong.slice(0, 5)).toEqual([]);
      expect(outcomes.filter((o) => o.ms > ANSWER_BOUND_MS).slice(0, 5)).toEqual([]);
      expect(probes.filter((p) => p.answeredAt - p.startedAt > 2000 || (p.status !== 200 && p.status !== 503)).slice(0, 5)).toEqual([]);
      expect(byStatus.get(503) ?? 0).toBeGreaterThan(0);

      const client = new pg.Client({ connectionString: cluster.url });
      await client.connect();
      try {
        const submitted = new Set(
          (await client.query<{ email: string }>('select c.email from submissions s join contacts c on c.id = s.contact_id where s.org_id = $1', [org.orgId])).rows.map((r) => r.email),
        );
        const contacts = new Set((await client.query<{ email: string }>('select email from contacts where org_id = $1', [org.orgId])).rows.map((r) => r.email));
        const acknowledged = outcomes.filter((o) => o.status === 200 || o.status === 201);
        expect(acknowledged.filter((o) => !(o.kind === 'submit' ? submitted : contacts).has(o.email)).map((o) => o.email)).toEqual([]);
        // Nothing half-written: a submission's contact exists only with its submission.
        const halfWritten = outcomes.filter((o) => o.kind === 'submit' && contacts.has(o.email) && !submitted.has(o.email));
        expect(halfWritten.map((o) => o.email)).toEqual([]);
      } finally {
        await client.end();
      }
    }, 30_000);

    async function waitForProbe(status: number, since: number): Promise<Probe> {
      for (;;) {
        const probe = firstProbe(status, since);
        if (probe) return probe;
        if (performance.now() - since > 20_000) throw new Error(`no /readyz ${status} within 20 s`);
        await sleep(50);
      }
    }
  });
});
