import type { Kysely } from 'kysely';
import { countOf, newestFirst, type CursorPosition } from '../db/query-helpers.js';
import type { AppsTable, DB } from '../db/tables.js';

/** What a rotation writes: the new secret's hash, and the old one's until its time (both null: it stopped at once). */
export interface SecretRotation {
  secretHash: string;
  previousHash: string | null;
  previousExpiresAt: string | null;
  rotatedAt: string;
}

/**
 * The portal's queries on `apps` (developers/ owns the table). Every one takes the developer's id,
 * so another developer's app is simply not found.
 */
export function createAppsRepo(db: Kysely<DB>) {
  return {
    insertApp: (row: AppsTable) => db.insertInto('apps').values(row).execute(),

    countApps: (developerId: string) => countOf(db.selectFrom('apps').where('developer_id', '=', developerId)),

    findApp: (developerId: string, id: string) =>
      db.selectFrom('apps').selectAll().where('developer_id', '=', developerId).where('id', '=', id).executeTakeFirst(),

    listApps: (developerId: string, page: { limit: number; after: CursorPosition | undefined }) =>
      db.selectFrom('apps').selectAll().where('developer_id', '=', developerId).$call((qb) => newestFirst(qb, page.limit, page.after)).execute(),

    /** Resolves to whether the app was found (and changed). */
    updateApp: async (developerId: string, id: string, changes: Partial<Pick<AppsTable, 'name' | 'scopes'>>): Promise<boolean> => {
      const result = await db.updateTable('apps').set(changes).where('developer_id', '=', developerId).where('id', '=', id).executeTakeFirst();
      return result.numUpdatedRows > 0n;
    },

    /**
     * Replaces the secret only if it is still `expectedHash`, so two rotations at once cannot both
     * keep "the old secret" alive: the second finds it changed and answers false.
     */
    rotateSecret: async (developerId: string, id: string, expectedHash: string, rotation: SecretRotation): Promise<boolean> => {
      const result = await db
        .updateTable('apps')
        .set({
          client_secret_hash: rotation.secretHash,
          previous_secret_hash: rotation.previousHash,
          previous_secret_expires_at: rotation.previousExpiresAt,
          secret_rotated_at: rotation.rotatedAt,
        })
        .where('developer_id', '=', developerId)
        .where('id', '=', id)
        .where('client_secret_hash', '=', expectedHash)
        .executeTakeFirst();
      return result.numUpdatedRows > 0n;
    },

    deleteApp: async (developerId: string, id: string): Promise<boolean> => {
      const result = await db.deleteFrom('apps').where('developer_id', '=', developerId).where('id', '=', id).executeTakeFirst();
      return result.numDeletedRows > 0n;
    },

    /**
     * The token endpoint's note that the app got a token (oauth/service.ts), unless one written
     * since `staleBefore` is there already: at most one write a minute per app, on every node.
     */
    noteTokenIssued: async (id: string, at: string, staleBefore: string): Promise<void> => {
      await db
        .updateTable('apps')
        .set({ last_token_at: at })
        .where('id', '=', id)
        .where((eb) => eb.or([eb('last_token_at', 'is', null), eb('last_token_at', '<', staleBefore)]))
        .execute();
    },
  };
}

export type AppsRepo = ReturnType<typeof createAppsRepo>;
