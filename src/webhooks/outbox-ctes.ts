import { sql, type RawBuilder } from 'kysely';
import type { WebhookOutboxTable } from '../db/tables.js';

/**
 * The outbox's share of a one-statement write (PostgreSQL; forms/new-lead-statement.ts composes it):
 * the row outboxRow() built, written by a data-modifying CTE in the statement that makes the change, so
 * the events commit with it exactly as recordWebhookEvents would write them in a transaction.
 *
 * The row names the endpoints each event goes to, decided from subscriptions read before the statement
 * (a node keeps them per org), so the statement checks they are still current: `subscriptionsCurrent`
 * compares a fingerprint of the org's enabled endpoints and what they receive with the one the row was
 * built from. A statement whose fingerprint is stale must write nothing at all (its caller gates every
 * CTE on it), reads the subscriptions again and retries: an event is never queued for the wrong
 * endpoints, nor a change written without its events.
 */

/** The fingerprint of the org's enabled endpoints: `id events,…` in byte order ('' for none). Also read by repo.ts. */
export function subscriptionsFingerprint(orgId: unknown): RawBuilder<string> {
  return sql<string>`coalesce((select string_agg(id || ' ' || events, ',' order by id collate "C") from webhook_endpoints where org_id = ${orgId} and enabled = 1), '')`;
}

/** A boolean expression: the fingerprint is still `fingerprint`. */
export function subscriptionsCurrent(orgId: unknown, fingerprint: unknown): RawBuilder<boolean> {
  return sql<boolean>`(${subscriptionsFingerprint(orgId)} = ${fingerprint})`;
}

/**
 * `, x as (…)`: the outbox row, written when `gate` holds (the caller's: its change was written) and the
 * unit has events (an `id` of null: none). In a query template the row's values are markers.
 */
export function outboxCte(row: Record<keyof WebhookOutboxTable, unknown>, gate: RawBuilder<unknown>): RawBuilder<unknown> {
  return sql`, x as (
      insert into webhook_outbox (id, org_id, events, created_at)
      select ${row.id}::text, ${row.org_id}, ${row.events}, ${row.created_at}
      where ${row.id}::text is not null and ${gate})`;
}
