import { copyFileSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createHash } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import SQLite from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase } from './database.js';
import { migrateToLatest } from './migrate.js';
import { runCliAsync, type CliRun } from '../../test/support/cli.js';
import { TEST_ENV, TestClock } from '../../test/support/context.js';
import { nextClientIp, uniqueSlug } from '../../test/support/form-factories.js';
import { createOrgWithKey, type OrgWithKey } from '../../test/support/org-factories.js';
import { startServerProcess, type ServerProcess } from '../../test/support/server-process.js';

/**
 * `switchboard backup` and `switchboard restore` as an operator runs them: the real server (src/main.ts)
 * in a child process on its own DATA_DIR, public submissions written by four clients in a bounded loop,
 * and the CLI in another process. Everything listens on 127.0.0.1.
 */
const CLIENTS = 4;
/** The load's bound: enough to keep writing through the CLI's start (about a second, more on a busy machine). */
const MAX_SUBMISSIONS = 6000;

const modeOf = (path: string) => (statSync(path).mode & 0o777).toString(8);
const sha256 = (path: string) => createHash('sha256').update(readFileSync(path)).digest('hex');
/** The database's files in DATA_DIR (the development secrets.key the CLI may write is not one). */
const databaseFiles = (dir: string) => readdirSync(dir).filter((name) => name.startsWith('switchboard.db') || name.endsWith('.partial')).sort();

/** What a file holds: whether SQLite finds it intact, and the emails of the organization's contacts. */
function contentsOf(file: string, orgId: string): { integrity: string; emails: Set<string>; submissions: number } {
  const db = new SQLite(file, { readonly: true, fileMustExist: true });
  try {
    return {
      integrity: db.pragma('integrity_check', { simple: true }) as string,
      emails: new Set(db.prepare('select email from contacts where org_id = ?').pluck().all(orgId) as string[]),
      submissions: db.prepare('select count(*) from submissions where org_id = ?').pluck().get(orgId) as number,
    };
  } finally {
    db.close();
  }
}

function refusal(run: CliRun): { success: boolean; code: string; error: string } {
  return JSON.parse(run.stderr) as { success: boolean; code: string; error: string };
}

describe.skipIf(process.platform === 'win32')('switchboard backup and restore', () => {
  const base = mkdtempSync(join(tmpdir(), 'switchboard-backup-'));
  const dataDir = join(base, 'data');
  const backups = join(base, 'backups');
  const databaseFile = join(dataDir, 'switchboard.db');
  const backupFile = join(backups, 'during-load.db');
  let server: ServerProcess | undefined;
  let org: OrgWithKey;
  let form: { id: string; slug: string; consentVersion: string };
  /** Emails of the submissions answered 200, in the order the answers came. */
  const acked: string[] = [];
  let ackedBeforeBackup: string[] = [];

  const start = () => startServerProcess({ ...TEST_ENV, LOG_LEVEL: 'silent', DATA_DIR: dataDir, DATABASE_URL: '', TRUST_PROXY: '1' }, 45_000);
  const submitLead = (email: string) =>
    fetch(`${server!.url}/api/public/forms/${form.slug}/submit`, {
      method: 'POST',
      // A client address of its own per submission (TRUST_PROXY), so the per-client rate limit never answers instead.
      headers: { 'content-type': 'application/json', 'x-forwarded-for': nextClientIp() },
      body: JSON.stringify({ consentVersion: form.consentVersion, name: 'Load Lead', email }),
    });
  const contactsWithEmail = async (email: string) => {
    const res = await fetch(`${server!.url}/api/org/contacts?email=${encodeURIComponent(email)}`, { headers: { authorization: `Bearer ${org.apiKey}` } });
    expect(res.status).toBe(200);
    return ((await res.json()) as { data: { items: unknown[] } }).data.items.length;
  };

  beforeAll(async () => {
    mkdirSync(backups, { mode: 0o700 });
    const database = openDatabase({ dataDir });
    await migrateToLatest(database.db);
    org = await createOrgWithKey(database, new TestClock());
    // From here on the server is the database's only user.
    await database.close();
    server = await start();
    const res = await fetch(`${server.url}/api/org/forms`, {
      method: 'POST',
      headers: { authorization: `Bearer ${org.apiKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ slug: uniqueSlug(), title: 'Book a visit', consentText: 'I agree to be contacted about my request.' }),
    });
    expect(res.status).toBe(201);
    form = ((await res.json()) as { data: typeof form }).data;
  }, 60_000);

  afterAll(async () => {
    await server?.stop();
    rmSync(base, { recursive: true, force: true });
  });

  it('copies the database during submit load: the copy is intact, 0600, and holds every submission acknowledged before it started', async () => {
    const statuses: number[] = [];
    let stop = false;
    let next = 0;
    const client = async () => {
      while (!stop && next < MAX_SUBMISSIONS) {
        const email = `lead-${next++}@example.com`;
        const res = await submitLead(email);
        await res.arrayBuffer();
        if (res.status === 200) acked.push(email);
        else statuses.push(res.status);
      }
    };
    const clients = Array.from({ length: CLIENTS }, client);
    // The backup starts once submissions are being written, and they go on while it runs.
    while (acked.length < 50 && next < MAX_SUBMISSIONS) await new Promise((resolve) => setTimeout(resolve, 10));
    ackedBeforeBackup = [...acked];
    const run = await runCliAsync(dataDir, {}, 'backup', backupFile, '--json');
    const ackedWhileRunning = acked.length - ackedBeforeBackup.length;
    stop = true;
    await Promise.all(clients);

    expect(run.code, run.stderr).toBe(0);
    expect(statuses).toEqual([]);
    expect(ackedWhileRunning).toBeGreaterThan(0);
    const printed = JSON.parse(run.stdout) as { file: string; pages: number; pageSize: number; bytes: number; milliseconds: number };
    expect(printed).toMatchObject({ file: backupFile, database: databaseFile, pageSize: 4096, bytes: statSync(backupFile).size });
    expect(printed.pages * printed.pageSize).toBe(printed.bytes);
    expect(modeOf(backupFile)).toBe('600');

    const copy = contentsOf(backupFile, org.orgId);
    expect(copy.integrity).toBe('ok');
    expect(ackedBeforeBackup.filter((email) => !copy.emails.has(email))).toEqual([]);
    expect(copy.submissions).toBeGreaterThanOrEqual(ackedBeforeBackup.length);
    // Nothing left behind: no partial file beside the backup.
    expect(readdirSync(backups).filter((name) => !name.startsWith('during-load.db'))).toEqual([]);
  }, 90_000);

  it('refuses to replace an existing file unless --force, and leaves it as it was', async () => {
    const existing = join(backups, 'existing.db');
    writeFileSync(existing, 'an earlier file, kept', { mode: 0o644 });
    const listing = readdirSync(backups).sort();

    const refused = await runCliAsync(dataDir, {}, 'backup', existing, '--json');
    expect(refused.code).toBe(1);
    expect(refusal(refused)).toEqual({ success: false, code: 'CONFLICT', error: `${existing} already exists: choose another name, or pass --force to replace it.` });
    expect(readFileSync(existing, 'utf8')).toBe('an earlier file, kept');
    expect(readdirSync(backups).sort()).toEqual(listing);

    const forced = await runCliAsync(dataDir, {}, 'backup', existing, '--force');
    expect(forced.code, forced.stderr).toBe(0);
    expect(forced.stdout).toContain(`file: ${existing}`);
    expect(modeOf(existing)).toBe('600');
    expect(contentsOf(existing, org.orgId).integrity).toBe('ok');

    const ontoItself = await runCliAsync(dataDir, {}, 'backup', databaseFile, '--force', '--json');
    expect(ontoItself.code).toBe(1);
    expect(refusal(ontoItself)).toMatchObject({ code: 'CONFLICT', error: expect.stringContaining('is the database itself') });
  }, 60_000);

  it('refuses to restore while the server runs on the database, and replaces nothing', async () => {
    const before = databaseFiles(dataDir);
    const refused = await runCliAsync(dataDir, {}, 'restore', backupFile, '--json');
    expect(refused.code).toBe(1);
    expect(refusal(refused)).toEqual({
      success: false,
      code: 'CONFLICT',
      error: `the database ${databaseFile} is in use: a Switchboard server (or another command) has it open. Stop the server, then run restore again. Nothing was replaced.`,
    });
    expect(databaseFiles(dataDir)).toEqual(before);
    // The server goes on serving and writing.
    const res = await submitLead('after-backup@example.com');
    expect(res.status).toBe(200);
    acked.push('after-backup@example.com');
  }, 60_000);

  it('on PostgreSQL, refuses both and names pg_dump and pg_restore, writing nothing', async () => {
    // The commands refuse before connecting; under `npm run services` they are given the real server's URL.
    const databaseUrl = process.env.TEST_DATABASE_URL ?? 'postgres://switchboard@127.0.0.1:9/switchboard';
    const target = join(backups, 'postgres.db');
    const backup = await runCliAsync(dataDir, { databaseUrl }, 'backup', target, '--json');
    expect(backup.code).toBe(1);
    expect(refusal(backup)).toMatchObject({ success: false, code: 'NOT_SUPPORTED', error: expect.stringContaining('back it up with pg_dump') });
    expect(refusal(backup).error).toContain('point-in-time recovery');
    expect(statSync(target, { throwIfNoEntry: false })).toBeUndefined();

    const restore = await runCliAsync(dataDir, { databaseUrl }, 'restore', backupFile);
    expect(restore.code).toBe(1);
    expect(restore.stderr).toContain('restore a pg_dump archive with pg_restore');
  }, 60_000);

  it('after the server is killed, refuses files that are not its database and replaces nothing', async () => {
    // A crash, not a clean stop: the WAL keeps committed submissions the file does not have yet.
    server!.signal('SIGKILL');
    await server!.ended;
    server = undefined;
    const files = databaseFiles(dataDir);
    const hashes = files.map((name) => sha256(join(dataDir, name)));

    const text = join(backups, 'notes.txt');
    writeFileSync(text, 'not a database at all\n'.repeat(200));
    const foreign = join(backups, 'foreign.db');
    const other = new SQLite(foreign);
    other.exec('create table t (x integer)');
    other.close();
    const newer = join(backups, 'newer.db');
    copyFileSync(backupFile, newer);
    const future = new SQLite(newer);
    future.prepare('insert into schema_migrations (name, timestamp) values (?, ?)').run('29991231T0000_from_the_future', new Date().toISOString());
    future.close();

    const cases: Array<[string, string]> = [
      [text, `${text} is not a SQLite database (file is not a database): nothing was replaced.`],
      [foreign, `${foreign} is a SQLite database but not a Switchboard one (it has no schema_migrations table): nothing was replaced.`],
      [newer, `${newer} comes from a newer Switchboard (migration 29991231T0000_from_the_future is unknown to this build): restore it with that version or a later one. Nothing was replaced.`],
      [join(backups, 'missing.db'), `there is no file at ${join(backups, 'missing.db')}.`],
    ];
    for (const [file, message] of cases) {
      const run = await runCliAsync(dataDir, {}, 'restore', file, '--json');
      expect(run.code, file).toBe(1);
      expect(refusal(run).error).toBe(message);
      expect(databaseFiles(dataDir)).toEqual(files);
      expect(files.map((name) => sha256(join(dataDir, name)))).toEqual(hashes);
    }
  }, 60_000);

  it('restores the backup in place of the crashed database, keeping it 0600 beside, and the server then serves the backup\'s data', async () => {
    const run = await runCliAsync(dataDir, {}, 'restore', backupFile, '--json');
    expect(run.code, run.stderr).toBe(0);
    const printed = JSON.parse(run.stdout) as { database: string; restoredFrom: string; previous: string; pending: string[] };
    expect(printed).toMatchObject({ database: databaseFile, restoredFrom: backupFile, pending: [], previous: expect.stringMatching(/switchboard\.db\.before-restore-\d{8}T\d{6}Z$/) });

    // In place: the backup's contents, no log or index of the old file left to be read with it.
    expect(databaseFiles(dataDir)).toEqual(['switchboard.db', printed.previous.slice(dataDir.length + 1)]);
    // The database replaced is kept whole: its WAL (the crash's last commits) folded in, every acknowledged submission there.
    const previous = contentsOf(printed.previous, org.orgId);
    expect(previous.integrity).toBe('ok');
    expect(acked.filter((email) => !previous.emails.has(email))).toEqual([]);
    expect(modeOf(printed.previous)).toBe('600');
    expect(modeOf(databaseFile)).toBe('600');
    const restored = contentsOf(databaseFile, org.orgId);
    expect(restored.integrity).toBe('ok');
    expect(restored.emails).toEqual(contentsOf(backupFile, org.orgId).emails);

    server = await start();
    expect(await contactsWithEmail(ackedBeforeBackup.at(-1)!)).toBe(1);
    expect(await contactsWithEmail('after-backup@example.com')).toBe(0);
    expect((await submitLead('after-restore@example.com')).status).toBe(200);
    expect(await contactsWithEmail('after-restore@example.com')).toBe(1);
  }, 90_000);
});

describe.skipIf(process.platform === 'win32')('switchboard restore without a server', () => {
  const base = mkdtempSync(join(tmpdir(), 'switchboard-restore-'));
  afterAll(() => rmSync(base, { recursive: true, force: true }));

  /** A Switchboard database, migrated, as a backup of one would be. */
  async function aBackup(name: string): Promise<string> {
    const dataDir = join(base, `${name}-source`);
    const database = openDatabase({ dataDir });
    await migrateToLatest(database.db);
    await createOrgWithKey(database, new TestClock(), { name: 'Restored Org' });
    await database.close();
    const file = join(base, `${name}.db`);
    const run = await runCliAsync(dataDir, {}, 'backup', file);
    expect(run.code, run.stderr).toBe(0);
    return file;
  }
  const orgNames = (file: string) => {
    const db = new SQLite(file, { readonly: true, fileMustExist: true });
    try {
      return db.prepare('select name from orgs').pluck().all();
    } finally {
      db.close();
    }
  };

  it('puts a backup in place where there is no database yet (a new machine), keeping nothing beside it', async () => {
    const backup = await aBackup('fresh');
    const dataDir = join(base, 'new-machine', 'data');
    const run = await runCliAsync(dataDir, {}, 'restore', backup, '--json');
    expect(run.code, run.stderr).toBe(0);
    expect(JSON.parse(run.stdout)).toMatchObject({ database: join(dataDir, 'switchboard.db'), previous: null, pending: [] });
    expect(databaseFiles(dataDir)).toEqual(['switchboard.db']);
    expect(modeOf(join(dataDir, 'switchboard.db'))).toBe('600');
    expect(modeOf(dataDir)).toBe('700');
    expect(orgNames(join(dataDir, 'switchboard.db'))).toEqual(['Restored Org']);
  }, 60_000);

  it('refuses to back up or replace a database it cannot read (it cannot tell that one is not in use); a missing <file> is a usage error', async () => {
    const backup = await aBackup('over-garbage');
    const dataDir = join(base, 'garbage', 'data');
    mkdirSync(dataDir, { recursive: true, mode: 0o700 });
    writeFileSync(join(dataDir, 'switchboard.db'), 'not a database\n'.repeat(400), { mode: 0o600 });
    const run = await runCliAsync(dataDir, {}, 'restore', backup, '--json');
    expect(run.code).toBe(1);
    expect(refusal(run)).toMatchObject({ code: 'CONFLICT', error: expect.stringContaining('cannot be read (file is not a database): with the server stopped, move it') });
    expect(readFileSync(join(dataDir, 'switchboard.db'), 'utf8')).toBe('not a database\n'.repeat(400));
    expect(databaseFiles(dataDir)).toEqual(['switchboard.db']);

    const copy = await runCliAsync(dataDir, {}, 'backup', join(base, 'of-garbage.db'), '--json');
    expect(copy.code).toBe(1);
    expect(refusal(copy)).toMatchObject({ code: 'VALIDATION_ERROR', error: expect.stringContaining('cannot be read (file is not a database): there is nothing sound to copy') });
    expect(statSync(join(base, 'of-garbage.db'), { throwIfNoEntry: false })).toBeUndefined();
    expect(readdirSync(base).filter((name) => name.endsWith('.partial'))).toEqual([]);

    const usage = await runCliAsync(dataDir, {}, 'restore', '--json');
    expect(usage.code).toBe(2);
    expect(refusal(usage)).toMatchObject({ code: 'USAGE_ERROR', error: 'missing <file>.', usage: 'switchboard restore <file>' });
  }, 60_000);
});
