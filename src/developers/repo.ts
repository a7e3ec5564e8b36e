import type { Kysely } from 'kysely';
import type { AppsTable, DB, DevelopersTable } from '../db/tables.js';

/** Developer accounts and their OAuth apps. */
export function createDevelopersRepo(db: Kysely<DB>) {
  return {
    insertDeveloper: (row: DevelopersTable) => db.insertInto('developers').values(row).execute(),

    findDeveloperByEmail: (email: string) =>
      db.selectFrom('developers').selectAll().where('email', '=', email).executeTakeFirst(),

    findDeveloperById: (id: string) => db.selectFrom('developers').selectAll().where('id', '=', id).executeTakeFirst(),

    insertApp: (row: AppsTable) => db.insertInto('apps').values(row).execute(),

    findApp: (id: string) => db.selectFrom('apps').selectAll().where('id', '=', id).executeTakeFirst(),

    listApps: (developerId: string) =>
      db.selectFrom('apps').selectAll().where('developer_id', '=', developerId).orderBy('created_at', 'desc').execute(),

    updateAppSecret: (id: string, hash: string, at: string) =>
      db.updateTable('apps').set({ client_secret_hash: hash, secret_rotated_at: at }).where('id', '=', id).execute(),
  };
}

export type DevelopersRepo = ReturnType<typeof createDevelopersRepo>;
