import { randomBytes } from 'node:crypto';
import { closeSync, existsSync, fchmodSync, fsyncSync, linkSync, lstatSync, openSync, realpathSync, renameSync, rmSync, statSync, unlinkSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import SQLite from 'better-sqlite3';
import { makeDataDir } from '../lib/data-dir.js';

/**
 * `switchboard backup` and `switchboard restore` on the embedded SQLite database (the CLI's commands
 * are thin over these). README "Backups" says when to run them.
 *
 * A backup is taken while the server runs and writes, with SQLite's online backup API from a read-only
 * connection of its own. In WAL mode a reader never blocks the server's writers and sees one committed
 * snapshot. SQLite restarts a backup taken in steps whenever another connection commits between two
 * steps: against a writer committing every 2 ms, a 100 MB database copied in better-sqlite3's default
 * 100-page steps restarted 2,825 times in 20 s and never finished. So the copy is made in one step
 * (0.64 s for those 100 MB), under one read transaction: every commit made before it started is in the
 * copy, none made after. Meanwhile the server's checkpoints cannot copy frames past that snapshot,
 * so its WAL grows for the length of the backup and is checkpointed once it ends.
 *
 * Files are created 0600 before anything is written into them (the database holds contacts' personal
 * data), under a temporary name in the destination's directory, and renamed (or linked, when an
 * existing file must not be replaced) into place once complete and synced: a reader never sees half a
 * backup, and a failed one leaves nothing behind.
 */

/** A refusal, in the CLI's words; `code` is one of the API's error codes. */
export class BackupRefusal extends Error {
  constructor(
    readonly code: 'CONFLICT' | 'NOT_FOUND' | 'VALIDATION_ERROR',
    message: string,
  ) {
    super(message);
  }
}

/** The most pages better-sqlite3 passes to one backup step: in practice "all of them, in one step". */
const ALL_PAGES = 0x7fffffff;

export interface BackupResult {
  /** The backup written. */
  file: string;
  /** The database copied. */
  database: string;
  pages: number;
  pageSize: number;
  bytes: number;
  milliseconds: number;
}

export interface RestoreResult {
  /** The database now in place. */
  database: string;
  restoredFrom: string;
  /** Where the database it replaced was kept (null: there was none). */
  previous: string | null;
  /** Migrations the backup has; `pending`: this build's migrations it lacks, applied at the next start. */
  migrations: number;
  pending: string[];
  bytes: number;
}

/** The files SQLite keeps beside a database. */
const SIDE_FILES = ['-wal', '-shm', '-journal'] as const;

/** The path with its directory's symlinks resolved, for comparing two names of one file (the file itself may not exist). */
function canonical(path: string): string {
  const absolute = resolve(path);
  try {
    return join(realpathSync(dirname(absolute)), basename(absolute));
  } catch {
    return absolute;
  }
}

const exists = (path: string) => lstatSync(path, { throwIfNoEntry: false }) !== undefined;

/** A new, empty file readable by this user only, from its first byte (fails if the name is taken). */
function createPrivateFile(path: string): void {
  const fd = openSync(path, 'wx', 0o600);
  try {
    // The umask may only take bits away; a umask that took the owner's write bit too would leave SQLite unable to write.
    fchmodSync(fd, 0o600);
  } finally {
    closeSync(fd);
  }
}

function fsyncPath(path: string): void {
  const fd = openSync(path, 'r');
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

/** A temporary name beside `target`, hidden and unique. */
function temporaryBeside(target: string, purpose: string): string {
  return join(dirname(target), `.${basename(target)}.${purpose}-${randomBytes(6).toString('hex')}.partial`);
}

function removeWithSideFiles(path: string): void {
  for (const suffix of ['', ...SIDE_FILES]) rmSync(`${path}${suffix}`, { force: true });
}

/** Copies `source` (a connection) into `target`, a new file created 0600, in one step; synced before returning. */
async function copyInto(source: SQLite.Database, target: string): Promise<{ pages: number }> {
  createPrivateFile(target);
  try {
    const progress = await source.backup(target, { progress: () => ALL_PAGES });
    fsyncPath(target);
    return { pages: progress.totalPages };
  } catch (error) {
    removeWithSideFiles(target);
    throw error;
  }
}

/**
 * Opens a backup file read-only for copying. A read-only connection to a database in WAL mode creates an
 * empty -wal and a -shm beside it when there were none; `tidy()` removes exactly those (never the files
 * of a database in use: they existed before). Not for the server's database: its -shm could be in use by
 * a server that started meanwhile; there they stay, as the server would make them (its mode, 0600).
 */
function openReadOnly(file: string): { db: SQLite.Database; tidy(): void } {
  const before = SIDE_FILES.filter((suffix) => exists(`${file}${suffix}`));
  const db = new SQLite(file, { readonly: true, fileMustExist: true });
  db.pragma('busy_timeout = 5000');
  return {
    db,
    tidy: () => {
      if (db.open) db.close();
      const wal = statSync(`${file}-wal`, { throwIfNoEntry: false });
      if (before.includes('-wal') || (wal && wal.size > 0)) return;
      for (const suffix of ['-wal', '-shm'] as const) if (!before.includes(suffix)) rmSync(`${file}${suffix}`, { force: true });
    },
  };
}

/** A consistent copy of the SQLite database at `databaseFile` into `destination` (0600); refuses to replace a file unless `force`. */
export async function backupSqlite(databaseFile: string, destination: string, options: { force: boolean }): Promise<BackupResult> {
  const database = resolve(databaseFile);
  const target = resolve(destination);
  const live = canonical(database);
  if ([live, ...SIDE_FILES.map((suffix) => `${live}${suffix}`)].includes(canonical(target))) {
    throw new BackupRefusal('CONFLICT', `${target} is the database itself (or one of its files): write the backup somewhere else.`);
  }
  if (!existsSync(database)) throw new BackupRefusal('NOT_FOUND', `there is no database at ${database}: nothing to back up (check DATA_DIR).`);
  if (!statSync(dirname(target), { throwIfNoEntry: false })?.isDirectory()) {
    throw new BackupRefusal('NOT_FOUND', `the directory ${dirname(target)} does not exist: create it first.`);
  }
  const taken = () => new BackupRefusal('CONFLICT', `${target} already exists: choose another name, or pass --force to replace it.`);
  if (!options.force && exists(target)) throw taken();
  // A -wal beside the name would be read as part of the new file the next time SQLite opens it.
  if (exists(`${target}-wal`)) throw new BackupRefusal('CONFLICT', `${target}-wal exists: ${target} is a database in use or one not closed cleanly; choose another name.`);

  const started = performance.now();
  const temporary = temporaryBeside(target, 'backup');
  const source = new SQLite(database, { readonly: true, fileMustExist: true });
  try {
    source.pragma('busy_timeout = 5000');
    const pageSize = Number(source.pragma('page_size', { simple: true }));
    const { pages } = await copyInto(source, temporary);
    source.close();
    if (options.force) {
      renameSync(temporary, target);
    } else {
      // link() fails if the name was taken meanwhile, where rename() would replace it.
      try {
        linkSync(temporary, target);
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === 'EEXIST') throw taken();
        throw error;
      }
      unlinkSync(temporary);
    }
    fsyncPath(dirname(target));
    return { file: target, database, pages, pageSize, bytes: statSync(target).size, milliseconds: Math.round(performance.now() - started) };
  } catch (error) {
    const code = (error as { code?: string }).code ?? '';
    if (code.startsWith('SQLITE_NOTADB') || code.startsWith('SQLITE_CORRUPT')) {
      throw new BackupRefusal('VALIDATION_ERROR', `the database ${database} cannot be read (${(error as Error).message}): there is nothing sound to copy; restore the last good backup.`);
    }
    throw error;
  } finally {
    if (source.open) source.close();
    removeWithSideFiles(temporary);
  }
}

/** The checks a file must pass before it replaces the database: SQLite, intact, ours, and not from a newer build. */
function inspect(file: string, shownAs: string, knownMigrations: readonly string[]): { applied: string[] } {
  const db = new SQLite(file, { fileMustExist: true });
  try {
    const problems = (db.pragma('integrity_check') as { integrity_check: string }[]).map((row) => row.integrity_check);
    if (problems.length !== 1 || problems[0] !== 'ok') {
      throw new BackupRefusal('VALIDATION_ERROR', `${shownAs} is damaged (PRAGMA integrity_check: ${problems.slice(0, 3).join('; ')}): nothing was replaced.`);
    }
    const hasMigrations = db.prepare(`select 1 from sqlite_master where type = 'table' and name = 'schema_migrations'`).get() !== undefined;
    if (!hasMigrations) throw new BackupRefusal('VALIDATION_ERROR', `${shownAs} is a SQLite database but not a Switchboard one (it has no schema_migrations table): nothing was replaced.`);
    const applied = (db.prepare('select name from schema_migrations order by name').all() as { name: string }[]).map((row) => row.name);
    const unknown = applied.filter((name) => !knownMigrations.includes(name));
    if (unknown.length > 0) {
      throw new BackupRefusal(
        'VALIDATION_ERROR',
        `${shownAs} comes from a newer Switchboard (migration ${unknown.join(', ')} is unknown to this build): restore it with that version or a later one. Nothing was replaced.`,
      );
    }
    return { applied };
  } catch (error) {
    if (error instanceof BackupRefusal) throw error;
    throw new BackupRefusal('VALIDATION_ERROR', `${shownAs} is not a readable SQLite database (${error instanceof Error ? error.message : String(error)}): nothing was replaced.`);
  } finally {
    db.close();
  }
}

/**
 * The database taken for this process alone, or a refusal if any other connection has it open. Every
 * connection to a WAL database holds a shared lock on the file for as long as it is open (the server's,
 * its checkpoint worker's, a CLI command's), and leaving WAL mode needs an exclusive one: so the switch
 * succeeds only when no one else has the database open, and with `locking_mode = EXCLUSIVE` this
 * connection keeps the lock until it closes, so no server can open the database meanwhile. The kernel
 * drops the locks of a process that died, so a crashed server does not block a restore (its WAL is
 * recovered and checkpointed into the file by the switch), and no pid file can be stale.
 */
function takeExclusively(file: string): SQLite.Database {
  const db = new SQLite(file, { fileMustExist: true });
  try {
    db.pragma('busy_timeout = 0');
    db.pragma('locking_mode = EXCLUSIVE');
    db.pragma('journal_mode = DELETE');
    // Takes the exclusive lock also when the file was not in WAL mode (the switch above then did nothing).
    db.exec('begin exclusive; commit');
    return db;
  } catch (error) {
    db.close();
    const code = (error as { code?: string }).code ?? '';
    if (code.startsWith('SQLITE_BUSY')) {
      throw new BackupRefusal(
        'CONFLICT',
        `the database ${file} is in use: a Switchboard server (or another command) has it open. Stop the server, then run restore again. Nothing was replaced.`,
      );
    }
    if (code.startsWith('SQLITE_NOTADB') || code.startsWith('SQLITE_CORRUPT')) {
      // Without SQLite's lock there is no telling whether a server has it open: the operator decides.
      throw new BackupRefusal(
        'CONFLICT',
        `the database ${file} cannot be read (${(error as Error).message}): with the server stopped, move it (and any -wal and -shm beside it) aside yourself, then run restore again. Nothing was replaced.`,
      );
    }
    throw error;
  }
}

/** `<database>.before-restore-<UTC time>`, or with a counter if that name is taken. */
function previousName(database: string, now: Date): (attempt: number) => string {
  const stamp = now.toISOString().replace(/[-:]/g, '').replace(/\.\d+Z$/, 'Z');
  return (attempt) => `${database}.before-restore-${stamp}${attempt > 0 ? `-${attempt}` : ''}`;
}

/** Links `file` under the first free name `nameOf` gives; returns it. */
function linkUnderFreeName(file: string, nameOf: (attempt: number) => string): string {
  for (let attempt = 0; ; attempt++) {
    const name = nameOf(attempt);
    try {
      linkSync(file, name);
      return name;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST' || attempt >= 100) throw error;
    }
  }
}

/**
 * Puts the backup at `backupFile` in place of the database at `databaseFile`, which must not be in use.
 * The backup is copied next to the database and checked there (what is checked is what goes in place);
 * the database it replaces is kept, 0600, as `<name>.before-restore-<time>`; then the copy is renamed
 * over it. Any refusal leaves the database and its files as they were.
 */
export async function restoreSqlite(backupFile: string, databaseFile: string, options: { migrations: readonly string[]; now: Date }): Promise<RestoreResult> {
  const from = resolve(backupFile);
  const database = resolve(databaseFile);
  if (canonical(from) === canonical(database)) throw new BackupRefusal('CONFLICT', `${from} is the database itself: name a backup file.`);
  if (!statSync(from, { throwIfNoEntry: false })?.isFile()) throw new BackupRefusal('NOT_FOUND', `there is no file at ${from}.`);
  makeDataDir(dirname(database));

  const staged = temporaryBeside(database, 'restore');
  const temporaries = [staged];
  let holder: SQLite.Database | undefined;
  try {
    let source: ReturnType<typeof openReadOnly> | undefined;
    try {
      source = openReadOnly(from);
      await copyInto(source.db, staged);
    } catch (error) {
      throw new BackupRefusal('VALIDATION_ERROR', `${from} is not a SQLite database (${error instanceof Error ? error.message : String(error)}): nothing was replaced.`);
    } finally {
      source?.tidy();
    }
    const { applied } = inspect(staged, from, options.migrations);
    // The check's connection was the copy's last: SQLite removed its -wal and -shm on closing it.

    let previous: string | null = null;
    if (existsSync(database)) {
      holder = takeExclusively(database);
      // The database as it was, complete: the switch out of WAL mode checkpointed its log into the file.
      const copy = temporaryBeside(database, 'previous');
      temporaries.push(copy);
      await copyInto(holder, copy);
      previous = linkUnderFreeName(copy, previousName(database, options.now));
    }
    // The log and index of the database being replaced: the new file must never be read through them.
    // No one else can be using them: the exclusive lock is held, or there was no database at all.
    rmSync(`${database}-wal`, { force: true });
    rmSync(`${database}-shm`, { force: true });
    if (holder) {
      renameSync(staged, database);
    } else {
      try {
        linkSync(staged, database);
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === 'EEXIST') {
          throw new BackupRefusal('CONFLICT', `a database appeared at ${database} during the restore (is a server starting?): nothing was replaced.`);
        }
        throw error;
      }
    }
    fsyncPath(dirname(database));
    return {
      database,
      restoredFrom: from,
      previous,
      migrations: applied.length,
      pending: options.migrations.filter((name) => !applied.includes(name)),
      bytes: statSync(database).size,
    };
  } finally {
    // Closed only once the copy is in place, so no server could open the old file in between.
    holder?.close();
    for (const file of temporaries) removeWithSideFiles(file);
  }
}
