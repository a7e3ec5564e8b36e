import type { ExpiryPurge } from '../db/expiry-purger.js';
import type { WebhookDeliveryStatus, WebhookEndpointsTable } from '../db/tables.js';
import type { Transact } from '../db/transaction-runner.js';
import { decodeCursor, toPage } from '../http/cursor.js';
import { AppError } from '../http/errors.js';
import { isoNow, type Clock } from '../lib/clock.js';
import { newId, newTimeOrderedId } from '../lib/ids.js';
import type { KeyRing } from '../lib/secrets.js';
import { refuseAtOrgLimit, type LimitLock } from '../http/tenant-limits.js';
import { checkEndpoint, type EndpointPolicy } from '../net/endpoint-check.js';
import type { DeliveryWorker } from './delivery-worker.js';
import { deliveryNotFound, webhookNotFound } from './errors.js';
import { newDelivery } from './outbox.js';
import type { DeliveryRow, EndpointChanges, WebhooksRepo } from './repo.js';
import { type CreatedWebhook, type SubscribableEventType, type Webhook, type WebhookCreate, type WebhookDelivery, type WebhookPatch } from './schema.js';
import { newSigningSecret, sealSigningSecret } from './secret.js';
import type { AuditContext } from '../audit/context.js';
import type { AuditRepo } from '../audit/repo.js';
import type { AuditLog } from '../audit/service.js';

export function presentWebhook(row: WebhookEndpointsTable): Webhook {
  return {
    id: row.id,
    url: row.url,
    events: JSON.parse(row.events) as string[],
    description: row.description,
    enabled: row.enabled === 1,
    disabledReason: row.disabled_reason,
    failingSince: row.failing_since,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

export function presentDelivery(row: DeliveryRow): WebhookDelivery {
  return {
    id: row.id,
    webhookId: row.endpoint_id,
    eventId: row.event_id,
    eventType: row.type,
    status: row.status,
    attempts: row.attempts,
    lastStatus: row.last_status,
    lastDurationMs: row.last_duration_ms,
    lastError: row.last_error,
    nextAttemptAt: row.status === 'pending' ? row.next_attempt_at : null,
    requestBody: row.request_body,
    responseBody: row.response_body,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
    deliveredAt: row.delivered_at,
  };
}

/** The endpoint policy's refusal, said of a webhook's URL. */
async function checkUrl(raw: string, policy: EndpointPolicy): Promise<string> {
  try {
    await checkEndpoint(raw, policy, 'save');
  } catch (error) {
    if (!(error instanceof AppError) || error.code !== 'ENDPOINT_NOT_ALLOWED') throw error;
    throw new AppError('ENDPOINT_NOT_ALLOWED', error.message.replace(/^The endpoint/, 'The webhook URL').replace(/Tool endpoints must/, 'Webhook URLs must').replace(/A tool can be published/, 'A webhook can be saved'), { field: 'url' });
  }
  return raw;
}

/** One entry per type, in the order given. */
const distinct = (events: SubscribableEventType[]) => [...new Set(events)];

/**
 * Webhook endpoints of an organization (owners only, at the routes), the test ping and the delivery log.
 * The signing secret is shown once, at creation and rotation, and sealed under SECRETS_KEY.
 */
export function createWebhooksService(deps: {
  repo: WebhooksRepo;
  /** `orgs` locks the org's row for the webhooks limit (http/tenant-limits.ts). */
  transact: Transact<{ webhooks: WebhooksRepo; orgs: LimitLock; audit: AuditRepo }>;
  /** Webhooks created and deleted, secrets rotated. */
  audit: AuditLog;
  keys: KeyRing;
  clock: Clock;
  /** The tool endpoints' save-time policy (TOOL_ALLOW_PRIVATE_ENDPOINTS, the same resolver). */
  endpointPolicy: EndpointPolicy;
  worker: Pick<DeliveryWorker, 'deliverNow'>;
  leaseMs: number;
}) {
  const { repo, transact, keys, clock, endpointPolicy, worker, audit } = deps;

  async function found(orgId: string, id: string): Promise<WebhookEndpointsTable> {
    const row = await repo.findEndpoint(orgId, id);
    if (!row) throw webhookNotFound();
    return row;
  }

  async function foundDelivery(orgId: string, webhookId: string, id: string): Promise<DeliveryRow> {
    await found(orgId, webhookId);
    const row = await repo.findDelivery(orgId, webhookId, id);
    if (!row) throw deliveryNotFound();
    return row;
  }

  async function create(orgId: string, input: WebhookCreate, context: AuditContext): Promise<CreatedWebhook> {
    const now = isoNow(clock);
    const id = newId('wh');
    const secret = newSigningSecret();
    const row: WebhookEndpointsTable = {
      id,
      org_id: orgId,
      url: await checkUrl(input.url, endpointPolicy),
      events: JSON.stringify(distinct(input.events)),
      description: input.description ?? null,
      ...sealSigningSecret(keys, id, secret),
      enabled: 1,
      disabled_reason: null,
      failing_since: null,
      created_at: now,
      updated_at: now,
    };
    // The URL was checked above (DNS), before the org's row is locked for the count and the insert.
    await transact(async (repos) => {
      await refuseAtOrgLimit(repos, orgId, 'webhooks', () => repos.webhooks.countEndpoints(orgId));
      await repos.webhooks.insertEndpoint(row);
      await audit.record(context, { action: 'webhook.created', orgId, target: id, details: { url: row.url, events: distinct(input.events) } }, repos);
    });
    return { ...presentWebhook(row), secret };
  }

  async function update(orgId: string, id: string, patch: WebhookPatch): Promise<Webhook> {
    const row = await found(orgId, id);
    const set: EndpointChanges = { updated_at: isoNow(clock) };
    if (patch.url !== undefined) set.url = await checkUrl(patch.url, endpointPolicy);
    if (patch.events !== undefined) set.events = JSON.stringify(distinct(patch.events));
    if (patch.description !== undefined) set.description = patch.description;
    // Enabling starts the failure count over; disabling by hand carries no reason of the service's.
    if (patch.enabled !== undefined) Object.assign(set, { enabled: patch.enabled ? 1 : 0, disabled_reason: null, ...(patch.enabled ? { failing_since: null } : {}) });
    await repo.updateEndpoint(orgId, id, set);
    return presentWebhook({ ...row, ...set });
  }

  async function rotateSecret(orgId: string, id: string, context: AuditContext): Promise<CreatedWebhook> {
    const row = await found(orgId, id);
    const secret = newSigningSecret();
    const set: EndpointChanges = { ...sealSigningSecret(keys, id, secret), updated_at: isoNow(clock) };
    await transact(async (repos) => {
      await repos.webhooks.updateEndpoint(orgId, id, set);
      await audit.record(context, { action: 'webhook.secret_rotated', orgId, target: id, details: { url: row.url } }, repos);
    });
    return { ...presentWebhook({ ...row, ...set }), secret };
  }

  async function remove(orgId: string, id: string, context: AuditContext): Promise<{ id: string; deleted: true }> {
    const row = await found(orgId, id);
    const result = await transact(async (repos) => {
      const deleted = await repos.webhooks.deleteEndpoint(orgId, id);
      if (deleted.numDeletedRows !== 0n) await audit.record(context, { action: 'webhook.deleted', orgId, target: id, details: { url: row.url } }, repos);
      return deleted;
    });
    if (result.numDeletedRows === 0n) throw webhookNotFound();
    return { id, deleted: true };
  }

  /** A `ping` to this endpoint only, sent now through the delivery path; answers its delivery as recorded. */
  async function test(orgId: string, id: string): Promise<WebhookDelivery> {
    const endpoint = await found(orgId, id);
    const now = isoNow(clock);
    const eventId = newTimeOrderedId('evt', now);
    // Created claimed, so no poll takes it while this request sends it.
    const delivery = newDelivery(orgId, endpoint.id, eventId, now, new Date(clock.now().getTime() + deps.leaseMs).toISOString());
    await transact(async ({ webhooks }) => {
      await webhooks.insertEvent({ id: eventId, org_id: orgId, type: 'ping', payload: JSON.stringify({ webhookId: endpoint.id, message: 'A test event from Switchboard.' }), created_at: now });
      await webhooks.insertDelivery(delivery);
    });
    await worker.deliverNow(delivery.id, { claimed: true });
    return presentDelivery(await foundDelivery(orgId, id, delivery.id));
  }

  async function listDeliveries(orgId: string, id: string, query: { limit?: number | undefined; cursor?: string | undefined; status?: WebhookDeliveryStatus | undefined }) {
    await found(orgId, id);
    const limit = query.limit ?? 20;
    const rows = await repo.listDeliveries(orgId, id, limit, decodeCursor(query.cursor), query.status);
    return toPage(rows.map((row) => ({ ...row, createdAt: row.created_at })), limit, presentDelivery);
  }

  /** The same event again, to the same endpoint, as a new delivery at the end of its queue. */
  async function redeliver(orgId: string, id: string, deliveryId: string): Promise<WebhookDelivery> {
    const original = await foundDelivery(orgId, id, deliveryId);
    const delivery = newDelivery(orgId, id, original.event_id, isoNow(clock));
    await repo.insertDelivery(delivery);
    return presentDelivery({ ...delivery, type: original.type });
  }

  return {
    create,
    get: async (orgId: string, id: string) => presentWebhook(await found(orgId, id)),
    list: async (orgId: string, query: { limit?: number | undefined; cursor?: string | undefined }) => {
      const limit = query.limit ?? 20;
      const rows = await repo.listEndpoints(orgId, limit, decodeCursor(query.cursor));
      return toPage(rows.map((row) => ({ ...row, createdAt: row.created_at })), limit, presentWebhook);
    },
    update,
    rotateSecret,
    remove,
    test,
    listDeliveries,
    getDelivery: async (orgId: string, id: string, deliveryId: string) => presentDelivery(await foundDelivery(orgId, id, deliveryId)),
    redeliver,
  };
}

export type WebhooksService = ReturnType<typeof createWebhooksService>;

/** Request and response bodies of the delivery log are kept 7 days (the rows stay: status, attempts, times). */
export const DELIVERY_BODY_TTL_MS = 7 * 24 * 60 * 60 * 1000;

export function expiredDeliveryBodies(repo: WebhooksRepo): ExpiryPurge {
  return {
    name: 'webhook_deliveries (bodies)',
    purgeBatch: (now, limit) => repo.forgetBodies(new Date(now.getTime() - DELIVERY_BODY_TTL_MS).toISOString(), limit),
  };
}
