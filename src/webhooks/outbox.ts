import type { WebhookDeliveriesTable, WebhookEventsTable } from '../db/tables.js';
import { newTimeOrderedId } from '../lib/ids.js';
import type { WebhooksRepo } from './repo.js';
import type { WebhookEventType } from './schema.js';
import type { Subscriptions } from './subscriptions.js';

/**
 * THE OUTBOX WRITER — what a producer (submissions, the CRM, tool calls) calls to emit a webhook event.
 *
 * Call it inside the unit of work that makes the change, with that unit's repos
 * (`transact(async (repos) => { …the change…; await recordWebhookEvent(repos, {...}, now); })`):
 * the event and its deliveries are written in the same transaction as the change, so they commit
 * together or not at all. A crash after the commit loses nothing (the worker finds the pending
 * deliveries when a node starts again); a rollback leaves nothing to deliver.
 *
 * Fan-out happens here, not in the worker: one delivery per endpoint of the org enabled and
 * subscribed to the type at this moment. Why: the worker then has one kind of row to claim (no
 * dispatcher state, no second claim protocol across nodes), and "which endpoints get this event"
 * is decided with the change itself — an endpoint added later does not receive earlier events, one
 * removed in between does not receive later ones. The cost on the producer's path is one indexed read
 * of the org's endpoints per unit of work (recordWebhookEvents takes it read) and two inserts; an org
 * with no subscribed endpoint writes nothing at all (no event row).
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
 * Several events of one unit of work, against the subscriptions the unit read once
 * (repos.webhooks.subscriptions): every event row in one insert, every delivery in another, whatever
 * the count. A submission's three events cost two statements, not nine. Answers the ids written.
 */
export async function recordWebhookEvents(
  repos: { webhooks: WebhooksRepo },
  subscriptions: Subscriptions,
  events: readonly WebhookEventInput[],
  now: string,
): Promise<string[]> {
  const rows = outboxRows(subscriptions, events, now);
  if (rows.events.length === 0) return [];
  await repos.webhooks.insertEvents(rows.events);
  await repos.webhooks.insertDeliveries(rows.deliveries);
  return rows.events.map((row) => row.id);
}

/**
 * The rows of `events`: each event that some endpoint receives, and one pending delivery per such
 * endpoint. Pure, so a statement that writes its change in one round trip (forms/new-lead-statement.ts)
 * writes exactly the rows the transaction path would.
 */
export function outboxRows(subscriptions: Subscriptions, events: readonly WebhookEventInput[], now: string): { events: WebhookEventsTable[]; deliveries: WebhookDeliveriesTable[] } {
  const eventRows: WebhookEventsTable[] = [];
  const deliveries: WebhookDeliveriesTable[] = [];
  for (const event of events) {
    const endpoints = subscriptions.endpointsFor(event.type);
    if (endpoints.length === 0) continue;
    const eventId = newTimeOrderedId('evt', now);
    eventRows.push({ id: eventId, org_id: event.orgId, type: event.type, payload: JSON.stringify(event.data ?? null), created_at: now });
    for (const endpointId of endpoints) deliveries.push(newDelivery(event.orgId, endpointId, eventId, now));
  }
  return { events: eventRows, deliveries };
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
