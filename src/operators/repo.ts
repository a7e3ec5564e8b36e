import type { Kysely } from 'kysely';
import { countOf, skipLockedOnPostgres } from '../db/query-helpers.js';
import type { DB, InvitationsTable, PasswordResetsTable, UsersTable } from '../db/tables.js';

/** The console's operators (users), their invitations and password resets. */
export function createOperatorsRepo(db: Kysely<DB>) {
  return {
    insertUser: (row: UsersTable) => db.insertInto('users').values(row).execute(),
    findUserByEmail: (email: string) => db.selectFrom('users').selectAll().where('email', '=', email).executeTakeFirst(),
    findUser: (id: string) => db.selectFrom('users').selectAll().where('id', '=', id).executeTakeFirst(),
    findOrgUser: (orgId: string, id: string) => db.selectFrom('users').selectAll().where('org_id', '=', orgId).where('id', '=', id).executeTakeFirst(),
    /** Oldest first; at the same instant owners first (the sign-up's owner before those invited). */
    listOrgUsers: (orgId: string) => db.selectFrom('users').selectAll().where('org_id', '=', orgId).orderBy('created_at').orderBy('role', 'desc').orderBy('id').execute(),
    countOwners: async (orgId: string) =>
      Number((await db.selectFrom('users').select((eb) => eb.fn.countAll().as('n')).where('org_id', '=', orgId).where('role', '=', 'owner').executeTakeFirstOrThrow()).n),
    deleteUser: (orgId: string, id: string) => db.deleteFrom('users').where('org_id', '=', orgId).where('id', '=', id).executeTakeFirst(),
    /** A removed member who is also a developer: still a person, without an organization. */
    leaveOrganization: (orgId: string, id: string) => db.updateTable('users').set({ org_id: null, role: null }).where('org_id', '=', orgId).where('id', '=', id).executeTakeFirst(),
    setRole: (orgId: string, id: string, role: 'owner' | 'member') => db.updateTable('users').set({ role }).where('org_id', '=', orgId).where('id', '=', id).execute(),
    updatePasswordHash: (id: string, hash: string) => db.updateTable('users').set({ password_hash: hash }).where('id', '=', id).execute(),
    findOrgName: (orgId: string) => db.selectFrom('orgs').select(['id', 'name']).where('id', '=', orgId).executeTakeFirst(),

    // ── Invitations ──
    insertInvitation: (row: InvitationsTable) => db.insertInto('invitations').values(row).execute(),
    findInvitationByHash: (tokenHash: string) => db.selectFrom('invitations').selectAll().where('token_hash', '=', tokenHash).executeTakeFirst(),
    findInvitation: (orgId: string, id: string) => db.selectFrom('invitations').selectAll().where('org_id', '=', orgId).where('id', '=', id).executeTakeFirst(),
    /** Open invitations (not accepted, revoked or expired at `now`), newest first. */
    listPendingInvitations: (orgId: string, now: string) =>
      db
        .selectFrom('invitations')
        .selectAll()
        .where('org_id', '=', orgId)
        .where('accepted_at', 'is', null)
        .where('revoked_at', 'is', null)
        .where('expires_at', '>', now)
        .orderBy('created_at', 'desc')
        .orderBy('id', 'desc')
        .limit(500)
        .execute(),
    /** Open invitations at `now`: what the pendingInvitations limit counts. */
    countPendingInvitations: (orgId: string, now: string) =>
      countOf(db.selectFrom('invitations').where('org_id', '=', orgId).where('accepted_at', 'is', null).where('revoked_at', 'is', null).where('expires_at', '>', now)),
    revokeInvitation: (id: string, at: string) => db.updateTable('invitations').set({ revoked_at: at }).where('id', '=', id).where('revoked_at', 'is', null).execute(),
    deleteInvitation: (id: string) => db.deleteFrom('invitations').where('id', '=', id).execute(),
    /** Marks it accepted if it still is open: true when this call did (single use, even under a race). */
    acceptInvitation: async (id: string, at: string) =>
      Number(
        (await db.updateTable('invitations').set({ accepted_at: at }).where('id', '=', id).where('accepted_at', 'is', null).where('revoked_at', 'is', null).where('expires_at', '>', at).executeTakeFirst())
          .numUpdatedRows,
      ) === 1,
    deleteExpiredInvitations: async (now: string, limit: number): Promise<number> => {
      const batch = skipLockedOnPostgres(db, db.selectFrom('invitations').select('id').where('expires_at', '<', now).limit(limit));
      return Number((await db.deleteFrom('invitations').where('id', 'in', batch).executeTakeFirst()).numDeletedRows);
    },

    // ── Password resets ──
    insertPasswordReset: (row: PasswordResetsTable) => db.insertInto('password_resets').values(row).execute(),
    /** Uses the token if it is still open: its user id, or undefined (unknown, used or expired). Single use, even under a race. */
    usePasswordReset: async (tokenHash: string, at: string): Promise<string | undefined> => {
      const row = await db.selectFrom('password_resets').select(['user_id']).where('token_hash', '=', tokenHash).where('used_at', 'is', null).where('expires_at', '>', at).executeTakeFirst();
      if (!row) return undefined;
      const updated = await db.updateTable('password_resets').set({ used_at: at }).where('token_hash', '=', tokenHash).where('used_at', 'is', null).executeTakeFirst();
      return Number(updated.numUpdatedRows) === 1 ? row.user_id : undefined;
    },
    /** Other open reset tokens of a user stop working once one is used or the password changes. */
    closePasswordResets: (userId: string, at: string) => db.updateTable('password_resets').set({ used_at: at }).where('user_id', '=', userId).where('used_at', 'is', null).execute(),
    deleteExpiredPasswordResets: async (now: string, limit: number): Promise<number> => {
      const batch = skipLockedOnPostgres(db, db.selectFrom('password_resets').select('token_hash').where('expires_at', '<', now).limit(limit));
      return Number((await db.deleteFrom('password_resets').where('token_hash', 'in', batch).executeTakeFirst()).numDeletedRows);
    },
  };
}

export type OperatorsRepo = ReturnType<typeof createOperatorsRepo>;
