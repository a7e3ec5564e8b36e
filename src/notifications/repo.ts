import { PostgresAdapter, sql, type Kysely } from 'kysely';
import { queryTemplate } from '../db/query-template.js';
import type { DB, NotificationOutboxTable, NotificationPreferencesTable } from '../db/tables.js';
import { LEAD_NOTICE_COLUMNS, leadNoticeInsert, type LeadNoticeRow } from './outbox-sql.js';
import { containsAny } from '../db/query-helpers.js';

/** A claimed notice with what its email needs: the recipient's address and name, the org's name. */
export interface ClaimedNotice {
  notice_id: string;
  user_id: string;
  org_id: string;
  kind: NotificationOutboxTable['kind'];
  payload: string;
  attempts: number;
  locked_until: string;
  /** Null: the recipient is no longer a member of the organization. */
  email: string | null;
  name: string | null;
  org_name: string | null;
}

export interface NoticeKey {
  notice_id: string;
  user_id: string;
}

// On every submission of a form with notifications on: compiled once per dialect (db/query-template.ts).
const insertLeadNotice = queryTemplate<LeadNoticeRow, never>(LEAD_NOTICE_COLUMNS, (db, row) => {
  const statement = leadNoticeInsert(row, db.getExecutor().adapter instanceof PostgresAdapter);
  return { compile: () => statement.compile(db) };
});

/** Kysely queries of notifications; it writes notification_outbox and notification_preferences only. */
export function createNotificationsRepo(db: Kysely<DB>) {
  const postgres = db.getExecutor().adapter instanceof PostgresAdapter;
  const key = (notice: NoticeKey) => sql<boolean>`notice_id = ${notice.notice_id} and user_id = ${notice.user_id}`;

  return {
    // ── The outbox (in the producer's transaction) ──
    /**
     * Erasing a person (privacy/): every email of the org whose payload names one of `ids` (the contact, its
     * submissions, its conversations; JSON-quoted) goes, sent or not. A send in flight then marks nothing.
     */
    deleteNoticesMentioning: async (orgId: string, ids: readonly string[]): Promise<number> => {
      const result = await db.deleteFrom('notification_outbox').where('org_id', '=', orgId).where(containsAny('payload', ids.map((id) => JSON.stringify(id)))).executeTakeFirst();
      return Number(result.numDeletedRows);
    },
    insertLeadNotice: async (row: LeadNoticeRow): Promise<void> => {
      await insertLeadNotice(db, row);
    },
    /** Every member (owners and members) who left hand-off notices on. */
    insertHandoffNotice: async (row: { notice_id: string; org_id: string; payload: string; created_at: string }): Promise<void> => {
      await sql`insert into notification_outbox (notice_id, user_id, org_id, kind, payload, status, attempts, next_attempt_at, created_at)
        select cast(${row.notice_id} as text), u.id, u.org_id, 'handoff', cast(${row.payload} as text), 'pending', 0, cast(${row.created_at} as text), cast(${row.created_at} as text)
        from users u left join notification_preferences p on p.user_id = u.id
        where u.org_id = cast(${row.org_id} as text) and u.role is not null and coalesce(p.handoffs, 1) = 1`.execute(db);
    },

    // ── The worker ──
    /**
     * Claims up to `limit` due notices by setting their lease, oldest due first, and answers them with the
     * recipient's current address (null when they left the organization). A row another worker holds (its
     * lease not run out) is passed over; on PostgreSQL SKIP LOCKED keeps two nodes off one row while both
     * claim, and the lease keeps them off it afterwards. SQLite has one writer.
     */
    claimDue: async (now: string, leaseUntil: string, limit: number): Promise<ClaimedNotice[]> => {
      const lock = postgres ? sql`for update skip locked` : sql``;
      const { rows } = await sql<NotificationOutboxTable>`
        update notification_outbox set locked_until = ${leaseUntil}
        where (notice_id, user_id) in (
          select notice_id, user_id from notification_outbox
          where status = 'pending' and next_attempt_at <= ${now} and (locked_until is null or locked_until <= ${now})
          order by next_attempt_at, notice_id
          limit ${limit}
          ${lock})
        returning notice_id, user_id, org_id, kind, payload, attempts, locked_until`.execute(db);
      if (rows.length === 0) return [];
      const [people, orgs] = await Promise.all([
        db.selectFrom('users').select(['id', 'org_id', 'email', 'name']).where('id', 'in', [...new Set(rows.map((row) => row.user_id))]).execute(),
        db.selectFrom('orgs').select(['id', 'name']).where('id', 'in', [...new Set(rows.map((row) => row.org_id))]).execute(),
      ]);
      const person = new Map(people.map((row) => [row.id, row]));
      const orgName = new Map(orgs.map((row) => [row.id, row.name]));
      return rows.map((row) => {
        const who = person.get(row.user_id);
        const member = who !== undefined && who.org_id === row.org_id;
        return {
          notice_id: row.notice_id, user_id: row.user_id, org_id: row.org_id, kind: row.kind, payload: row.payload, attempts: row.attempts, locked_until: row.locked_until!,
          email: member ? who.email : null, name: member ? who.name : null, org_name: orgName.get(row.org_id) ?? null,
        };
      });
    },
    /**
     * Sent: settled for good, if the caller still holds its lease (its `locked_until`). False when it no longer
     * did (the lease ran out and another worker took the row): that worker may send it again.
     */
    markSent: async (notice: NoticeKey, lease: string, at: string): Promise<boolean> => {
      const result = await db.updateTable('notification_outbox')
        .set((eb) => ({ status: 'sent', sent_at: at, locked_until: null, last_error: null, attempts: eb('attempts', '+', 1) }))
        .where(key(notice)).where('locked_until', '=', lease)
        .executeTakeFirst();
      return result.numUpdatedRows > 0n;
    },
    /** Not sent: tried again at `nextAt`, or `failed` for good when `nextAt` is null. */
    markUnsent: async (notice: NoticeKey, lease: string, error: string, nextAt: string | null): Promise<void> => {
      await db.updateTable('notification_outbox')
        .set((eb) => ({
          status: nextAt === null ? 'failed' : 'pending',
          ...(nextAt === null ? {} : { next_attempt_at: nextAt }),
          locked_until: null,
          last_error: error,
          attempts: eb('attempts', '+', 1),
        }))
        .where(key(notice)).where('locked_until', '=', lease)
        .execute();
    },
    /** Settled notices (sent or failed) created before `before`, up to `limit`: the expiry purger's. */
    deleteSettled: async (before: string, limit: number): Promise<number> => {
      const lock = postgres ? sql`for update skip locked` : sql``;
      const result = await sql`delete from notification_outbox where (notice_id, user_id) in (
          select notice_id, user_id from notification_outbox where created_at < ${before} and status <> 'pending' limit ${limit} ${lock})`.execute(db);
      return Number(result.numAffectedRows ?? 0n);
    },

    // ── A member's preferences ──
    findPreferences: (userId: string) =>
      db.selectFrom('notification_preferences').select(['leads', 'handoffs']).where('user_id', '=', userId).executeTakeFirst(),
    upsertPreferences: async (row: NotificationPreferencesTable): Promise<void> => {
      await db.insertInto('notification_preferences').values(row)
        .onConflict((oc) => oc.column('user_id').doUpdateSet({ leads: row.leads, handoffs: row.handoffs, updated_at: row.updated_at }))
        .execute();
    },
  };
}

export type NotificationsRepo = ReturnType<typeof createNotificationsRepo>;
