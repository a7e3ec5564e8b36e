import { Writable } from 'node:stream';
import { sql } from 'kysely';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createTestContext, type TestContext } from '../../test/support/context.js';
import { countWrites, createForm, nextClientIp, submit, type FormRecordJson } from '../../test/support/form-factories.js';
import { createAgent, MCP_HEADERS, mcpToolsList } from '../../test/support/invocation-factories.js';
import { createOrgWithKey, orgCaller, type OrgWithKey } from '../../test/support/org-factories.js';
import { holdSqliteWriteLock, type SqliteLockHolder } from '../../test/support/sqlite-lock.js';
import { DEFAULT_DATABASE_LIMITS } from '../db/limits.js';

/**
 * SQLite unavailable to writes: another process holds the write lock, or the database is full.
 * Every write answers 503 SERVICE_UNAVAILABLE with Retry-After (it was a 500 after a 5 s busy wait),
 * nothing of it is written, and nothing that was acknowledged is lost.
 */
const BUSY_MS = 400;

describe('the database unavailable, on SQLite', () => {
  let t: TestContext;
  let org: OrgWithKey;
  let form: FormRecordJson;
  let file: string;
  let holder: SqliteLockHolder | undefined;
  const logLines: string[] = [];

  const payload = (email: string) => ({ consentVersion: form.consentVersion, email, name: 'Ada' });
  const stored = async (email: string) =>
    (await t.database.db.selectFrom('submissions').innerJoin('contacts', 'contacts.id', 'submissions.contact_id').select('submissions.id').where('contacts.email', '=', email).execute()).length;
  const contactsWith = async (email: string) => (await t.database.db.selectFrom('contacts').select('id').where('email', '=', email).execute()).length;

  function expectUnavailable(res: { statusCode: number; headers: Record<string, unknown>; json(): unknown }): void {
    expect(res.statusCode).toBe(503);
    expect(res.headers['retry-after']).toBe('5');
    expect(res.json()).toMatchObject({
      success: false,
      code: 'SERVICE_UNAVAILABLE',
      error: 'The service cannot reach its database right now. Try again in a few seconds.',
    });
  }

  beforeAll(async () => {
    const logStream = new Writable({
      write(chunk, _encoding, done) {
        logLines.push(String(chunk));
        done();
      },
    });
    t = await createTestContext('sqlite', { limits: { ...DEFAULT_DATABASE_LIMITS, sqliteBusyTimeoutMs: BUSY_MS }, env: { LOG_LEVEL: 'warn' }, deps: { logStream } });
    org = await createOrgWithKey(t.database, t.clock);
    form = await createForm(t.app, org);
    file = (await sql<{ file: string }>`pragma database_list`.execute(t.database.db)).rows[0]!.file;
  });
  afterEach(async () => {
    await holder?.release();
    holder = undefined;
  });
  afterAll(async () => t.close());

  describe('another process holds the write lock', () => {
    it('submissions (committed in one batch) and an operator write answer 503 after one busy wait each, and write nothing', async () => {
      const before = await countWrites(t.database, org.orgId);
      holder = await holdSqliteWriteLock(file);
      const started = performance.now();
      const [contact, ...submissions] = await Promise.all([
        orgCaller(t.app)('POST', '/api/org/contacts', org, { email: 'locked-contact@example.com', name: 'Locked' }),
        ...Array.from({ length: 10 }, (_, i) => submit(t.app, form.slug, payload(`locked-${i}@example.com`))),
      ]);
      const elapsed = performance.now() - started;
      for (const res of [contact!, ...submissions]) expectUnavailable(res);
      // The batch of ten waits once and fails as a whole; run again one by one it would wait ten more times.
      expect(elapsed).toBeLessThan(BUSY_MS * 5);
      expect(await countWrites(t.database, org.orgId)).toEqual(before);
      expect(await contactsWith('locked-contact@example.com')).toBe(0);

      // The log says what happened in one warning per request, not a bug's stack trace.
      const warnings = logLines.filter((line) => line.includes('request answered 503'));
      expect(warnings.length).toBeGreaterThanOrEqual(11);
      expect(warnings.every((line) => line.includes('SQLITE_BUSY') && !line.includes('"stack"'))).toBe(true);
      expect(logLines.some((line) => line.includes('request failed'))).toBe(false);

      await holder.release();
      holder = undefined;
      const again = await Promise.all(Array.from({ length: 10 }, (_, i) => submit(t.app, form.slug, payload(`locked-${i}@example.com`))));
      expect(again.map((res) => res.statusCode)).toEqual(Array(10).fill(200));
      expect((await countWrites(t.database, org.orgId)).submissions).toBe(before.submissions + 10);
    });

    it('/mcp answers a JSON-RPC error with status 503 and Retry-After (an agent key\'s first use is recorded)', async () => {
      const agent = await createAgent(t.app, org);
      const key = (await orgCaller(t.app)('POST', `/api/org/agents/${agent.id}/keys`, org, { name: 'locked' })).json().data.key as string;
      holder = await holdSqliteWriteLock(file);
      const res = await t.app.inject({ method: 'POST', url: '/mcp', headers: { ...MCP_HEADERS, authorization: `Bearer ${key}` }, payload: mcpToolsList });
      expect(res.statusCode).toBe(503);
      expect(res.headers['retry-after']).toBe('5');
      expect(res.json()).toMatchObject({ jsonrpc: '2.0', id: null, error: { code: -32000, data: { code: 'SERVICE_UNAVAILABLE' } } });
      await holder.release();
      holder = undefined;
      const after = await t.app.inject({ method: 'POST', url: '/mcp', headers: { ...MCP_HEADERS, authorization: `Bearer ${key}` }, payload: mcpToolsList });
      expect(after.statusCode).toBe(200);
    });

    it('the hosted page\'s form post answers a 503 page with Retry-After', async () => {
      holder = await holdSqliteWriteLock(file);
      const res = await t.app.inject({
        method: 'POST',
        url: `/f/${form.slug}`,
        remoteAddress: nextClientIp(),
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        payload: new URLSearchParams({ email: 'hosted-locked@example.com', consent: 'on', consentVersion: form.consentVersion }).toString(),
      });
      expect(res.statusCode).toBe(503);
      expect(res.headers['retry-after']).toBe('5');
      expect(res.headers['content-type']).toBe('text/html; charset=utf-8');
      expect(res.body).toContain('cannot reach its database');
      expect(await contactsWith('hosted-locked@example.com')).toBe(0);
    });
  });

  it('the database full (SQLITE_FULL): 503 with Retry-After, acknowledged submissions kept, nothing half-written', async () => {
    // SQLite's size limit is per connection, so it is set on the app's own: past it, a write fails with
    // SQLITE_FULL, exactly as when the disk is full.
    const pages = Number((await sql<{ page_count: number }>`pragma page_count`.execute(t.database.db)).rows[0]!.page_count);
    await sql.raw(`pragma max_page_count = ${pages + 2}`).execute(t.database.db);
    try {
      const emails = Array.from({ length: 60 }, (_, i) => `full-${i}@example.com`);
      // In waves, so some batches fit in the last free pages and later ones do not.
      const answers: { email: string; status: number }[] = [];
      for (let wave = 0; wave < 6; wave++) {
        const batch = emails.slice(wave * 10, wave * 10 + 10);
        const results = await Promise.all(batch.map((email) => submit(t.app, form.slug, payload(email))));
        results.forEach((res, i) => {
          if (res.statusCode === 503) expectUnavailable(res);
          answers.push({ email: batch[i]!, status: res.statusCode });
        });
      }
      expect(answers.filter((a) => a.status !== 200 && a.status !== 503)).toEqual([]);
      expect(answers.some((a) => a.status === 503)).toBe(true);
      for (const answer of answers) {
        // Acknowledged: stored. Refused: nothing of it, not even the contact.
        expect({ email: answer.email, stored: await stored(answer.email), contacts: await contactsWith(answer.email) }).toEqual(
          answer.status === 200 ? { email: answer.email, stored: 1, contacts: 1 } : { email: answer.email, stored: 0, contacts: 0 },
        );
      }
      expect(logLines.some((line) => line.includes('SQLITE_FULL'))).toBe(true);
    } finally {
      await sql.raw('pragma max_page_count = 1073741823').execute(t.database.db);
    }
    expect((await submit(t.app, form.slug, payload('room-again@example.com'))).statusCode).toBe(200);
  });

  it('/readyz answers 503 with Retry-After within 2 s while the database does not answer, and 200 once it does', async () => {
    // A transaction that holds the one connection for 3 s: to /readyz the database does not answer.
    let release!: () => void;
    const holding = t.database.db.transaction().execute(() => new Promise<void>((resolve) => (release = resolve)));
    try {
      const started = performance.now();
      const res = await t.app.inject({ method: 'GET', url: '/readyz' });
      expect(performance.now() - started).toBeLessThan(2000);
      expect(res.statusCode).toBe(503);
      expect(res.headers['retry-after']).toBe('5');
      expect(res.json()).toMatchObject({ code: 'SERVICE_UNAVAILABLE', error: 'The database is not reachable.' });
    } finally {
      release();
      await holding;
    }
    expect((await t.app.inject({ method: 'GET', url: '/readyz' })).statusCode).toBe(200);
  });
});
