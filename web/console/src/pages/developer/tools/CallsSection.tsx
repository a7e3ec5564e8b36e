import { useInfiniteQuery } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { FilterActions } from '../../../components/FilterActions';
import { SelectField } from '../../../components/fields';
import { LoadError, Loading } from '../../../components/QueryState';
import { TableWrap } from '../../../components/TableWrap';
import { fieldError } from '../../../lib/errors';
import { formatDateTime } from '../../../lib/format';
import { PATHS } from '../../tools/format';
import { fetchDeveloperCalls, toolPageKeys, type DeveloperCallFilters, type DeveloperToolCall } from './toolPageApi';
import { DayRangeFields, OutcomeField } from '../../tools/CallFilterFields';
import { CallOutcome } from '../../tools/CallOutcome';

const EMPTY: DeveloperCallFilters = { outcome: '', path: '', from: '', to: '' };
const TABLE_LABEL = 'Calls of this tool';

/** The tool's call log from every organization (GET /api/dev/tools/{id}/calls), filtered by outcome, way in and days. */
export function CallsSection({ toolId }: { toolId: string }) {
  const [draft, setDraft] = useState(EMPTY);
  const [filters, setFilters] = useState(EMPTY);
  const filtered = Object.values(filters).some(Boolean);
  const query = useInfiniteQuery({
    queryKey: toolPageKeys.calls(toolId, filters),
    queryFn: ({ pageParam, signal }) => fetchDeveloperCalls(toolId, filters, pageParam, signal),
    initialPageParam: null as string | null,
    getNextPageParam: (page) => page.nextCursor,
  });
  const calls = query.data?.pages.flatMap((page) => page.items) ?? [];
  const error = query.error;

  const submit = (event: FormEvent) => {
    event.preventDefault();
    setFilters(draft);
  };
  const clear = () => {
    setDraft(EMPTY);
    setFilters(EMPTY);
    setTimeout(() => document.querySelector<HTMLElement>('select[name="outcome"]')?.focus(), 30);
  };

  return (
    <section className="card" aria-labelledby="tool-calls-title">
      <h2 id="tool-calls-title">Calls</h2>
      <p>Every call of this tool from every business, newest first, and your test calls. Businesses appear only as an opaque reference; arguments and answers are not kept.</p>
      <form role="search" aria-label="Filter calls" className="crm-filters" onSubmit={submit} noValidate>
        <OutcomeField draft={draft} setDraft={setDraft} error={error} />
        <SelectField label="Came through" name="path" value={draft.path} onChange={(e) => setDraft({ ...draft, path: e.target.value })} error={fieldError(error, 'path')}>
          <option value="">Any way</option>
          {Object.entries(PATHS).map(([path, label]) => (
            <option key={path} value={path}>
              {label}
            </option>
          ))}
        </SelectField>
        <DayRangeFields draft={draft} setDraft={setDraft} error={error} />
        <FilterActions filtered={filtered} onClear={clear} submitLabel="Show calls" />
      </form>
      {query.isPending ? (
        <Loading label="Loading calls…" />
      ) : query.isError && !calls.length ? (
        <LoadError error={error} retry={() => void query.refetch()} />
      ) : !calls.length ? (
        <p className="empty">{filtered ? 'No calls match these filters.' : 'No calls yet. Send a test call above, or wait for businesses to enable and use the tool.'}</p>
      ) : (
        <>
          <p className="visually-hidden" role="status">
            {`${calls.length}${query.hasNextPage ? ' or more' : ''} call${calls.length === 1 && !query.hasNextPage ? '' : 's'} shown`}
          </p>
          <DeveloperCallTable calls={calls} />
          {query.isError ? <LoadError error={error} retry={() => void query.fetchNextPage()} /> : null}
          {query.hasNextPage ? (
            <div className="actions">
              <button type="button" className="button" aria-disabled={query.isFetchingNextPage || undefined} onClick={() => !query.isFetchingNextPage && void query.fetchNextPage()}>
                {query.isFetchingNextPage ? 'Loading more…' : 'Show more calls'}
              </button>
            </div>
          ) : null}
        </>
      )}
    </section>
  );
}

/**
 * The developer's view of calls: no agent or installation (the API does not give them), the business as
 * its reference instead. The operator's CallTable names agents and installations, so it is not shared.
 */
function DeveloperCallTable({ calls }: { calls: DeveloperToolCall[] }) {
  return (
    <TableWrap label={TABLE_LABEL}>
      <table>
        <caption className="visually-hidden">{TABLE_LABEL}, newest first</caption>
        <thead>
          <tr>
            <th scope="col">Time</th>
            <th scope="col">Outcome</th>
            <th scope="col" className="num">
              Duration
            </th>
            <th scope="col">Through</th>
            <th scope="col" className="tools-hide-narrow">
              Business
            </th>
          </tr>
        </thead>
        <tbody>
          {calls.map((call) => (
            <tr key={call.id}>
              <td className="tools-nowrap">{formatDateTime(call.createdAt)}</td>
              <td>
                <CallOutcome call={call} />
              </td>
              <td className="num tools-nowrap">{call.durationMs.toLocaleString()} ms</td>
              <td>{PATHS[call.path] ?? call.path}</td>
              <td className="tools-hide-narrow">{call.orgRef ? <code title={call.orgRef}>{call.orgRef.slice(0, 14)}…</code> : <span className="muted">Your test</span>}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </TableWrap>
  );
}
