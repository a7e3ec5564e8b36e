import { useInfiniteQuery } from '@tanstack/react-query';
import { Link } from 'react-router';
import { api } from '../../api/client';
import { queryKeys } from '../../api/lists';
import type { FormWithCounts, Page as PageOf } from '../../api/types';
import { LimitNotice, UnavailableAction } from '../../components/LimitNotice';
import { Page } from '../../components/Page';
import { limitState, useOrgLimits } from '../../lib/limits';
import { LoadError, Loading } from '../../components/QueryState';
import { conversion } from '../../lib/format';
import { TableWrap } from '../../components/TableWrap';

export default function FormsListPage() {
  const forms = useInfiniteQuery({
    queryKey: queryKeys.forms,
    queryFn: ({ pageParam }) => api.get<PageOf<FormWithCounts>>('/api/org/forms', { query: { limit: 50, cursor: pageParam } }),
    initialPageParam: null as string | null,
    getNextPageParam: (last) => last.nextCursor,
  });
  const items = forms.data?.pages.flatMap((page) => page.items) ?? [];
  const usage = useOrgLimits().data?.forms;

  return (
    <Page
      title="Forms"
      actions={
        !items.length ? null : limitState(usage) === 'reached' ? (
          <UnavailableAction describedBy="forms-limit">New form</UnavailableAction>
        ) : (
          <Link className="button primary" to="/forms/new">
            New form
          </Link>
        )
      }
    >
      <LimitNotice id="forms-limit" usage={usage} noun="forms" holder="your organization" remedy="Delete a form you no longer need" />
      {forms.isPending ? (
        <Loading />
      ) : forms.isError ? (
        <LoadError error={forms.error} retry={() => void forms.refetch()} />
      ) : items.length === 0 ? (
        <div className="empty">
          <h2>No forms yet</h2>
          <p>Create a form to start collecting leads: share its link, or embed it in your site. Every submission lands in your contacts.</p>
          <Link className="button primary" to="/forms/new">
            Create your first form
          </Link>
        </div>
      ) : (
        <>
          <TableWrap label="Forms">
            <table className="stack" role="table">
              <caption className="visually-hidden">Your forms, newest first</caption>
              <thead role="rowgroup">
                <tr role="row">
                  <th scope="col" role="columnheader">
                    Form
                  </th>
                  <th scope="col" role="columnheader">
                    Status
                  </th>
                  <th scope="col" role="columnheader" className="num">
                    Views
                  </th>
                  <th scope="col" role="columnheader" className="num">
                    Submissions
                  </th>
                  <th scope="col" role="columnheader" className="num">
                    Conversion
                  </th>
                  <th scope="col" role="columnheader">
                    <span className="visually-hidden">Links</span>
                  </th>
                </tr>
              </thead>
              <tbody role="rowgroup">
                {items.map((form) => {
                  return (
                    <tr key={form.id} role="row">
                      <td role="cell" className="stack-head">
                        <Link to={`/forms/${form.id}`}>{form.title}</Link>
                        <div className="muted small">/f/{form.slug}</div>
                      </td>
                      <td role="cell" data-label="Status">
                        <span className={form.active ? 'badge on' : 'badge off'}>{form.active ? 'Active' : 'Inactive'}</span>
                      </td>
                      <td role="cell" className="num" data-label="Views">
                        {form.views}
                      </td>
                      <td role="cell" className="num" data-label="Submissions">
                        {form.submissions}
                      </td>
                      <td role="cell" className="num" data-label="Conversion">
                        {conversion(form.views, form.submissions)}
                      </td>
                      <td role="cell">
                        <Link to={`/forms/${form.id}/submissions`} aria-label={`Submissions of ${form.title}`}>
                          Submissions
                        </Link>
                      </td>
                    </tr>
                  );
                })}
              </tbody>
            </table>
          </TableWrap>
          {forms.hasNextPage ? (
            <div className="actions">
              <button type="button" className="button" aria-disabled={forms.isFetchingNextPage} onClick={() => !forms.isFetchingNextPage && void forms.fetchNextPage()}>
                {forms.isFetchingNextPage ? 'Loading…' : 'Show more forms'}
              </button>
            </div>
          ) : null}
          <p className="muted">Conversion is submissions per view, since each form was created.</p>
        </>
      )}
    </Page>
  );
}
