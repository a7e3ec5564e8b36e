import { useInfiniteQuery, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { Link, useParams } from 'react-router';
import { api, seg } from '../../api/client';
import type { Webhook, WebhookDelivery } from '../../api/types';
import { Page } from '../../components/Page';
import { LoadError, Loading, QueryState } from '../../components/QueryState';
import { TableWrap } from '../../components/TableWrap';
import { formatDateTime } from '../../lib/format';
import { useNotify } from '../../lib/notices';
import { answerOf, fetchDeliveries, fetchWebhook, webhookKeys } from './api';
import { DeliveryStatus, WebhookState } from './StatusBadge';

/** One endpoint's delivery log, newest first, paged: what was sent, what came back, when it is tried next; redeliver any. */
export default function DeliveriesPage() {
  const { id = '' } = useParams();
  const webhook = useQuery({ queryKey: webhookKeys.one(id), queryFn: () => fetchWebhook(id) });
  return (
    <QueryState query={webhook} what="webhook">
      {(found) => <Log webhook={found} />}
    </QueryState>
  );
}

function Log({ webhook }: { webhook: Webhook }) {
  const client = useQueryClient();
  const notify = useNotify();
  const query = useInfiniteQuery({
    queryKey: webhookKeys.deliveries(webhook.id),
    queryFn: ({ pageParam, signal }) => fetchDeliveries(webhook.id, pageParam, undefined, signal),
    initialPageParam: null as string | null,
    getNextPageParam: (page) => page.nextCursor,
  });
  const refresh = () => client.invalidateQueries({ queryKey: webhookKeys.deliveries(webhook.id) });
  const test = useMutation({
    mutationFn: () => api.post<WebhookDelivery>(`/api/org/webhooks/${seg(webhook.id)}/test`),
    onSuccess: (delivery) => {
      void refresh();
      notify(delivery.status === 'succeeded' ? `Test ping delivered: ${answerOf(delivery)}.` : `Test ping not delivered: ${answerOf(delivery)}.`);
    },
    onError: (error) => notify(error.message),
  });
  const deliveries = query.data?.pages.flatMap((page) => page.items) ?? [];
  const showMore = () => {
    if (query.isFetchingNextPage) return;
    void query.fetchNextPage().then((result) => {
      // Without more pages the button goes away: focus goes to the table, where the new rows are.
      if (!result.isError && !result.hasNextPage) setTimeout(() => document.querySelector<HTMLElement>('[role="region"][aria-label="Deliveries"]')?.focus(), 30);
    });
  };

  return (
    <Page
      title="Delivery log"
      intro={
        <>
          Every event sent to <code>{webhook.url}</code>, newest first. Bodies are kept 7 days. <Link to="/webhooks">Back to webhooks</Link>
        </>
      }
      actions={
        <>
          <button type="button" className="button" onClick={() => void refresh()}>
            Refresh
          </button>
          <button type="button" className="button primary" aria-disabled={test.isPending || undefined} onClick={() => !test.isPending && test.mutate()}>
            {test.isPending ? 'Sending…' : 'Send test'}
          </button>
        </>
      }
    >
      <p>
        <WebhookState webhook={webhook} />
      </p>
      {query.isPending ? (
        <Loading label="Loading deliveries…" />
      ) : query.isError && !deliveries.length ? (
        <LoadError error={query.error} retry={() => void query.refetch()} />
      ) : deliveries.length === 0 ? (
        <div className="empty">
          <p>Nothing sent yet. Send a test ping to see one here.</p>
        </div>
      ) : (
        <>
          <p className="visually-hidden" role="status">
            {`${deliveries.length}${query.hasNextPage ? ' or more' : ''} deliver${deliveries.length === 1 && !query.hasNextPage ? 'y' : 'ies'} shown`}
          </p>
          <DeliveryTable deliveries={deliveries} webhookId={webhook.id} onRedelivered={() => void refresh()} />
          {query.isError ? <LoadError error={query.error} retry={() => void query.fetchNextPage()} /> : null}
          {query.hasNextPage ? (
            <div className="actions">
              <button type="button" className="button" aria-disabled={query.isFetchingNextPage || undefined} onClick={showMore}>
                {query.isFetchingNextPage ? 'Loading more…' : 'Show more deliveries'}
              </button>
            </div>
          ) : null}
        </>
      )}
    </Page>
  );
}

function DeliveryTable({ deliveries, webhookId, onRedelivered }: { deliveries: WebhookDelivery[]; webhookId: string; onRedelivered: () => void }) {
  return (
    <TableWrap label="Deliveries">
      <table>
        <thead>
          <tr>
            <th scope="col">Event</th>
            <th scope="col">Status</th>
            <th scope="col" className="num">
              Attempts
            </th>
            <th scope="col">Last answer</th>
            <th scope="col">Next try</th>
            <th scope="col">Sent</th>
            <th scope="col">
              <span className="visually-hidden">Details and actions</span>
            </th>
          </tr>
        </thead>
        <tbody>
          {deliveries.map((delivery) => (
            <DeliveryRow key={delivery.id} delivery={delivery} webhookId={webhookId} onRedelivered={onRedelivered} />
          ))}
        </tbody>
      </table>
    </TableWrap>
  );
}

function DeliveryRow({ delivery, webhookId, onRedelivered }: { delivery: WebhookDelivery; webhookId: string; onRedelivered: () => void }) {
  const notify = useNotify();
  const redeliver = useMutation({
    mutationFn: () => api.post<WebhookDelivery>(`/api/org/webhooks/${seg(webhookId)}/deliveries/${seg(delivery.id)}/redeliver`),
    onSuccess: () => {
      onRedelivered();
      notify(`${delivery.eventType} is queued again, as a new delivery.`);
    },
    onError: (error) => notify(error.message),
  });
  return (
    <tr>
      <td>
        <code>{delivery.eventType}</code>
      </td>
      <td>
        <DeliveryStatus status={delivery.status} />
      </td>
      <td className="num">{delivery.attempts}</td>
      <td>{answerOf(delivery)}</td>
      <td>{delivery.status === 'pending' && delivery.nextAttemptAt ? formatDateTime(delivery.nextAttemptAt) : '—'}</td>
      <td>{formatDateTime(delivery.deliveredAt ?? delivery.createdAt)}</td>
      <td>
        <details className="history">
          <summary>
            Bodies<span className="visually-hidden"> of delivery {delivery.id}</span>
          </summary>
          <p>Sent:</p>
          {delivery.requestBody === null ? <p>No longer kept.</p> : <pre className="pre">{delivery.requestBody}</pre>}
          <p>Answer:</p>
          {delivery.responseBody === null ? <p>None kept.</p> : <pre className="pre">{delivery.responseBody || '(empty)'}</pre>}
        </details>
        <button
          type="button"
          className="button small"
          aria-label={`Redeliver ${delivery.eventType} ${delivery.id}`}
          aria-disabled={redeliver.isPending || undefined}
          onClick={() => !redeliver.isPending && redeliver.mutate()}
        >
          Redeliver
        </button>
      </td>
    </tr>
  );
}
