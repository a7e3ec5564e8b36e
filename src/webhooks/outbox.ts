import type { WebhookDeliveriesTable, WebhookEventsTable, WebhookOutboxTable } from '../db/tables.js';
import { newTimeOrderedId } from '../lib/ids.js';
import type { WebhooksRepo } from './repo.js';
import type { WebhookEventType } from './schema.js';
import type { Subscriptions } from './subscriptions.js';

/**
 * THE OUTBOX WRITER — what a producer (submissions, the CRM, tool calls) calls to emit a webhook event.
 *
 * Call it inside the unit of work that makes the change, with that unit's repos
 * (`transact(async (repos) => { …the change…; await recordWebhookEvent(repos, {...}, now); })`):
 * the events commit with the change or not at all. A crash after the commit loses nothing (a node
 * that starts finds them); a rollback leaves nothing to deliver.
 *
 * A unit writes ONE `webhook_outbox` row: its events (ids, types, payloads) and, for each, the endpoints
 * it goes to — the org's enabled endpoints subscribed to the type at this moment, so "which endpoints get
 * this event" is still decided with the change itself (an endpoint added later does not receive earlier
 * events; one removed in between does not receive later ones). The delivery worker then moves each row,
 * in id order, into `webhook_events` and one `webhook_deliveries` row per endpoint (dispatch.ts), and
 * deletes it. Why not write those here: a submission with three subscribed events wrote six rows and four
 * index entries each beside its own four rows, half the submit path's throughput on SQLite; one row with
 * the primary key only costs a tenth of that (docs/benchmarks.md). The cost on the producer's path is one
 * indexed read of the org's endpoints per unit of work and one insert; an org with no subscribed endpoint
 * writes nothing at all.
 *
 * `data` is the event's payload (docs/webhooks.md lists each type's fields); never put secrets,
 * credentials or tool arguments in it. Answers the event id, or undefined when nothing subscribed.
 */
export async function recordWebhookEvent(
  repos: { webhooks: WebhooksRepo },
  event: WebhookEventInput,
  now: string,
): Promise<string | undefined> {
  const [eventId] = await recordWebhookEvents(repos, await repos.webhooks.subscriptions(event.orgId), [event], now);
  return eventId;
}

/** An event as a producer states it. */
export interface WebhookEventInput {
  orgId: string;
  type: WebhookEventType;
  data: unknown;
}

/**
 * Several events of one unit of work (all of one organization), against the subscriptions the unit
 * read once (repos.webhooks.subscriptions): one outbox row, whatever the count. Answers the event ids.
 */
export async function recordWebhookEvents(
  repos: { webhooks: WebhooksRepo },
  subscriptions: Subscriptions,
  events: readonly WebhookEventInput[],
  now: string,
): Promise<string[]> {
  const row = outboxRow(subscriptions, events, now);
  if (!row) return [];
  await repos.webhooks.insertOutbox(row.row);
  return row.eventIds;
}

/**
 * One event of an outbox row: its data, and the endpoints it goes to. The data is kept as JSON within the
 * row (serialized once, with the row) and becomes the event's payload text at dispatch: the same bytes,
 * since a JSON value survives stringify, parse and stringify unchanged.
 */
export interface OutboxEvent {
  id: string;
  type: string;
  endpoints: string[];
  data: unknown;
}

/**
 * The outbox row of `events`: each event some endpoint receives, with those endpoints; undefined when
 * none does. Pure, so a statement that writes its change in one round trip (forms/new-lead-statement.ts)
 * writes exactly the row the transaction path would.
 */
export function outboxRow(subscriptions: Subscriptions, events: readonly WebhookEventInput[], now: string): { row: WebhookOutboxTable; eventIds: string[] } | undefined {
  const kept: OutboxEvent[] = [];
  let orgId: string | undefined;
  for (const event of events) {
    const endpoints = subscriptions.endpointsFor(event.type);
    if (endpoints.length === 0) continue;
    orgId ??= event.orgId;
    if (event.orgId !== orgId) throw new Error('one outbox row holds the events of one organization');
    kept.push({ id: newTimeOrderedId('evt', now), type: event.type, endpoints: [...endpoints], data: event.data ?? null });
  }
  if (kept.length === 0 || orgId === undefined) return undefined;
  return { row: { id: newTimeOrderedId('obx', now), org_id: orgId, events: JSON.stringify(kept), created_at: now }, eventIds: kept.map((event) => event.id) };
}

/**
 * What an outbox row becomes (dispatch.ts), given its parsed `events`: the event rows, and one pending delivery per endpoint that still
 * exists, due at the time of the change; in the change's time order, so each endpoint's queue is too.
 */
export function dispatchedRows(row: WebhookOutboxTable, outboxEvents: readonly OutboxEvent[], existingEndpoints: ReadonlySet<string>): { events: WebhookEventsTable[]; deliveries: WebhookDeliveriesTable[] } {
  const events: WebhookEventsTable[] = [];
  const deliveries: WebhookDeliveriesTable[] = [];
  for (const event of outboxEvents) {
    events.push({ id: event.id, org_id: row.org_id, type: event.type, payload: JSON.stringify(event.data), created_at: row.created_at });
    for (const endpointId of event.endpoints) {
      if (existingEndpoints.has(endpointId)) deliveries.push(newDelivery(row.org_id, endpointId, event.id, row.created_at));
    }
  }
  return { events, deliveries };
}

/** A pending delivery, due at once. */
export function newDelivery(orgId: string, endpointId: string, eventId: string, now: string, lockedUntil: string | null = null): WebhookDeliveriesTable {
  return {
    id: newTimeOrderedId('whd', now),
    org_id: orgId,
    endpoint_id: endpointId,
    event_id: eventId,
    status: 'pending',
    attempts: 0,
    next_attempt_at: now,
    locked_until: lockedUntil,
    last_status: null,
    last_duration_ms: null,
    last_error: null,
    request_body: null,
    response_body: null,
    created_at: now,
    updated_at: now,
    delivered_at: null,
  };
}
