import type { Webhook, WebhookDelivery } from '../../api/types';
import { STATUS_LABELS } from './api';

/** A delivery's state as a badge: delivered is green, anything else plain (its words say which). */
export function DeliveryStatus({ status }: { status: WebhookDelivery['status'] }) {
  return <span className={`badge ${status === 'succeeded' ? 'on' : 'off'}`}>{STATUS_LABELS[status]}</span>;
}

/** An endpoint's state: on, paused by a person, or turned off by the service (and why). */
export function WebhookState({ webhook }: { webhook: Webhook }) {
  if (webhook.enabled) return <span className="badge on">Enabled</span>;
  return (
    <>
      <span className="badge off">Disabled</span>
      {webhook.disabledReason ? <> {webhook.disabledReason}</> : ' Paused by an owner.'}
    </>
  );
}
