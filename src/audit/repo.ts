import type { Kysely } from 'kysely';
import { newestFirst, skipLockedOnPostgres, type CursorPosition } from '../db/query-helpers.js';
import type { AuditLogTable, DB } from '../db/tables.js';

/** The filters of a log page (all optional, combined with AND). */
export interface AuditFilter {
  actorId?: string | undefined;
  actorType?: string | undefined;
  action?: string | undefined;
  targetId?: string | undefined;
  /** Inclusive. */
  from?: string | undefined;
  /** Exclusive. */
  to?: string | undefined;
}

/** Kysely queries of the audit log; it writes audit_log only, and only inserts (and the purge of entries past their keep). */
export function createAuditRepo(db: Kysely<DB>) {
  function filtered(owner: { orgId: string } | { developerId: string }, filter: AuditFilter) {
    return db
      .selectFrom('audit_log')
      .selectAll()
      .$if('orgId' in owner, (qb) => qb.where('org_id', '=', (owner as { orgId: string }).orgId))
      .$if('developerId' in owner, (qb) => qb.where('developer_id', '=', (owner as { developerId: string }).developerId))
      .$if(filter.actorId !== undefined, (qb) => qb.where('actor_id', '=', filter.actorId!))
      .$if(filter.actorType !== undefined, (qb) => qb.where('actor_type', '=', filter.actorType as AuditLogTable['actor_type']))
      .$if(filter.action !== undefined, (qb) => qb.where('action', '=', filter.action!))
      .$if(filter.targetId !== undefined, (qb) => qb.where('target_id', '=', filter.targetId!))
      .$if(filter.from !== undefined, (qb) => qb.where('created_at', '>=', filter.from!))
      .$if(filter.to !== undefined, (qb) => qb.where('created_at', '<', filter.to!));
  }

  return {
    insert: async (row: AuditLogTable): Promise<void> => {
      await db.insertInto('audit_log').values(row).execute();
    },
    listForOrg: (orgId: string, filter: AuditFilter, limit: number, cursor: CursorPosition | undefined): Promise<AuditLogTable[]> =>
      newestFirst(filtered({ orgId }, filter), limit, cursor).execute(),
    listForDeveloper: (developerId: string, filter: AuditFilter, limit: number, cursor: CursorPosition | undefined): Promise<AuditLogTable[]> =>
      newestFirst(filtered({ developerId }, filter), limit, cursor).execute(),
    /** Entries older than `before`, up to `limit` of them (the expiry purger; docs/privacy.md, "Audit log"). */
    deleteOlderThan: async (before: string, limit: number): Promise<number> => {
      const batch = skipLockedOnPostgres(db, db.selectFrom('audit_log').select('id').where('created_at', '<', before).limit(limit));
      return Number((await db.deleteFrom('audit_log').where('id', 'in', batch).executeTakeFirst()).numDeletedRows);
    },
  };
}

export type AuditRepo = ReturnType<typeof createAuditRepo>;

