import { Link, useSearchParams } from 'react-router';
import { useAgents } from '../../api/lists';
import { useCurrentSession } from '../../api/session';
import type { Conversation } from '../../api/types';
import { Page } from '../../components/Page';
import { LoadError, Loading } from '../../components/QueryState';
import { TableWrap } from '../../components/TableWrap';
import { formatDateTime } from '../../lib/format';
import { shortPage, utmText } from '../conversations/source';
import { useInboxLive, useViewQuery } from './live';
import { VIEWS, assigneeText, itemsOf, statusText, viewOf, waitText, type InboxView } from './model';
import { StatusBadge } from './StatusBadge';
import { useAnnouncer, useNow } from './hooks';
import '../crm/crm.css';
import '../conversations/conversations.css';
import './inbox.css';

/** The address of a view (Waiting is the Inbox's own). */
const viewPath = (view: InboxView) => (view === 'waiting' ? '/inbox' : `/inbox?view=${view}`);

/**
 * The Inbox: conversations a person was asked for (Waiting), the ones the signed-in member holds (Mine) and
 * every open one (All open), kept current by the live stream (live.tsx) without reloading. Each view is a link
 * (`?view=`), so Back, a reload and a shared address keep it; the counts of Waiting and Mine are in the links.
 */
export default function InboxPage() {
  const me = useCurrentSession().user.id;
  const [params] = useSearchParams();
  const view = viewOf(params.get('view'));
  const query = useViewQuery(view.id);
  const waiting = useViewQuery('waiting');
  const mine = useViewQuery('mine');
  const agents = useAgents();
  const now = useNow(15_000);
  const [announcement, say] = useAnnouncer();
  const agentName = (id: string) => agents.data?.find((agent) => agent.id === id)?.name ?? 'An agent';

  const { connected } = useInboxLive((event) => {
    if (event.type !== 'conversation') return;
    const { conversation, before } = event;
    if (conversation.status === 'waiting' && before?.status !== 'waiting') {
      say(`New: a visitor is waiting for a person, with ${agentName(conversation.agentId)}${conversation.pageUrl ? ` on ${shortPage(conversation.pageUrl)}` : ''}.`);
    }
  });

  const counts: Partial<Record<InboxView, string>> = {
    waiting: countText(waiting),
    mine: countText(mine),
  };
  const items = itemsOf(view.id, query.data);
  const showMore = () => {
    if (!query.isFetchingNextPage) void query.fetchNextPage();
  };

  return (
    <Page title="Inbox" documentTitle={view.id === 'waiting' ? 'Inbox' : `${view.label} · Inbox`} intro="Visitors who asked for a person, and the conversations your team holds. It updates by itself.">
      <nav className="subnav" aria-label="Inbox views" data-keep-focus="">
        <ul>
          {VIEWS.map((each) => (
            <li key={each.id}>
              <Link to={viewPath(each.id)} aria-current={each.id === view.id ? 'page' : undefined}>
                {each.label}
                {counts[each.id] ? <span className="inbox-view-count"> ({counts[each.id]})</span> : null}
              </Link>
            </li>
          ))}
        </ul>
      </nav>
      <p className="small muted inbox-live">{connected ? 'Live: new conversations and changes appear here by themselves.' : 'Connecting for live updates…'}</p>
      <p className="visually-hidden" role="status">
        {announcement}
      </p>

      {query.isPending ? (
        <Loading label="Loading conversations…" />
      ) : query.isError && !items.length ? (
        <LoadError error={query.error} retry={() => void query.refetch()} />
      ) : items.length === 0 ? (
        <div className="empty">
          <p>{view.empty}</p>
        </div>
      ) : (
        <>
          <TableWrap label={`${view.label} conversations`}>
            <table className="inbox-table">
              <caption className="visually-hidden">{view.caption}</caption>
              <thead>
                <tr>
                  <th scope="col">Started</th>
                  <th scope="col">Agent</th>
                  <th scope="col">Page</th>
                  <th scope="col">UTM</th>
                  <th scope="col">Waiting</th>
                  <th scope="col">Status</th>
                  <th scope="col">Held by</th>
                </tr>
              </thead>
              <tbody>
                {items.map((item) => (
                  <Row key={item.id} item={item} agentName={agentName(item.agentId)} me={me} now={now} />
                ))}
              </tbody>
            </table>
          </TableWrap>
          {query.isError ? <LoadError error={query.error} retry={() => void query.fetchNextPage()} /> : null}
          {query.hasNextPage ? (
            <div className="actions">
              <button type="button" className="button" aria-disabled={query.isFetchingNextPage || undefined} onClick={showMore}>
                {query.isFetchingNextPage ? 'Loading more…' : 'Show more conversations'}
              </button>
            </div>
          ) : null}
        </>
      )}
    </Page>
  );
}

function countText(query: ReturnType<typeof useViewQuery>): string {
  if (!query.data) return '';
  return `${itemsOf('open', query.data).length}${query.hasNextPage ? '+' : ''}`;
}

function Row({ item, agentName, me, now }: { item: Conversation; agentName: string; me: string; now: number }) {
  const campaign = utmText(item.utm);
  return (
    <tr>
      <td className="crm-nowrap">
        <Link to={`/inbox/${encodeURIComponent(item.id)}`}>{formatDateTime(item.createdAt)}</Link>
      </td>
      <td>{agentName}</td>
      <td className="crm-wrap">{item.pageUrl ? shortPage(item.pageUrl) : <span className="muted">Not sent</span>}</td>
      <td className="crm-wrap">{campaign || <span className="muted">None</span>}</td>
      <td className="crm-nowrap">{waitText(item, now)}</td>
      <td>
        <StatusBadge status={item.status}>{statusText(item, me)}</StatusBadge>
      </td>
      <td>{assigneeText(item, me)}</td>
    </tr>
  );
}
