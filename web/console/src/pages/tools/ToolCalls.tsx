import { useInfiniteQuery, useQuery } from '@tanstack/react-query';
import { Link } from 'react-router';
import { useAgents } from '../../api/lists';
import { FilterActions } from '../../components/FilterActions';
import { Page } from '../../components/Page';
import { LoadError, Loading } from '../../components/QueryState';
import { SelectField } from '../../components/fields';
import { useAddressFilters } from '../../lib/useAddressFilters';
import { fieldError } from '../../lib/errors';
import { fetchCalls, fetchInstallations, toolKeys, type CallFilters } from './api';
import { CallTable } from './CallTable';
import './tools.css';
import { DayRangeFields, OutcomeField } from './CallFilterFields';

const EMPTY: CallFilters = { agentId: '', toolId: '', outcome: '', from: '', to: '', conversationId: '' };

/** The call log: every call the organization's agents made, newest first, filtered by agent, tool, outcome and days. */
export default function ToolCallsPage() {
  const { filters, draft, setDraft, filtered, onSubmit, clear: clearFilters } = useAddressFilters(EMPTY);
  const agents = useAgents();
  const installations = useQuery({ queryKey: toolKeys.installations, queryFn: fetchInstallations });

  const query = useInfiniteQuery({
    queryKey: toolKeys.calls(filters),
    queryFn: ({ pageParam, signal }) => fetchCalls(filters, pageParam, undefined, signal),
    initialPageParam: null as string | null,
    getNextPageParam: (page) => page.nextCursor,
  });

  const clear = () => {
    clearFilters();
    setTimeout(() => document.querySelector<HTMLElement>('select[name="agentId"]')?.focus(), 30);
  };

  const error = query.error;
  const calls = query.data?.pages.flatMap((page) => page.items) ?? [];
  const showMore = () => {
    if (query.isFetchingNextPage) return;
    void query.fetchNextPage().then((result) => {
      // Without more pages the button goes away: focus goes to the table, where the new calls are.
      if (!result.isError && !result.hasNextPage) setTimeout(() => document.querySelector<HTMLElement>('[role="region"][aria-label="Tool calls"]')?.focus(), 30);
    });
  };
  const tools = installations.data ?? [];

  return (
    <Page title="Tool calls" intro={<>Every call your agents made, newest first. Arguments and answers are not kept. <Link to="/tools">Back to your tools</Link></>}>
      <form role="search" aria-label="Tool calls" className="crm-filters" onSubmit={onSubmit} noValidate>
        <SelectField label="Agent" name="agentId" value={draft.agentId} onChange={(e) => setDraft({ ...draft, agentId: e.target.value })} error={fieldError(error, 'agentId')}>
          <option value="">All agents</option>
          {(agents.data ?? []).map((agent) => (
            <option key={agent.id} value={agent.id}>
              {agent.name}
            </option>
          ))}
        </SelectField>
        <SelectField label="Tool" name="toolId" value={draft.toolId} onChange={(e) => setDraft({ ...draft, toolId: e.target.value })} error={fieldError(error, 'toolId')}>
          <option value="">All tools</option>
          {tools.map((item) => (
            <option key={item.id} value={item.toolId}>
              {item.name ?? item.toolId}
            </option>
          ))}
          {/* A removed tool still has calls: its id stays a choice when the address names it. */}
          {draft.toolId && !tools.some((item) => item.toolId === draft.toolId) ? <option value={draft.toolId}>{draft.toolId}</option> : null}
        </SelectField>
        <OutcomeField draft={draft} setDraft={setDraft} error={error} />
        <DayRangeFields draft={draft} setDraft={setDraft} error={error} />
        <FilterActions filtered={filtered} onClear={clear} submitLabel="Show calls" />
      </form>
      {filters.conversationId ? (
        <p>
          The calls of one conversation. <Link to={`/conversations/${filters.conversationId}`}>Open its transcript</Link>
        </p>
      ) : null}

      {query.isPending ? (
        <Loading label="Loading calls…" />
      ) : query.isError && !calls.length ? (
        <LoadError error={error} retry={() => void query.refetch()} />
      ) : calls.length === 0 ? (
        filtered ? (
          <div className="empty">
            <p>No calls match these filters.</p>
            <button type="button" className="button" onClick={clear}>
              Clear filters
            </button>
          </div>
        ) : (
          <div className="empty">
            <p>No calls yet. Calls appear here a second or so after your agents make them.</p>
            <Link className="button primary" to="/tools">
              Go to your tools
            </Link>
          </div>
        )
      ) : (
        <>
          <p className="visually-hidden" role="status">
            {`${calls.length}${query.hasNextPage ? ' or more' : ''} call${calls.length === 1 && !query.hasNextPage ? '' : 's'} shown`}
          </p>
          <CallTable calls={calls} agents={agents.data} installations={installations.data} label="Tool calls" />
          {query.isError ? <LoadError error={error} retry={() => void query.fetchNextPage()} /> : null}
          {query.hasNextPage ? (
            <div className="actions">
              <button type="button" className="button" aria-disabled={query.isFetchingNextPage || undefined} onClick={showMore}>
                {query.isFetchingNextPage ? 'Loading more…' : 'Show more calls'}
              </button>
            </div>
          ) : null}
        </>
      )}
    </Page>
  );
}
