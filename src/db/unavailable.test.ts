import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import SQLite from 'better-sqlite3';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { freePort } from '../../test/support/net.js';
import { DatabaseUnavailableError, isDatabaseUnavailable, unavailableReason } from './unavailable.js';

/** What pg's protocol parser builds from a server's ErrorResponse. */
function serverError(code: string, severity = 'ERROR', message = 'from the server'): Error {
  return Object.assign(new pg.DatabaseError(message, 0, 'error'), { code, severity });
}

describe('isDatabaseUnavailable', () => {
  const dir = mkdtempSync(join(tmpdir(), 'switchboard-unavailable-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('SQLite: a lock another connection holds past busy_timeout, and a full database', () => {
    const file = join(dir, 'busy.db');
    const holder = new SQLite(file);
    const writer = new SQLite(file);
    holder.pragma('journal_mode = WAL');
    holder.exec('create table t (x text)');
    writer.pragma('busy_timeout = 10');
    holder.exec('begin immediate');
    let busy: unknown;
    try {
      writer.prepare('insert into t values (1)').run();
    } catch (error) {
      busy = error;
    }
    holder.exec('rollback');
    expect((busy as { code?: string }).code).toBe('SQLITE_BUSY');
    expect(isDatabaseUnavailable(busy)).toBe(true);

    writer.pragma(`max_page_count = ${writer.pragma('page_count', { simple: true }) as number}`);
    let full: unknown;
    try {
      for (let i = 0; i < 100; i++) writer.prepare('insert into t values (?)').run('x'.repeat(1000));
    } catch (error) {
      full = error;
    }
    expect((full as { code?: string }).code).toBe('SQLITE_FULL');
    expect(isDatabaseUnavailable(full)).toBe(true);
    holder.close();
    writer.close();
  });

  it('SQLite: a constraint or a mistake in SQL is not', () => {
    const db = new SQLite(':memory:');
    db.exec('create table t (x text primary key)');
    db.prepare('insert into t values (?)').run('a');
    const failures: unknown[] = [];
    for (const attempt of [() => db.prepare('insert into t values (?)').run('a'), () => db.prepare('select nope from t').get()]) {
      try {
        attempt();
      } catch (error) {
        failures.push(error);
      }
    }
    expect(failures.map((error) => (error as { code?: string }).code)).toEqual(['SQLITE_CONSTRAINT_PRIMARYKEY', 'SQLITE_ERROR']);
    expect(failures.map((error) => isDatabaseUnavailable(error))).toEqual([false, false]);
    db.close();
  });

  it('PostgreSQL: a connection refused (nothing listens on the port)', async () => {
    const client = new pg.Client({ connectionString: `postgres://nobody@127.0.0.1:${await freePort()}/none`, connectionTimeoutMillis: 2000 });
    const refused = await client.connect().then(() => undefined, (error: unknown) => error);
    expect((refused as { code?: string }).code).toBe('ECONNREFUSED');
    expect(isDatabaseUnavailable(refused)).toBe(true);
  });

  it.each([
    ['08006', 'connection failure'],
    ['08001', 'cannot establish a connection'],
    ['53300', 'too many connections'],
    ['53100', 'disk full'],
    ['57P01', 'terminated by an administrator (pg_ctl stop -m fast, pg_terminate_backend)'],
    ['57P02', 'crash shutdown'],
    ['57P03', 'the server is starting up'],
    ['57014', 'cancelled by statement_timeout'],
    ['25006', 'a read-only standby (a failover in progress)'],
  ])('PostgreSQL SQLSTATE %s (%s) is', (code) => {
    expect(isDatabaseUnavailable(serverError(code))).toBe(true);
  });

  it.each([
    ['23505', 'unique violation'],
    ['23503', 'foreign key violation'],
    ['42601', 'syntax error'],
    ['22P02', 'invalid text representation'],
    ['28P01', 'password authentication failed: a configuration mistake, not an outage'],
  ])('PostgreSQL SQLSTATE %s (%s) is not', (code) => {
    expect(isDatabaseUnavailable(serverError(code))).toBe(false);
  });

  it.each([
    'Connection terminated unexpectedly',
    'Connection terminated',
    'Connection terminated due to connection timeout',
    'timeout exceeded when trying to connect',
    'timeout expired',
    'Query read timeout',
    'Client has encountered a connection error and is not queryable',
  ])("pg's own '%s' is", (message) => {
    expect(isDatabaseUnavailable(new Error(message))).toBe(true);
  });

  it('socket errors, our own waits, and either wrapped (cause, AggregateError) are; anything else is not', () => {
    expect(isDatabaseUnavailable(Object.assign(new Error('read ECONNRESET'), { code: 'ECONNRESET' }))).toBe(true);
    expect(isDatabaseUnavailable(new DatabaseUnavailableError('Waited more than 3000 ms for the database connection.'))).toBe(true);
    expect(isDatabaseUnavailable(new Error('outer', { cause: Object.assign(new Error('x'), { code: 'SQLITE_IOERR_WRITE' }) }))).toBe(true);
    expect(isDatabaseUnavailable(new AggregateError([new Error('other'), Object.assign(new Error('x'), { code: 'ECONNREFUSED' })]))).toBe(true);
    expect(isDatabaseUnavailable(new Error('Connection terminated by a bug in a message'))).toBe(false);
    expect(isDatabaseUnavailable(new TypeError('cannot read properties of undefined'))).toBe(false);
    expect(isDatabaseUnavailable(Object.assign(new Error('x'), { code: '08006' }))).toBe(false); // a SQLSTATE only counts from the server (with its severity)
    expect(isDatabaseUnavailable(undefined)).toBe(false);
    expect(isDatabaseUnavailable('ECONNREFUSED')).toBe(false);
  });

  it('the reason logged is the code and the message', () => {
    expect(unavailableReason(serverError('57P01', 'FATAL', 'terminating connection due to administrator command'))).toBe('57P01: terminating connection due to administrator command');
    expect(unavailableReason(new Error('Query read timeout'))).toBe('Query read timeout');
  });
});
