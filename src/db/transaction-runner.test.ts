import { sql, type Transaction } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Database } from './database.js';
import type { DB } from './tables.js';
import { createTestDatabase, testDialects } from '../../test/support/context.js';
import { createDirectRunner, createGroupCommitRunner } from './transaction-runner.js';

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
});
