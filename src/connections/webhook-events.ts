import { recordWebhookEvent } from '../webhooks/outbox.js';
import type { WebhooksRepo } from '../webhooks/repo.js';

/**
 * `installation.connection_failed` (the provider refused a refresh: a person must reconnect) and
 * `installation.connection_restored` (a person reconnected one that had failed), in the unit of work that changes
 * the connection. Never a token: the installation, its tool, and why (docs/webhooks.md).
 */
export interface ConnectionEvent {
  orgId: string;
  installationId: string;
  toolId: string;
  /** Our words, for `connection_failed`. */
  reason?: string;
}

export async function recordConnectionEvent(repos: { webhooks: WebhooksRepo }, type: 'installation.connection_failed' | 'installation.connection_restored', event: ConnectionEvent, now: string): Promise<void> {
  await recordWebhookEvent(repos, {
    orgId: event.orgId,
    type,
    data: { installationId: event.installationId, toolId: event.toolId, ...(event.reason !== undefined ? { reason: event.reason } : {}), at: now },
  }, now);
}
