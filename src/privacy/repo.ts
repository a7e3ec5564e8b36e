import type { Kysely } from 'kysely';
import { containsAny } from '../db/query-helpers.js';
import type { DB } from '../db/tables.js';

/** Needles per LIKE statement: SQLite limits an expression's depth, and a person has few conversations anyway. */
const NEEDLES_PER_QUERY = 50;
function chunks<T>(items: readonly T[]): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += NEEDLES_PER_QUERY) out.push(items.slice(i, i + NEEDLES_PER_QUERY));
  return out;
}

/**
 * What Switchboard holds about one contact, read across the features' tables for an export or an erasure. Reads
 * only: each feature's own repo erases its tables (privacy/service.ts orchestrates them in one transaction).
 * Every query takes the org id.
 */
export function createPrivacyRepo(db: Kysely<DB>) {
  return {
    /** The chat widget conversations the person's lead cards were submitted from (submissions.conversation_id). */
    conversationIdsOf: async (orgId: string, contactId: string): Promise<string[]> =>
      (await db.selectFrom('submissions').select('conversation_id').distinct()
        .where('org_id', '=', orgId).where('contact_id', '=', contactId).where('conversation_id', 'is not', null)
        .execute()).map((row) => row.conversation_id!).sort(),
    notesOf: (orgId: string, contactId: string) =>
      db.selectFrom('notes').selectAll().where('org_id', '=', orgId).where('contact_id', '=', contactId).orderBy('created_at').orderBy('id').execute(),
    /** Every submission with its form's title and the consent text of the version it agreed to. */
    submissionsOf: (orgId: string, contactId: string) =>
      db.selectFrom('submissions')
        .leftJoin('forms', 'forms.id', 'submissions.form_id')
        .leftJoin('consent_versions', (join) => join.onRef('consent_versions.form_id', '=', 'submissions.form_id').onRef('consent_versions.version', '=', 'submissions.consent_version'))
        .selectAll('submissions')
        .select(['forms.title as form_title', 'consent_versions.text as consent_text'])
        .where('submissions.org_id', '=', orgId).where('submissions.contact_id', '=', contactId)
        .orderBy('submissions.created_at').orderBy('submissions.id')
        .execute(),
    conversations: (orgId: string, ids: readonly string[]) =>
      ids.length === 0 ? Promise.resolve([]) : db.selectFrom('conversations').selectAll().where('org_id', '=', orgId).where('id', 'in', [...ids]).orderBy('created_at').execute(),
    messagesOf: (ids: readonly string[]) =>
      ids.length === 0 ? Promise.resolve([]) : db.selectFrom('conversation_messages').selectAll().where('conversation_id', 'in', [...ids]).orderBy('conversation_id').orderBy('seq').execute(),
    /** Stored webhook events whose data names one of `ids` (JSON-quoted), with their deliveries. */
    webhookEventsMentioning: async (orgId: string, ids: readonly string[]) => {
      const needles = ids.map((id) => JSON.stringify(id));
      const events = [];
      for (const chunk of chunks(needles)) {
        events.push(...await db.selectFrom('webhook_events').selectAll().where('org_id', '=', orgId).where(containsAny('payload', chunk)).execute());
      }
      const unique = [...new Map(events.map((event) => [event.id, event])).values()].sort((a, b) => a.id.localeCompare(b.id));
      const deliveries = unique.length === 0 ? [] : await db.selectFrom('webhook_deliveries').selectAll()
        .where('org_id', '=', orgId).where('event_id', 'in', unique.map((event) => event.id)).orderBy('created_at').orderBy('id').execute();
      return { events: unique, deliveries };
    },
    /** Outbox rows (events not yet moved into deliveries) that name one of `ids`. */
    outboxMentioning: async (orgId: string, ids: readonly string[]) => {
      const needles = ids.map((id) => JSON.stringify(id));
      const rows = [];
      for (const chunk of chunks(needles)) rows.push(...await db.selectFrom('webhook_outbox').selectAll().where('org_id', '=', orgId).where(containsAny('events', chunk)).execute());
      return [...new Map(rows.map((row) => [row.id, row])).values()].sort((a, b) => a.id.localeCompare(b.id));
    },
    /** Notification emails (sent or not) whose payload names one of `ids`. */
    noticesMentioning: async (orgId: string, ids: readonly string[]) => {
      const needles = ids.map((id) => JSON.stringify(id));
      const rows = [];
      for (const chunk of chunks(needles)) rows.push(...await db.selectFrom('notification_outbox').selectAll().where('org_id', '=', orgId).where(containsAny('payload', chunk)).execute());
      return rows.sort((a, b) => a.created_at.localeCompare(b.created_at) || a.notice_id.localeCompare(b.notice_id) || a.user_id.localeCompare(b.user_id));
    },
  };
}

export type PrivacyRepo = ReturnType<typeof createPrivacyRepo>;
