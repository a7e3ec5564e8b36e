import { sql, type Kysely, type Transaction } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Database } from './database.js';
import type { DB } from './tables.js';
import { createTestDatabase, testDialects } from '../../test/support/context.js';
import { createDirectRunner, createGroupCommitRunner } from './transaction-runner.js';
import { DatabaseUnavailableError } from './unavailable.js';

/** `db` whose transactions are counted: what the runner under test is given. */
function countingTransactions(db: Kysely<DB>): { db: Kysely<DB>; transactions(): number } {
  let transactions = 0;
  const counted = Object.create(db) as Kysely<DB>;
  counted.transaction = () => {
    transactions++;
    return db.transaction();
  };
  return { db: counted, transactions: () => transactions };
}

describe.each(testDialects())('transaction runners on %s', (dialect) => {
  let database: Database;
  let dispose: () => Promise<void>;
  beforeAll(async () => {
    ({ database, dispose } = await createTestDatabase(dialect));
    await sql`create table batch_probe (id integer primary key, label text not null)`.execute(database.db);
  });
  afterAll(async () => dispose());

  const rows = async () => (await sql<{ id: number }>`select id from batch_probe order by id`.execute(database.db)).rows.map((row) => Number(row.id));
  const insert = (id: number) => async (trx: Transaction<DB>) => {
    await sql`insert into batch_probe (id, label) values (${id}, ${`row ${id}`})`.execute(trx);
    return id;
  };

  // These units write with the bare transaction: no repos to bind.
  const bare = (trx: Transaction<DB>) => trx;
  for (const [name, make] of [
    ['group commit', (db: Database) => createGroupCommitRunner(db.db, bare, { maxBatch: 8 })],
    ['direct', (db: Database) => createDirectRunner(db.db, bare)],
  ] as const) {
    it(`${name}: every unit commits, and a failing unit fails alone without writing`, async () => {
      await sql`delete from batch_probe`.execute(database.db);
      const runner = make(database);
      const ids = Array.from({ length: 30 }, (_, i) => i + 1);
      const outcomes = await Promise.allSettled(
        ids.map((id) =>
          runner.run(async (trx) => {
            await insert(id)(trx);
            if (id === 13) throw new Error('unit 13 fails after writing');
            return id;
          }),
        ),
      );
      expect(outcomes.map((o) => o.status)).toEqual(ids.map((id) => (id === 13 ? 'rejected' : 'fulfilled')));
      expect(outcomes.filter((o) => o.status === 'fulfilled').map((o) => (o as PromiseFulfilledResult<number>).value)).toEqual(ids.filter((id) => id !== 13));
      expect(await rows()).toEqual(ids.filter((id) => id !== 13));
    });
  }

  it('group commit: the units of one batch get the same repos, bound once to its transaction', async () => {
    let binds = 0;
    const runner = createGroupCommitRunner(database.db, (trx) => ({ trx, bind: ++binds }), { maxBatch: 8 });
    // Queued in one turn of the event loop: one batch.
    const seen = await Promise.all(Array.from({ length: 8 }, () => runner.run(async (repos) => repos)));
    expect(binds).toBe(1);
    expect(new Set(seen).size).toBe(1);
  });

  it('group commit: units that queue up together commit in one transaction per batch, not one each', async () => {
    await sql`delete from batch_probe`.execute(database.db);
    const counted = countingTransactions(database.db);
    const runner = createGroupCommitRunner(counted.db, bare, { maxBatch: 8 });
    const ids = Array.from({ length: 30 }, (_, i) => i + 1);
    expect(await Promise.all(ids.map((id) => runner.run(insert(id))))).toEqual(ids);
    expect(await rows()).toEqual(ids);
    // All 30 are queued in the same turn of the event loop: batches of 8, 8, 8 and 6.
    expect(counted.transactions()).toBe(4);
    // The same units one at a time (as the direct runner would run them): one transaction each.
    await sql`delete from batch_probe`.execute(database.db);
    for (const id of ids.slice(0, 3)) await runner.run(insert(id));
    expect(counted.transactions()).toBe(7);
  });

  it('group commit: a batch that fails because the database is unavailable fails every unit with that error, at once, and writes nothing', async () => {
    await sql`delete from batch_probe`.execute(database.db);
    const counted = countingTransactions(database.db);
    const runner = createGroupCommitRunner(counted.db, bare, { maxBatch: 8 });
    // As SQLITE_BUSY or SQLITE_FULL would, from the fourth unit's statement.
    const unavailable = new DatabaseUnavailableError('the database is unavailable');
    const ids = Array.from({ length: 8 }, (_, i) => i + 1);
    const outcomes = await Promise.allSettled(
      ids.map((id) =>
        runner.run(async (trx) => {
          await insert(id)(trx);
          if (id === 4) throw unavailable;
          return id;
        }),
      ),
    );
    // Not one acknowledged, every one told why, and no unit run again alone (each would meet the same outage).
    expect(outcomes).toEqual(ids.map(() => ({ status: 'rejected', reason: unavailable })));
    expect(counted.transactions()).toBe(1);
    expect(await rows()).toEqual([]);
  });

  it('group commit: a unit that waited longer than maxWaitMs for its batch fails unavailable without running', async () => {
    await sql`delete from batch_probe`.execute(database.db);
    const runner = createGroupCommitRunner(database.db, bare, { maxBatch: 8, maxWaitMs: 50 });
    // The first batch holds the writer for 150 ms, as a batch that waits on another process's lock does.
    const slow = runner.run(async (trx) => {
      await insert(1)(trx);
      await new Promise((resolve) => setTimeout(resolve, 150));
      return 1;
    });
    await new Promise((resolve) => setImmediate(resolve));
    let ran = 0;
    const late = Array.from({ length: 3 }, (_, i) =>
      runner.run(async (trx) => {
        ran++;
        return insert(i + 2)(trx);
      }),
    );
    expect(await slow).toBe(1);
    const outcomes = await Promise.allSettled(late);
    expect(outcomes.map((o) => o.status)).toEqual(['rejected', 'rejected', 'rejected']);
    expect((outcomes[0] as PromiseRejectedResult).reason).toBeInstanceOf(DatabaseUnavailableError);
    expect(ran).toBe(0);
    expect(await rows()).toEqual([1]);
    // The queue is not stuck: the next unit runs.
    expect(await runner.run(insert(9))).toBe(9);
  });
});
