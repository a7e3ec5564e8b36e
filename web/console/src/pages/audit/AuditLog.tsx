import { useInfiniteQuery } from '@tanstack/react-query';
import { FilterActions } from '../../components/FilterActions';
import { Page } from '../../components/Page';
import { LoadError, Loading } from '../../components/QueryState';
import { TableWrap } from '../../components/TableWrap';
import { SelectField, TextField } from '../../components/fields';
import { fieldError } from '../../lib/errors';
import { formatDateTime } from '../../lib/format';
import { useAddressFilters } from '../../lib/useAddressFilters';
import { DayRangeFields } from '../tools/CallFilterFields';
import { ACTIONS, actionLabel, actorText, auditKeys, detailsText, fetchAuditLog, type AuditFilters, type AuditScope } from './api';

const EMPTY: AuditFilters = { action: '', actor: '', target: '', from: '', to: '' };
const LABEL = 'Audit log';

/**
 * The audit log, newest first, filtered by action, actor, record and days: the organization's (owners) or a
 * developer's own. Entries cannot be changed or deleted; they are kept 400 days.
 */
export function AuditLog({ scope }: { scope: AuditScope }) {
  const { filters, draft, setDraft, filtered, onSubmit, clear: clearFilters } = useAddressFilters(EMPTY);
  const query = useInfiniteQuery({
    queryKey: auditKeys.log(scope, filters),
    queryFn: ({ pageParam, signal }) => fetchAuditLog(scope, filters, pageParam, signal),
    initialPageParam: null as string | null,
    getNextPageParam: (page) => page.nextCursor,
  });
  const clear = () => {
    clearFilters();
    setTimeout(() => document.querySelector<HTMLElement>('select[name="action"]')?.focus(), 30);
  };
  const showMore = () => {
    if (query.isFetchingNextPage) return;
    void query.fetchNextPage().then((result) => {
      if (!result.isError && !result.hasNextPage) setTimeout(() => document.querySelector<HTMLElement>(`[role="region"][aria-label="${LABEL}"]`)?.focus(), 30);
    });
  };
  const error = query.error;
  const entries = query.data?.pages.flatMap((page) => page.items) ?? [];
  const actions = scope === 'dev' ? ACTIONS.filter((each) => each.dev) : ACTIONS;
  const intro =
    scope === 'org'
      ? 'Who in your team did each sensitive action, from where and when. Entries cannot be changed or deleted, and are kept 400 days.'
      : 'Your sign-ins, app secrets rotated and tools published or withdrawn. Entries cannot be changed or deleted, and are kept 400 days.';

  return (
    <Page title={LABEL} intro={intro}>
      <form role="search" aria-label={LABEL} className="crm-filters" onSubmit={onSubmit} noValidate>
        <SelectField label="Action" name="action" value={draft.action} onChange={(e) => setDraft({ ...draft, action: e.target.value })} error={fieldError(error, 'action')}>
          <option value="">All actions</option>
          {actions.map((each) => (
            <option key={each.action} value={each.action}>
              {each.label}
            </option>
          ))}
        </SelectField>
        <TextField label="Who" hint="A user or key id, or cli" name="actor" value={draft.actor} onChange={(e) => setDraft({ ...draft, actor: e.target.value })} error={fieldError(error, 'actor')} autoComplete="off" spellCheck={false} />
        <TextField label="Record" hint="An id, e.g. key_…" name="target" value={draft.target} onChange={(e) => setDraft({ ...draft, target: e.target.value })} error={fieldError(error, 'target')} autoComplete="off" spellCheck={false} />
        <DayRangeFields draft={draft} setDraft={setDraft} error={error} />
        <FilterActions filtered={filtered} onClear={clear} submitLabel="Show entries" />
      </form>

      {query.isPending ? (
        <Loading label="Loading the audit log…" />
      ) : query.isError && !entries.length ? (
        <LoadError error={error} retry={() => void query.refetch()} />
      ) : entries.length === 0 ? (
        filtered ? (
          <div className="empty">
            <p>No entries match these filters.</p>
            <button type="button" className="button" onClick={clear}>
              Clear filters
            </button>
          </div>
        ) : (
          <div className="empty">
            <p>Nothing recorded yet. Sign-ins, key changes and other sensitive actions appear here as they happen.</p>
          </div>
        )
      ) : (
        <>
          <p className="visually-hidden" role="status">
            {`${entries.length}${query.hasNextPage ? ' or more' : ''} entr${entries.length === 1 && !query.hasNextPage ? 'y' : 'ies'} shown`}
          </p>
          <TableWrap label={LABEL}>
            <table>
              <caption className="visually-hidden">{LABEL}, newest first</caption>
              <thead>
                <tr>
                  <th scope="col">Time</th>
                  <th scope="col">Action</th>
                  <th scope="col">Who</th>
                  <th scope="col">Record</th>
                  <th scope="col">From</th>
                  <th scope="col">Details</th>
                </tr>
              </thead>
              <tbody>
                {entries.map((entry) => (
                  <tr key={entry.id}>
                    <td className="tools-nowrap">{formatDateTime(entry.createdAt)}</td>
                    <td>{actionLabel(entry.action)}</td>
                    <td className="tools-wrap">{actorText(entry.actor)}</td>
                    <td className="tools-wrap">{entry.target ? <code>{entry.target.id}</code> : '—'}</td>
                    <td className="tools-wrap">
                      {entry.ip ?? '—'}
                      {entry.userAgent ? <span className="hint"> {entry.userAgent}</span> : null}
                    </td>
                    <td className="tools-wrap">{detailsText(entry.details) || '—'}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </TableWrap>
          {query.isError ? <LoadError error={error} retry={() => void query.fetchNextPage()} /> : null}
          {query.hasNextPage ? (
            <div className="actions">
              <button type="button" className="button" aria-disabled={query.isFetchingNextPage || undefined} onClick={showMore}>
                {query.isFetchingNextPage ? 'Loading more…' : 'Show more entries'}
              </button>
            </div>
          ) : null}
        </>
      )}
    </Page>
  );
}
