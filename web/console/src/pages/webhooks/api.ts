import { api, seg } from '../../api/client';
import { fetchAll } from '../../api/lists';
import type { Page, Webhook, WebhookDelivery, WebhookEventType } from '../../api/types';

/** The events an endpoint can subscribe to, in the order the form lists them, each said in a few words (docs/webhooks.md). */
export const EVENTS: { type: WebhookEventType; hint: string }[] = [
  { type: 'submission.created', hint: 'Someone sent one of your forms.' },
  { type: 'contact.created', hint: 'A contact was added, by a form, an agent or a person.' },
  { type: 'contact.updated', hint: 'A contact’s details changed.' },
  { type: 'opportunity.created', hint: 'An opportunity was opened in a pipeline.' },
  { type: 'opportunity.stage_changed', hint: 'An opportunity moved to another stage.' },
  { type: 'tool_call.failed', hint: 'A tool call by one of your agents failed.' },
  { type: 'installation.connection_failed', hint: 'A tool’s connected account stopped working: someone must reconnect it.' },
  { type: 'installation.connection_restored', hint: 'A tool’s connection that had failed was reconnected.' },
];

/** Keeps the form's order whatever order the boxes were ticked in. */
export const orderedEvents = (events: readonly string[]): WebhookEventType[] => EVENTS.map((e) => e.type).filter((type) => events.includes(type));

/** Deliveries a page of the log shows; the API allows up to 100. */
export const DELIVERY_PAGE = 25;

export const webhookKeys = {
  all: ['webhooks'] as const,
  one: (id: string) => ['webhooks', id] as const,
  deliveries: (id: string) => ['webhooks', id, 'deliveries'] as const,
  lastDelivery: (id: string) => ['webhooks', id, 'deliveries', 'last'] as const,
};

export const fetchWebhooks = () => fetchAll<Webhook>('/api/org/webhooks');
export const fetchWebhook = (id: string) => api.get<Webhook>(`/api/org/webhooks/${seg(id)}`);
export const fetchDeliveries = (id: string, cursor: string | null, limit = DELIVERY_PAGE, signal?: AbortSignal) =>
  api.get<Page<WebhookDelivery>>(`/api/org/webhooks/${seg(id)}/deliveries`, { query: { limit, cursor }, signal });

/** A delivery's outcome in a few words: "HTTP 200 in 35 ms", or the error, or "Not tried yet". */
export function answerOf(delivery: WebhookDelivery): string {
  const time = delivery.lastDurationMs === null ? '' : ` in ${delivery.lastDurationMs} ms`;
  if (delivery.lastStatus !== null) return `HTTP ${delivery.lastStatus}${time}`;
  if (delivery.lastError) return `${delivery.lastError}${time}`;
  return 'Not tried yet';
}

export const STATUS_LABELS: Record<WebhookDelivery['status'], string> = { pending: 'Pending', succeeded: 'Delivered', failed: 'Failed' };
