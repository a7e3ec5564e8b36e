import { sql, type Kysely, type Transaction } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Database } from './database.js';
import type { DB } from './tables.js';
import { createTestDatabase, testDialects } from '../../test/support/context.js';
import { createDirectRunner, createGroupCommitRunner } from './transaction-runner.js';

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
});
