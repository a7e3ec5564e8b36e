import { sql, type RawBuilder } from 'kysely';
import type { WebhookDeliveriesTable, WebhookEventsTable } from '../db/tables.js';

/**
 * The outbox's share of a one-statement write (PostgreSQL; forms/new-lead-statement.ts composes it):
 * the rows outboxRows() built, written by data-modifying CTEs in the statement that makes the change,
 * so the event commits with it exactly as recordWebhookEvents would write it in a transaction.
 *
 * The rows are decided from subscriptions read before the statement (a node keeps them per org), so the
 * statement checks they are still current: `subscriptionsCurrent` compares a fingerprint of the org's
 * enabled endpoints and what they receive with the one the rows were built from. A statement whose
 * fingerprint is stale must write nothing at all (its caller gates every CTE on it), reads the
 * subscriptions again and retries: an event is never written for the wrong endpoints, nor a change
 * without its event.
 */

/** The fingerprint of the org's enabled endpoints: `id events,…` in byte order ('' for none). Also read by repo.ts. */
export function subscriptionsFingerprint(orgId: unknown): RawBuilder<string> {
  return sql<string>`coalesce((select string_agg(id || ' ' || events, ',' order by id collate "C") from webhook_endpoints where org_id = ${orgId} and enabled = 1), '')`;
}

/** A boolean expression: the fingerprint is still `fingerprint`. */
export function subscriptionsCurrent(orgId: unknown, fingerprint: unknown): RawBuilder<boolean> {
  return sql<boolean>`(${subscriptionsFingerprint(orgId)} = ${fingerprint})`;
}

/** The outbox rows as parallel arrays, one statement shape for any number of events and deliveries. */
export interface OutboxArrays {
  event_ids: string[];
  event_types: string[];
  event_payloads: string[];
  delivery_ids: string[];
  delivery_endpoints: string[];
  delivery_events: string[];
}

export function outboxArrays(rows: { events: WebhookEventsTable[]; deliveries: WebhookDeliveriesTable[] }): OutboxArrays {
  return {
    event_ids: rows.events.map((row) => row.id),
    event_types: rows.events.map((row) => row.type),
    event_payloads: rows.events.map((row) => row.payload),
    delivery_ids: rows.deliveries.map((row) => row.id),
    delivery_endpoints: rows.deliveries.map((row) => row.endpoint_id),
    delivery_events: rows.deliveries.map((row) => row.event_id),
  };
}

/**
 * `, e as (…), d as (…)`: the events and their pending deliveries (as newDelivery makes them), written
 * only when `gate` holds (the caller's: its change was written). In a query template the arrays are markers.
 */
export function outboxCtes(orgId: unknown, createdAt: unknown, a: OutboxArrays, gate: RawBuilder<unknown>): RawBuilder<unknown> {
  return sql`, e as (
      insert into webhook_events (id, org_id, type, payload, created_at)
      select u.id, ${orgId}, u.type, u.payload, ${createdAt}
      from unnest(${a.event_ids}::text[], ${a.event_types}::text[], ${a.event_payloads}::text[]) as u(id, type, payload)
      where ${gate})
    , d as (
      insert into webhook_deliveries (id, org_id, endpoint_id, event_id, status, attempts, next_attempt_at, locked_until, created_at, updated_at)
      select u.id, ${orgId}, u.endpoint_id, u.event_id, 'pending', 0, ${createdAt}, null, ${createdAt}, ${createdAt}
      from unnest(${a.delivery_ids}::text[], ${a.delivery_endpoints}::text[], ${a.delivery_events}::text[]) as u(id, endpoint_id, event_id)
      where ${gate})`;
}
