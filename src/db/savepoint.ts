import { sql, type Kysely } from 'kysely';
import { isUniqueViolation } from './query-helpers.js';
import type { DB } from './tables.js';

/**
 * Runs `work` inside a savepoint of the open transaction `trx`; on a unique violation rolls
 * back to it and returns false. PostgreSQL aborts the whole transaction on any error, so this
 * is the only way to try a write that may collide and carry on. Outside a transaction,
 * PostgreSQL refuses the savepoint.
 */
export async function tryUnique(trx: Kysely<DB>, work: () => Promise<unknown>): Promise<boolean> {
  // Never nested, so one name serves; PostgreSQL and SQLite both allow reusing it.
  const name = sql.raw('try_unique');
  await sql`savepoint ${name}`.execute(trx);
  try {
    await work();
    await sql`release savepoint ${name}`.execute(trx);
    return true;
  } catch (error) {
    await sql`rollback to savepoint ${name}`.execute(trx);
    await sql`release savepoint ${name}`.execute(trx);
    if (isUniqueViolation(error)) return false;
    throw error;
  }
}
