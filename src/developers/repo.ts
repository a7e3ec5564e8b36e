import type { Kysely } from 'kysely';
import { lockedOnPostgres } from '../db/query-helpers.js';
import type { DB, DevelopersTable } from '../db/tables.js';

/** Developer accounts (each a person's: the email is the person's, read from `users`) and their OAuth apps. */
export function createDevelopersRepo(db: Kysely<DB>) {
  const withPerson = () =>
    db.selectFrom('developers as d').innerJoin('users as u', 'u.id', 'd.user_id').select(['d.id', 'd.user_id', 'd.name', 'd.created_at', 'u.email']);

  return {
    insertDeveloper: (row: DevelopersTable) => db.insertInto('developers').values(row).execute(),

    findDeveloperByEmail: (email: string) => withPerson().where('u.email', '=', email).executeTakeFirst(),

    findDeveloperById: (id: string) => withPerson().where('d.id', '=', id).executeTakeFirst(),

    findDeveloperByUserId: (userId: string) => withPerson().where('d.user_id', '=', userId).executeTakeFirst(),

    // ── Limits (http/tenant-limits.ts): the operator's overrides; undefined when there is no such developer ──
    readLimits: async (id: string) => (await db.selectFrom('developers').select('limits').where('id', '=', id).executeTakeFirst())?.limits,
    /** The same, the developer's row locked until the transaction ends (PostgreSQL): a unit's count and insert run alone. */
    lockLimits: async (id: string) => (await lockedOnPostgres(db, db.selectFrom('developers').select('limits').where('id', '=', id)).executeTakeFirst())?.limits,
    saveLimits: (id: string, limits: string | null) => db.updateTable('developers').set({ limits }).where('id', '=', id).executeTakeFirst(),

    findApp: (id: string) => db.selectFrom('apps').selectAll().where('id', '=', id).executeTakeFirst(),

    listApps: (developerId: string) =>
      db.selectFrom('apps').selectAll().where('developer_id', '=', developerId).orderBy('created_at', 'desc').execute(),

    updateAppSecret: (id: string, hash: string, at: string) =>
      db.updateTable('apps').set({ client_secret_hash: hash, secret_rotated_at: at }).where('id', '=', id).execute(),
  };
}

export type DevelopersRepo = ReturnType<typeof createDevelopersRepo>;
