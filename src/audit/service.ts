import type { FastifyBaseLogger } from 'fastify';
import type { ExpiryPurge } from '../db/expiry-purger.js';
import type { AuditLogTable } from '../db/tables.js';
import { decodeCursor, toPage } from '../http/cursor.js';
import { AppError } from '../http/errors.js';
import { isoNow, type Clock } from '../lib/clock.js';
import { newTimeOrderedId } from '../lib/ids.js';
import { ACTOR_TYPES, AUDIT_ACTIONS, type AuditAction } from './actions.js';
import type { AuditContext } from './context.js';
import type { AuditFilter, AuditRepo } from './repo.js';
import type { AuditEntry, AuditLogQuery } from './schema.js';

/** Values a `details` object may hold: names, roles, versions, counts, lists of names. Never a secret or a person's data. */
export type AuditDetails = Record<string, string | number | boolean | null | string[]>;

/** One sensitive action, as its feature reports it. */
export interface AuditRecord {
  action: AuditAction;
  /** The organization whose log shows it (owners read it at GET /api/org/audit-log). */
  orgId?: string | null | undefined;
  /** The developer account whose log shows it (GET /api/dev/audit-log). */
  developerId?: string | null | undefined;
  /** The id of the record acted on; its type is the action's (actions.ts). */
  target?: string | null | undefined;
  details?: AuditDetails | undefined;
}

/** A unit of work's repos, for an entry written in the action's own transaction. */
export interface AuditUnit {
  audit: AuditRepo;
}

/** What a feature is handed to record its actions (services.ts passes the audit service). */
export interface AuditLog {
  /**
   * Writes one entry. Inside the action's transaction, pass its repos as `unit`: the entry commits or rolls back
   * with the action, and a failure fails it. Without `unit` (the action has no transaction, and already succeeded),
   * call it right after the action: a failure is logged, never answered, since the action happened.
   */
  record(context: AuditContext, entry: AuditRecord, unit?: AuditUnit): Promise<void>;
}

/** Entries are kept 400 days (at least a year, whatever an organization's retention says), then purged. */
export const AUDIT_KEEP_DAYS = 400;
const KEEP_MS = AUDIT_KEEP_DAYS * 24 * 60 * 60 * 1000;
/** A `details` object stays small. */
const DETAILS_MAX = 2048;
/** Anything shaped like one of our secrets (keys, tokens, signing and client secrets): refused, a bug of the caller. */
const SECRET_SHAPE = /\b(?:svc_[a-z]+_|whsec_|chs_)[0-9A-Za-z]{16,}/;

function present(row: AuditLogTable): AuditEntry {
  return {
    id: row.id,
    actor: { type: row.actor_type, id: row.actor_id, label: row.actor_label },
    ip: row.ip,
    userAgent: row.user_agent,
    action: row.action as AuditAction,
    target: row.target_type !== null && row.target_id !== null ? { type: row.target_type, id: row.target_id } : null,
    details: JSON.parse(row.details) as Record<string, unknown>,
    createdAt: row.created_at,
  };
}

/** A query time as stored (ISO 8601 UTC); a time JavaScript cannot hold is the caller's 400. */
function isoTime(value: string | undefined, field: string): string | undefined {
  if (value === undefined) return undefined;
  const ms = Date.parse(value);
  if (!Number.isFinite(ms) || ms < 0 || ms > 253402300799999) throw new AppError('VALIDATION_ERROR', `${field} must be a date-time between 1970 and 9999, such as 2026-11-29T10:00:00Z.`, { field });
  return new Date(ms).toISOString();
}

function filterOf(query: AuditLogQuery): AuditFilter {
  if (query.action !== undefined && !(query.action in AUDIT_ACTIONS)) {
    throw new AppError('VALIDATION_ERROR', `${query.action} is not an action the audit log records.`, { field: 'action' });
  }
  const byType = query.actor !== undefined && (ACTOR_TYPES as readonly string[]).includes(query.actor);
  return {
    actorId: query.actor !== undefined && !byType ? query.actor : undefined,
    actorType: byType ? query.actor : undefined,
    action: query.action,
    targetId: query.target,
    from: isoTime(query.from, 'from'),
    to: isoTime(query.to, 'to'),
  };
}

/**
 * The audit log: `record` for every feature that does a sensitive action (handed to them by services.ts), and
 * the owners' and developers' pages. Append-only: nothing here updates an entry; only the purge of entries past
 * AUDIT_KEEP_DAYS deletes.
 */
export function createAuditService(deps: { repo: AuditRepo; clock: Clock; log: FastifyBaseLogger }) {
  const { repo, clock, log } = deps;

  function row(context: AuditContext, entry: AuditRecord): AuditLogTable {
    const details = JSON.stringify(entry.details ?? {});
    if (details.length > DETAILS_MAX) throw new Error(`audit details of ${entry.action} are over ${DETAILS_MAX} characters`);
    if (SECRET_SHAPE.test(details) || SECRET_SHAPE.test(context.actor.label ?? '')) throw new Error(`audit entry of ${entry.action} holds something shaped like a secret`);
    const now = isoNow(clock);
    const target = entry.target ?? null;
    return {
      id: newTimeOrderedId('aud', now),
      org_id: entry.orgId ?? null,
      developer_id: entry.developerId ?? null,
      actor_type: context.actor.type,
      actor_id: context.actor.id,
      actor_label: context.actor.label,
      ip: context.ip,
      user_agent: context.userAgent,
      action: entry.action,
      target_type: target === null ? null : AUDIT_ACTIONS[entry.action],
      target_id: target,
      details,
      created_at: now,
    };
  }

  const audit: AuditLog = {
    async record(context, entry, unit) {
      const value = row(context, entry);
      if (unit) {
        await unit.audit.insert(value);
        return;
      }
      try {
        await repo.insert(value);
      } catch (error) {
        log.error({ err: error, action: value.action, orgId: value.org_id, developerId: value.developer_id, targetId: value.target_id }, 'audit entry could not be written');
      }
    },
  };

  async function page(rows: (limit: number) => Promise<AuditLogTable[]>, limit: number) {
    return toPage((await rows(limit)).map((r) => ({ ...r, createdAt: r.created_at })), limit, present);
  }

  return {
    record: audit.record,
    /** An organization's entries, newest first (owners only, at the route). */
    listForOrg: (orgId: string, query: AuditLogQuery) => {
      const limit = query.limit ?? 20;
      const filter = filterOf(query);
      const cursor = decodeCursor(query.cursor);
      return page((n) => repo.listForOrg(orgId, filter, n, cursor), limit);
    },
    /** A developer's own entries (apps, tools, their sign-ins), newest first. */
    listForDeveloper: (developerId: string, query: AuditLogQuery) => {
      const limit = query.limit ?? 20;
      const filter = filterOf(query);
      const cursor = decodeCursor(query.cursor);
      return page((n) => repo.listForDeveloper(developerId, filter, n, cursor), limit);
    },
  };
}

export type AuditService = ReturnType<typeof createAuditService>;

/** Entries older than AUDIT_KEEP_DAYS: purged in the background (db/expiry-purger.ts). */
export function expiredAuditEntries(repo: AuditRepo): ExpiryPurge {
  return { name: 'audit_log', purgeBatch: (now, limit) => repo.deleteOlderThan(new Date(now.getTime() - KEEP_MS).toISOString(), limit) };
}
