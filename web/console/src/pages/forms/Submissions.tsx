import { useInfiniteQuery, useQuery } from '@tanstack/react-query';
import { Link, useParams } from 'react-router';
import { api, seg } from '../../api/client';
import { queryKeys, useCustomFields } from '../../api/lists';
import type { FormWithCounts, Page as PageOf, Submission } from '../../api/types';
import { BUILT_IN_FIELDS } from '../../api/types';
import { Page } from '../../components/Page';
import { LoadError, Loading, QueryState } from '../../components/QueryState';
import { displayValue, formatDateTime } from '../../lib/format';
import { FIELD_LABELS } from './formBody';
import { FormStatsPanel } from './FormStatsPanel';

/** /forms/:id/submissions: what each visitor sent, the consent they agreed to, and a CSV of all of it. */
export default function SubmissionsPage() {
  const { id = '' } = useParams();
  const form = useQuery({ queryKey: queryKeys.form(id), queryFn: () => api.get<FormWithCounts>(`/api/org/forms/${seg(id)}`) });
  return (
    <QueryState query={form} what="form">
      {(data) => <SubmissionList form={data} />}
    </QueryState>
  );
}

function SubmissionList({ form }: { form: FormWithCounts }) {
  const definitions = useCustomFields();
  const labels = new Map((definitions.data ?? []).map((d) => [d.key, d.label]));
  const submissions = useInfiniteQuery({
    queryKey: queryKeys.submissions(form.id),
    queryFn: ({ pageParam }) => api.get<PageOf<Submission>>(`/api/org/forms/${seg(form.id)}/submissions`, { query: { limit: 25, cursor: pageParam } }),
    initialPageParam: null as string | null,
    getNextPageParam: (last) => last.nextCursor,
  });
  const items = submissions.data?.pages.flatMap((page) => page.items) ?? [];
  const exportUrl = `/api/org/forms/${seg(form.id)}/submissions/export`;

  return (
    <Page
      title={`Submissions: ${form.title}`}
      actions={
        <>
          {items.length ? (
            <a className="button" href={exportUrl} download>
              Download CSV
            </a>
          ) : null}
          <Link className="button" to={`/forms/${form.id}`}>
            Edit form
          </Link>
        </>
      }
      intro={`${form.submissions} in all, newest first. Each one keeps the consent text its visitor agreed to.`}
    >
      <FormStatsPanel formId={form.id} />
      {submissions.isPending ? (
        <Loading />
      ) : submissions.isError ? (
        <LoadError error={submissions.error} retry={() => void submissions.refetch()} />
      ) : items.length === 0 ? (
        <div className="empty">
          <h2>No submissions yet</h2>
          <p>
            {form.active
              ? 'Share the form’s link or embed it in your site: each lead will show up here and in your contacts.'
              : 'This form is inactive. Activate it and share its link to start collecting leads.'}
          </p>
          <Link className="button primary" to={`/forms/${form.id}`}>
            {form.active ? 'Get the link and embed code' : 'Open the form'}
          </Link>
        </div>
      ) : (
        <>
          <ol className="submissions" aria-label="Submissions">
            {items.map((submission) => (
              <li key={submission.id}>
                <SubmissionCard submission={submission} labels={labels} />
              </li>
            ))}
          </ol>
          {submissions.hasNextPage ? (
            <div className="actions">
              <button
                type="button"
                className="button"
                aria-disabled={submissions.isFetchingNextPage}
                onClick={() => !submissions.isFetchingNextPage && void submissions.fetchNextPage()}
              >
                {submissions.isFetchingNextPage ? 'Loading…' : 'Show more submissions'}
              </button>
            </div>
          ) : null}
        </>
      )}
    </Page>
  );
}

function SubmissionCard({ submission, labels }: { submission: Submission; labels: Map<string, string> }) {
  const values = BUILT_IN_FIELDS.filter((name) => submission.values[name]);
  const custom = Object.entries(submission.custom);
  const utm = Object.entries(submission.metadata).filter(([key]) => key.startsWith('utm_'));
  const who = submission.values.name || submission.values.email || submission.values.phone || 'A visitor';
  return (
    <article className="card" aria-labelledby={`sub-${submission.id}`}>
      <h2 id={`sub-${submission.id}`} className="card-title">
        {who} <span className="muted small">· {formatDateTime(submission.createdAt)}</span>
      </h2>
      <dl className="kv">
        {values.map((name) => (
          <Row key={name} label={FIELD_LABELS[name]} value={submission.values[name]} />
        ))}
        {custom.map(([key, value]) => (
          <Row key={`c-${key}`} label={labels.get(key) ?? key} value={displayValue(value)} />
        ))}
        {utm.length ? <Row label="Campaign" value={utm.map(([key, value]) => `${key}=${value}`).join(', ')} /> : null}
        <Row label="Submitted" value={formatDateTime(submission.createdAt)} />
      </dl>
      <details className="history">
        <summary>Consent version {submission.consentVersion}</summary>
        <p className="pre">{submission.consentText ?? 'The text of this version was not recorded.'}</p>
      </details>
      <p className="small">
        <Link to={`/contacts/${submission.contactId}`}>Open the contact</Link>
      </p>
    </article>
  );
}

function Row({ label, value }: { label: string; value: string | undefined }) {
  return (
    <>
      <dt>{label}</dt>
      <dd className="pre">{value || '—'}</dd>
    </>
  );
}
