import { useInfiniteQuery } from '@tanstack/react-query';
import { Link } from 'react-router';
import { useAgents } from '../../api/lists';
import type { Conversation } from '../../api/types';
import { FilterActions } from '../../components/FilterActions';
import { Page } from '../../components/Page';
import { LoadError, Loading } from '../../components/QueryState';
import { SelectField } from '../../components/fields';
import { TableWrap } from '../../components/TableWrap';
import { fieldError } from '../../lib/errors';
import { formatDateTime } from '../../lib/format';
import { useAddressFilters } from '../../lib/useAddressFilters';
import { conversationKeys, fetchConversations, tokens } from './api';
import { shortPage, sourceLabel, utmText } from './source';
import '../crm/crm.css';
import './conversations.css';

const EMPTY = { agentId: '' };

/** Every conversation with the organization's agents, newest first, by agent. */
export default function ConversationsPage() {
  const { filters, draft, setDraft, filtered, onSubmit, clear: clearFilters } = useAddressFilters(EMPTY);
  const agents = useAgents();
  const query = useInfiniteQuery({
    queryKey: conversationKeys.list(filters.agentId),
    queryFn: ({ pageParam, signal }) => fetchConversations(filters.agentId, pageParam, signal),
    initialPageParam: null as string | null,
    getNextPageParam: (page) => page.nextCursor,
  });

  const clear = () => {
    clearFilters();
    setTimeout(() => document.querySelector<HTMLElement>('select[name="agentId"]')?.focus(), 30);
  };
  const error = query.error;
  const items = query.data?.pages.flatMap((page) => page.items) ?? [];
  const agentName = (id: string) => agents.data?.find((agent) => agent.id === id)?.name ?? id;
  const showMore = () => {
    if (query.isFetchingNextPage) return;
    void query.fetchNextPage().then((result) => {
      // Without more pages the button goes away: focus goes to the table, where the new rows are.
      if (!result.isError && !result.hasNextPage) setTimeout(() => document.querySelector<HTMLElement>('[role="region"][aria-label="Conversations"]')?.focus(), 30);
    });
  };

  return (
    <Page title="Conversations" intro="Everything said to your agents, in the console’s Playground, through the API or in your sites’ chat widget, newest first.">
      <form role="search" aria-label="Conversations" className="crm-filters" onSubmit={onSubmit} noValidate>
        <SelectField label="Agent" name="agentId" value={draft.agentId} onChange={(e) => setDraft({ agentId: e.target.value })} error={fieldError(error, 'agentId')}>
          <option value="">All agents</option>
          {(agents.data ?? []).map((agent) => (
            <option key={agent.id} value={agent.id}>
              {agent.name}
            </option>
          ))}
        </SelectField>
        <FilterActions filtered={filtered} onClear={clear} submitLabel="Show conversations" />
      </form>

      {query.isPending ? (
        <Loading label="Loading conversations…" />
      ) : query.isError && !items.length ? (
        <LoadError error={error} retry={() => void query.refetch()} />
      ) : items.length === 0 ? (
        filtered ? (
          <div className="empty">
            <p>This agent has no conversations yet.</p>
            <button type="button" className="button" onClick={clear}>
              Clear filters
            </button>
          </div>
        ) : (
          <div className="empty">
            <p>No conversations yet. Open an agent with a model and talk to it in its Playground.</p>
            <Link className="button primary" to="/agents">
              Go to your agents
            </Link>
          </div>
        )
      ) : (
        <>
          <p className="visually-hidden" role="status">
            {`${items.length}${query.hasNextPage ? ' or more' : ''} conversation${items.length === 1 && !query.hasNextPage ? '' : 's'} shown`}
          </p>
          <TableWrap label="Conversations">
            <table>
              <caption className="visually-hidden">Conversations, newest first</caption>
              <thead>
                <tr>
                  <th scope="col">Started</th>
                  <th scope="col">Agent</th>
                  <th scope="col" className="num">
                    Messages
                  </th>
                  <th scope="col">Tokens</th>
                  <th scope="col">Started in</th>
                  <th scope="col">Last message</th>
                </tr>
              </thead>
              <tbody>
                {items.map((item) => (
                  <tr key={item.id}>
                    <td>
                      <Link to={`/conversations/${encodeURIComponent(item.id)}`}>{formatDateTime(item.createdAt)}</Link>
                    </td>
                    <td className="crm-wrap">{agentName(item.agentId)}</td>
                    <td className="num">{item.messageCount.toLocaleString()}</td>
                    <td className="crm-nowrap">{tokens(item.usage)}</td>
                    <td className="crm-wrap">
                      <Source conversation={item} />
                    </td>
                    <td>{formatDateTime(item.updatedAt)}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </TableWrap>
          {query.isError ? <LoadError error={error} retry={() => void query.fetchNextPage()} /> : null}
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

/** "Widget", with the page the visitor was on and the campaign that brought them; "Console" or "API" for the others. */
function Source({ conversation }: { conversation: Conversation }) {
  const { pageUrl, utm } = conversation;
  const campaign = utmText(utm);
  return (
    <>
      {sourceLabel(conversation.source)}
      {pageUrl ? (
        <span className="conv-source-detail small" title={pageUrl}>
          {shortPage(pageUrl)}
        </span>
      ) : null}
      {campaign ? <span className="conv-source-detail small muted">UTM: {campaign}</span> : null}
    </>
  );
}
