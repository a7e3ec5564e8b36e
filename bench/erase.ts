import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import { buildApp } from '../src/app.js';
import { loadConfig } from '../src/config.js';
import { openDatabase } from '../src/db/database.js';
import { migrateToLatest } from '../src/db/migrate.js';
import { createServices } from '../src/services.js';
import { TEST_ENV, TestClock } from '../test/support/context.js';
import { createForm } from '../test/support/form-factories.js';
import { createOrgWithKey } from '../test/support/org-factories.js';
import { throwawaySchema } from './lib.js';

/**
 * Erasing a person (issue 36, docs/privacy.md): the time of `POST /api/org/contacts/{id}/erase`'s one transaction
 * for a contact with BENCH_ERASE_SUBMISSIONS (default 1,000) form submissions, each with its note (the message) and
 * its opportunity, among other contacts' rows, on SQLite and PostgreSQL. The person is seeded through the public
 * submit path (one contact, matched by email); the erase is called in-process (app.inject), timed from request to
 * answer, three times on three fresh contacts; the median is printed with the rows it touched.
 */
export async function benchErase(options: { databaseUrl?: string } = {}): Promise<string[][]> {
  const count = Number(process.env.BENCH_ERASE_SUBMISSIONS ?? 1000);
  const schema = options.databaseUrl ? await throwawaySchema(options.databaseUrl) : undefined;
  const dir = mkdtempSync(join(tmpdir(), 'switchboard-bench-erase-'));
  const database = schema ? openDatabase({ databaseUrl: schema.url }) : openDatabase({ sqliteFile: join(dir, 'bench.db') });
  await migrateToLatest(database.db);
  const config = loadConfig({ ...TEST_ENV, DATA_DIR: dir });
  const clock = new TestClock();
  const services = await createServices(config, { database, log: pino({ level: process.env.BENCH_LOG ?? 'silent' }), clock, redis: false });
  const app = await buildApp({ config, database, clock, services });
  await app.ready();
  const org = await createOrgWithKey(database, clock);
  const form = await createForm(app, org, { createOpportunity: true, fields: { name: { enabled: true, required: true }, message: { enabled: true, required: false } } });
  const times: number[] = [];
  let touched = '';
  let ip = 0;
  for (let round = 0; round < 3; round++) {
    const email = `erase-${round}@example.com`;
    for (let i = 0; i < count; i++) {
      ip++;
      const res = await app.inject({
        method: 'POST', url: `/api/public/forms/${form.slug}/submit`, remoteAddress: `10.${(ip >> 16) & 255}.${(ip >> 8) & 255}.${ip & 255}`,
        headers: { 'content-type': 'application/json' },
        payload: { consentVersion: '1', name: `Person ${round}`, email, message: `Message ${i} from the person who asks to be erased.` },
      });
      if (res.statusCode !== 200) throw new Error(res.body);
      clock.advance(1);
    }
    const contact = await app.inject({ method: 'GET', url: `/api/org/contacts?email=${email}`, headers: org.auth });
    const id = contact.json().data.items[0].id as string;
    const started = process.hrtime.bigint();
    const res = await app.inject({ method: 'POST', url: `/api/org/contacts/${id}/erase`, headers: org.auth });
    times.push(Number(process.hrtime.bigint() - started) / 1e6);
    if (res.statusCode !== 200) throw new Error(res.body);
    const removed = res.json().data.removed;
    touched = `${removed.submissions} submissions, ${removed.notes} notes, ${removed.opportunities} opportunities`;
  }
  await app.close();
  await services.close();
  await database.close();
  await schema?.drop();
  rmSync(dir, { recursive: true, force: true });
  const sorted = [...times].sort((a, b) => a - b);
  return [[
    `erase a contact (${database.dialect === 'postgres' ? 'PostgreSQL' : 'SQLite'})`,
    `${sorted[1]!.toFixed(0)} ms median (${sorted.map((ms) => ms.toFixed(0)).join(', ')} ms) for ${touched}, the org holding ${3 * count} submissions`,
    'one transaction; absolute time',
  ]];
}
