import type { UseInfiniteQueryResult, InfiniteData } from '@tanstack/react-query';
import type { Page as ListPage } from '../../../api/types';
import { LoadError, Loading } from '../../../components/QueryState';
import { formatDateTime } from '../../../lib/format';
import { diffDefinitions, FIELD_LABELS, oauthFacts, parameterSummary, type Definition } from './definitionDiff';
import { DiffView } from './DiffView';
import type { ToolRevision } from './toolPageApi';

/** Every published revision, newest first: its version, when, whether it is live, and what it changed or held. */
export function RevisionHistory({ query }: { query: UseInfiniteQueryResult<InfiniteData<ListPage<ToolRevision>>> }) {
  const revisions = query.data?.pages.flatMap((page) => page.items) ?? [];
  return (
    <section className="card" aria-labelledby="tool-revisions-title">
      <h2 id="tool-revisions-title">Revision history</h2>
      {query.isPending ? (
        <Loading label="Loading revisions…" />
      ) : query.isError && !revisions.length ? (
        <LoadError error={query.error} retry={() => void query.refetch()} />
      ) : !revisions.length ? (
        <p>Not published yet. Each time you publish a changed definition, a new numbered revision appears here; revisions never change.</p>
      ) : (
        <ol className="tool-revisions">
          {revisions.map((revision, index) => {
            const previous = revisions[index + 1];
            return (
              <li key={revision.id}>
                <h3>
                  Version {revision.version}
                  {revision.live ? (
                    <>
                      {' '}
                      <span className="badge on">Live</span>
                    </>
                  ) : null}
                </h3>
                <p className="small muted">Published {formatDateTime(revision.publishedAt)}</p>
                {previous ? (
                  <details>
                    <summary>Changes from version {previous.version}</summary>
                    <DiffView diff={diffDefinitions(previous, revision)} beforeLabel={`Version ${previous.version}`} afterLabel={`Version ${revision.version}`} label={`Version ${revision.version} changes`} headingLevel={4} />
                  </details>
                ) : null}
                <details>
                  <summary>Definition of version {revision.version}</summary>
                  <DefinitionList definition={revision} />
                </details>
              </li>
            );
          })}
        </ol>
      )}
      {query.isError && revisions.length ? <LoadError error={query.error} retry={() => void query.fetchNextPage()} /> : null}
      {query.hasNextPage ? (
        <div className="actions">
          <button type="button" className="button" aria-disabled={query.isFetchingNextPage || undefined} onClick={() => !query.isFetchingNextPage && void query.fetchNextPage()}>
            {query.isFetchingNextPage ? 'Loading…' : 'Show older revisions'}
          </button>
        </div>
      ) : null}
    </section>
  );
}

function DefinitionList({ definition }: { definition: Definition }) {
  return (
    <dl className="tool-facts">
      {(Object.entries(FIELD_LABELS) as Array<[keyof typeof FIELD_LABELS, string]>).map(([field, label]) => (
        <div key={field} className="tool-fact">
          <dt>{label}</dt>
          <dd>{definition[field] ?? '(none)'}</dd>
        </div>
      ))}
      {oauthFacts(definition.oauth).map((fact) => (
        <div key={fact.field} className="tool-fact">
          <dt>{fact.label}</dt>
          <dd>{fact.value || '(none)'}</dd>
        </div>
      ))}
      <div className="tool-fact">
        <dt>Parameters</dt>
        <dd>
          {definition.parameters.length ? (
            <ul>
              {definition.parameters.map((p) => (
                <li key={p.name}>
                  <code>{p.name}</code>: {parameterSummary(p)}
                </li>
              ))}
            </ul>
          ) : (
            'None'
          )}
        </dd>
      </div>
    </dl>
  );
}
