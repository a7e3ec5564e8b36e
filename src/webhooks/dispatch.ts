import type { Transact } from '../db/transaction-runner.js';
import { dispatchedRows, type OutboxEvent } from './outbox.js';
import type { WebhooksRepo } from './repo.js';

/** Outbox rows moved per transaction: a submission's row holds up to three events × 20 webhooks. */
export const DISPATCH_BATCH = 200;

/**
 * Moves the oldest outbox rows (outbox.ts) into events and pending deliveries, and deletes them, in one
 * transaction; one node at a time (repo.takeDispatchLock), in id order, so every endpoint's queue keeps
 * the order of the changes. A delivery goes only to an endpoint that still exists (one deleted since the
 * change receives nothing). Answers how many rows were moved (0 when another node is dispatching).
 */
export async function dispatchOutbox(transact: Transact<{ webhooks: WebhooksRepo }>, limit = DISPATCH_BATCH): Promise<number> {
  return transact(async ({ webhooks }) => {
    if (!(await webhooks.takeDispatchLock())) return 0;
    const rows = await webhooks.outboxHead(limit);
    if (rows.length === 0) return 0;
    const parsed = rows.map((row) => JSON.parse(row.events) as OutboxEvent[]);
    const named = new Set(parsed.flatMap((outboxEvents) => outboxEvents.flatMap((event) => event.endpoints)));
    const existing = await webhooks.existingEndpoints([...named]);
    const events = [];
    const deliveries = [];
    for (const [i, row] of rows.entries()) {
      const moved = dispatchedRows(row, parsed[i]!, existing);
      events.push(...moved.events);
      deliveries.push(...moved.deliveries);
    }
    await webhooks.insertEvents(events);
    await webhooks.insertDeliveries(deliveries);
    await webhooks.deleteOutbox(rows.map((row) => row.id));
    return rows.length;
  });
}
