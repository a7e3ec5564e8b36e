import { useInfiniteQuery, useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { Link } from 'react-router';
import { FilterActions } from '../../components/FilterActions';
import { Page } from '../../components/Page';
import { LoadError, Loading } from '../../components/QueryState';
import { SelectField, TextField } from '../../components/fields';
import { useAddressFilters } from '../../lib/useAddressFilters';
import { fieldError } from '../../lib/errors';
import { TOOL_CATEGORIES, fetchCatalog, fetchInstallations, toolKeys } from './api';
import type { CatalogTool, Installation } from '../../api/types';
import { AUTH_LABELS } from './credentials';
import { EnableDialog } from './EnableDialog';
import './tools.css';

const CATEGORY_LABELS: Record<string, string> = { crm: 'CRM', ecommerce: 'E-commerce' };
const EMPTY = { q: '', category: '' };
export const categoryLabel = (category: string) => CATEGORY_LABELS[category] ?? category.charAt(0).toUpperCase() + category.slice(1);

/** Add a tool: the public catalog, searched and filtered in the address, a page at a time; Enable opens the form. */
export default function CatalogPage() {
  const { filters, draft, setDraft, filtered, onSubmit, clear: clearFilters } = useAddressFilters(EMPTY);
  const { q, category } = filters;
  const [enabling, setEnabling] = useState<CatalogTool | null>(null);

  const query = useInfiniteQuery({
    queryKey: toolKeys.catalog(q, category),
    queryFn: ({ pageParam, signal }) => fetchCatalog(q, category, pageParam, signal),
    initialPageParam: null as string | null,
    getNextPageParam: (page) => page.nextCursor,
  });
  const installations = useQuery({ queryKey: toolKeys.installations, queryFn: fetchInstallations });
  const installed = new Map<string, Installation>((installations.data ?? []).map((item) => [item.toolId, item]));

  const clear = () => {
    clearFilters();
    setTimeout(() => document.querySelector<HTMLElement>('input[name="q"]')?.focus(), 30);
  };

  const error = query.error;
  const tools = query.data?.pages.flatMap((page) => page.items) ?? [];
  const showMore = () => {
    if (query.isFetchingNextPage) return;
    const shown = tools.length;
    void query.fetchNextPage().then((result) => {
      if (result.isError) return;
      setTimeout(() => document.querySelectorAll<HTMLElement>('[data-tool-heading]')[shown]?.focus(), 30);
    });
  };

  return (
    <Page title="Add a tool" intro={<Link to="/tools">Back to your tools</Link>}>
      <form role="search" aria-label="Catalog" className="crm-filters" onSubmit={onSubmit} noValidate>
        <TextField label="Search" hint="Name or description" type="search" name="q" value={draft.q} maxLength={100} onChange={(e) => setDraft({ ...draft, q: e.target.value })} error={fieldError(error, 'q')} />
        <SelectField label="Category" name="category" value={draft.category} onChange={(e) => setDraft({ ...draft, category: e.target.value })}>
          <option value="">All categories</option>
          {TOOL_CATEGORIES.map((c) => (
            <option key={c} value={c}>
              {categoryLabel(c)}
            </option>
          ))}
        </SelectField>
        <FilterActions filtered={filtered} onClear={clear} />
      </form>

      {query.isPending ? (
        <Loading label="Loading the catalog…" />
      ) : query.isError && !tools.length ? (
        fieldError(error, 'q') ? null : <LoadError error={error} retry={() => void query.refetch()} />
      ) : tools.length === 0 ? (
        <div className="empty">
          {filtered ? (
            <>
              <p>No tools match. Try other words or another category.</p>
              <button type="button" className="button" onClick={clear}>
                Clear filters
              </button>
            </>
          ) : (
            <p>The catalog is empty for now. Tools appear here once developers publish them.</p>
          )}
        </div>
      ) : (
        <>
          <p className="visually-hidden" role="status">
            {`${tools.length}${query.hasNextPage ? ' or more' : ''} tool${tools.length === 1 && !query.hasNextPage ? '' : 's'} shown`}
          </p>
          <ul className="tools-catalog" aria-label="Catalog tools">
            {tools.map((tool) => (
              <li key={tool.id}>
                <CatalogCard tool={tool} installation={installed.get(tool.id)} onEnable={() => setEnabling(tool)} />
              </li>
            ))}
          </ul>
          {query.isError ? <LoadError error={error} retry={() => void query.fetchNextPage()} /> : null}
          {query.hasNextPage ? (
            <div className="actions">
              <button type="button" className="button" aria-disabled={query.isFetchingNextPage || undefined} onClick={showMore}>
                {query.isFetchingNextPage ? 'Loading more…' : 'Show more tools'}
              </button>
            </div>
          ) : null}
        </>
      )}
      {enabling ? <EnableDialog tool={enabling} onClose={() => setEnabling(null)} /> : null}
    </Page>
  );
}

function CatalogCard({ tool, installation, onEnable }: { tool: CatalogTool; installation: Installation | undefined; onEnable: () => void }) {
  const headingId = `tool-${tool.id}`;
  return (
    <article className="card" aria-labelledby={headingId}>
      <h2 id={headingId} tabIndex={-1} data-tool-heading>
        <code>{tool.name}</code>
      </h2>
      <p className="muted small tools-card-meta">
        {categoryLabel(tool.category)} · {AUTH_LABELS[tool.authType]}
        {tool.oauth ? ` at ${tool.oauth.authorizationHost}` : ''} · by {tool.developer.name} · calls {tool.endpointHost}
      </p>
      <p className="pre">{tool.description}</p>
      {tool.parameters.length ? (
        <details className="history">
          <summary>Parameters ({tool.parameters.length})</summary>
          <ul className="tools-params">
            {tool.parameters.map((p) => (
              <li key={p.name}>
                <code>{p.name}</code> <span className="muted">({p.type === 'array' ? `list of ${p.items ?? 'values'}` : p.type}{p.required ? ', required' : ', optional'})</span>: {p.description}
              </li>
            ))}
          </ul>
        </details>
      ) : (
        <p className="muted small">No parameters.</p>
      )}
      <div className="tools-card-actions">
        {installation ? (
          <>
            <span className="badge on">Enabled</span>{' '}
            <Link className="button small" to={`/tools/${encodeURIComponent(installation.id)}`} aria-label={`Open ${tool.name}`}>
              Open
            </Link>
          </>
        ) : (
          <button type="button" className="button primary" aria-label={`Enable ${tool.name}`} onClick={onEnable}>
            Enable
          </button>
        )}
      </div>
    </article>
  );
}
