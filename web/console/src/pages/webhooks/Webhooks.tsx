import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { Link } from 'react-router';
import { api, seg } from '../../api/client';
import type { Webhook, WebhookDelivery } from '../../api/types';
import { ConfirmButton } from '../../components/dialogs';
import { LimitNotice, UnavailableAction } from '../../components/LimitNotice';
import { Page } from '../../components/Page';
import { limitKeys, limitState, useOrgLimits } from '../../lib/limits';
import { LoadError, Loading } from '../../components/QueryState';
import { formatDateTime } from '../../lib/format';
import { useNotify } from '../../lib/notices';
import { answerOf, fetchDeliveries, fetchWebhooks, webhookKeys } from './api';
import { RotateDialog } from './RotateDialog';
import { DeliveryStatus, WebhookState } from './StatusBadge';
import { WebhookDialog } from './WebhookDialog';

type Open = { kind: 'add' } | { kind: 'edit' | 'rotate'; webhook: Webhook } | null;

/** The organization's webhook endpoints (owners only): add, edit, test, rotate the secret, delete; each one's delivery log a click away. */
export default function WebhooksPage() {
  const webhooks = useQuery({ queryKey: webhookKeys.all, queryFn: fetchWebhooks });
  const [open, setOpen] = useState<Open>(null);
  const close = () => setOpen(null);
  const usage = useOrgLimits().data?.webhooks;
  return (
    <Page
      title="Webhooks"
      intro={<>Switchboard tells your other systems what happens here (a form sent, a contact added…) by sending a signed POST to each endpoint you add.</>}
      actions={
        limitState(usage) === 'reached' ? (
          <UnavailableAction describedBy="webhooks-limit">Add endpoint</UnavailableAction>
        ) : (
          <button type="button" className="button primary" onClick={() => setOpen({ kind: 'add' })}>
            Add endpoint
          </button>
        )
      }
    >
      <LimitNotice id="webhooks-limit" usage={usage} noun="endpoints" holder="your organization" remedy="Delete one you no longer use, or send several event types to one endpoint" />
      {webhooks.isPending ? (
        <Loading label="Loading your webhooks…" />
      ) : webhooks.isError ? (
        <LoadError error={webhooks.error} retry={() => void webhooks.refetch()} />
      ) : webhooks.data.length === 0 ? (
        <div className="empty">
          <p>No endpoints yet. Add one to have events sent to your own systems.</p>
        </div>
      ) : (
        <ul className="app-list" aria-label="Your webhook endpoints">
          {webhooks.data.map((webhook) => (
            <li key={webhook.id}>
              <WebhookCard webhook={webhook} onEdit={() => setOpen({ kind: 'edit', webhook })} onRotate={() => setOpen({ kind: 'rotate', webhook })} />
            </li>
          ))}
        </ul>
      )}
      {open?.kind === 'add' ? <WebhookDialog onClose={close} /> : null}
      {open?.kind === 'edit' ? <WebhookDialog webhook={open.webhook} onClose={close} /> : null}
      {open?.kind === 'rotate' ? <RotateDialog webhook={open.webhook} onClose={close} /> : null}
    </Page>
  );
}

function WebhookCard({ webhook, onEdit, onRotate }: { webhook: Webhook; onEdit: () => void; onRotate: () => void }) {
  const client = useQueryClient();
  const notify = useNotify();
  const titleId = `webhook-${webhook.id}-title`;
  const name = webhook.description || webhook.url;
  const test = useMutation({
    mutationFn: () => api.post<WebhookDelivery>(`/api/org/webhooks/${seg(webhook.id)}/test`),
    onSuccess: (delivery) => {
      void client.invalidateQueries({ queryKey: webhookKeys.deliveries(webhook.id) });
      notify(delivery.status === 'succeeded' ? `Test ping delivered: ${answerOf(delivery)}.` : `Test ping not delivered: ${answerOf(delivery)}.`);
    },
    onError: (error) => notify(error.message),
  });
  return (
    <section className="card" aria-labelledby={titleId}>
      <h2 id={titleId} className="card-title">
        {name}
      </h2>
      <dl className="kv">
        <dt>URL</dt>
        <dd>
          <code>{webhook.url}</code>
        </dd>
        <dt>Events</dt>
        <dd>{webhook.events.join(', ')}</dd>
        <dt>State</dt>
        <dd>
          <WebhookState webhook={webhook} />
        </dd>
        <dt>Last delivery</dt>
        <dd>
          <LastDelivery webhookId={webhook.id} />
        </dd>
        {webhook.failingSince ? (
          <>
            <dt>Failing since</dt>
            <dd>{formatDateTime(webhook.failingSince)}</dd>
          </>
        ) : null}
      </dl>
      <div className="actions">
        <Link className="button small" to={`/webhooks/${seg(webhook.id)}`} aria-label={`Delivery log of ${name}`}>
          Delivery log
        </Link>
        <button type="button" className="button small" aria-label={`Send test to ${name}`} aria-disabled={test.isPending || undefined} onClick={() => !test.isPending && test.mutate()}>
          {/* The same words while it runs: the accessible name must keep containing the visible text. */}
          Send test
        </button>
        <button type="button" className="button small" aria-label={`Edit ${name}`} onClick={onEdit}>
          Edit
        </button>
        <button type="button" className="button small" aria-label={`Rotate secret of ${name}`} onClick={onRotate}>
          Rotate secret
        </button>
        <ConfirmButton
          label="Delete"
          buttonLabel={`Delete ${name}`}
          title="Delete this webhook?"
          confirmLabel="Delete webhook"
          className="button small danger-outline"
          onConfirm={async () => {
            await api.delete(`/api/org/webhooks/${seg(webhook.id)}`);
            await Promise.all([client.invalidateQueries({ queryKey: webhookKeys.all }), client.invalidateQueries({ queryKey: limitKeys.all })]);
            notify(`The webhook to ${webhook.url} is deleted.`);
          }}
        >
          <p>
            No more events go to <code>{webhook.url}</code>; deliveries still waiting are dropped, and its delivery log goes too. This cannot be undone.
          </p>
        </ConfirmButton>
      </div>
    </section>
  );
}

/** The newest delivery of one endpoint, in a few words. */
function LastDelivery({ webhookId }: { webhookId: string }) {
  const last = useQuery({ queryKey: webhookKeys.lastDelivery(webhookId), queryFn: ({ signal }) => fetchDeliveries(webhookId, null, 1, signal) });
  if (last.isPending) return <>…</>;
  if (last.isError) return <>Could not load it.</>;
  const delivery = last.data.items[0];
  if (!delivery) return <>None yet</>;
  return (
    <>
      <DeliveryStatus status={delivery.status} /> <code>{delivery.eventType}</code>, {formatDateTime(delivery.createdAt)}: {answerOf(delivery)}
    </>
  );
}
