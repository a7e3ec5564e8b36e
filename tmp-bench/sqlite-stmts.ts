import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { openDatabase } from '../src/db/database.js';
import { migrateToLatest } from '../src/db/migrate.js';
import { createOrgWithKey } from '../test/support/org-factories.js';
import { TestClock } from '../test/support/context.js';
import { newTimeOrderedId } from '../src/lib/ids.js';

const dir = mkdtempSync(join(tmpdir(), 'stm-'));
const database = openDatabase({ dataDir: dir });
await migrateToLatest(database.db);
const org = await createOrgWithKey(database, new TestClock());
await database.db.insertInto('webhook_endpoints').values({ id: 'wh_1', org_id: org.orgId, url: 'https://x', events: '["a"]', description: null, secret_sealed: 's', secret_key_id: 'k', enabled: 1, disabled_reason: null, failing_since: null, created_at: 'x', updated_at: 'x' }).execute();
await database.close();
const db = new Database(join(dir, 'switchboard.db'));
db.pragma('journal_mode = WAL'); db.pragma('synchronous = NORMAL');
const payload = JSON.stringify({ contact: { id: 'ct_x', email: 'ada@example.com', phone: null, name: 'Ada', company: null, source: 'form', custom: {}, createdAt: new Date().toISOString(), updatedAt: new Date().toISOString() } }).repeat(2);
const ev = db.prepare('insert into webhook_events (id, org_id, type, payload, created_at) values (?, ?, ?, ?, ?)');
const ev3 = db.prepare('insert into webhook_events (id, org_id, type, payload, created_at) values (?, ?, ?, ?, ?), (?, ?, ?, ?, ?), (?, ?, ?, ?, ?)');
const dl3 = db.prepare(`insert into webhook_deliveries (id, org_id, endpoint_id, event_id, status, attempts, next_attempt_at, locked_until, last_status, last_duration_ms, last_error, request_body, response_body, created_at, updated_at, delivered_at) values ${Array(3).fill('(?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)').join(',')}`);
const sel = db.prepare('select id, events from webhook_endpoints where org_id = ? and enabled = 1');
const N = 20000;
function time(label: string, fn: (i: number) => void) {
  const tx = db.transaction((from: number) => { for (let i = from; i < from + 20; i++) fn(i); });
  const t0 = performance.now();
  for (let i = 0; i < N; i += 20) { now = new Date().toISOString(); tx(i); }
  console.log(label, ((performance.now() - t0) / N * 1000).toFixed(1), 'µs');
}
let now = new Date().toISOString();
time('select subscriptions', () => sel.all(org.orgId));
time('insert 1 event', () => ev.run(newTimeOrderedId('evt', now), org.orgId, 'contact.created', payload, now));
time('insert 3 events', () => ev3.run(...[0, 1, 2].flatMap(() => [newTimeOrderedId('evt', now), org.orgId, 'contact.created', payload, now])));
let k = 0;
const evIds: string[] = [];
time('insert 3 events (ids kept)', () => { const ids = [0, 1, 2].map(() => newTimeOrderedId('evt', now)); evIds.push(...ids); ev3.run(...ids.flatMap((id) => [id, org.orgId, 'contact.created', payload, now])); });
time('insert 3 deliveries', () => { const base = (k++) * 3; dl3.run(...[0, 1, 2].flatMap((j) => [newTimeOrderedId('whd', now), org.orgId, 'wh_1', evIds[(base + j) % evIds.length], 'pending', 0, now, null, null, null, null, null, null, now, now, null])); });
console.log('foreign_keys', db.pragma('foreign_keys', { simple: true }));
db.pragma('foreign_keys = OFF');
time('insert 3 deliveries, FK off', () => { const base = (k++) * 3; dl3.run(...[0, 1, 2].flatMap((j) => [newTimeOrderedId('whd', now), org.orgId, 'wh_1', evIds[(base + j) % evIds.length], 'pending', 0, now, null, null, null, null, null, null, now, now, null])); });
time('insert 3 events, FK off', () => ev3.run(...[0, 1, 2].flatMap(() => [newTimeOrderedId('evt', now), org.orgId, 'contact.created', payload, now])));
console.log(db.prepare("select name, sql from sqlite_master where tbl_name in ('webhook_deliveries','webhook_events')").all());
db.pragma('foreign_keys = ON');
for (const idx of ['webhook_deliveries_bodies_idx', 'webhook_deliveries_event_idx', 'webhook_deliveries_pending_idx', 'webhook_deliveries_endpoint_created_idx']) {
  db.exec(`drop index ${idx}`);
  const dl = db.prepare(`insert into webhook_deliveries (id, org_id, endpoint_id, event_id, status, attempts, next_attempt_at, locked_until, last_status, last_duration_ms, last_error, request_body, response_body, created_at, updated_at, delivered_at) values ${Array(3).fill('(?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)').join(',')}`);
  time(`insert 3 deliveries without ${idx} (and those before)`, () => { const base = (k++) * 3; dl.run(...[0, 1, 2].flatMap((j) => [newTimeOrderedId('whd', now), org.orgId, 'wh_1', evIds[(base + j) % evIds.length], 'pending', 0, now, null, null, null, null, null, null, now, now, null])); });
}
