import type { UseQueryResult } from '@tanstack/react-query';
import type { ReactNode } from 'react';
import { ApiError } from '../api/client';
import { NotFound } from './NotFound';

export function Loading({ label = 'Loading…' }: { label?: string }) {
  return (
    <p className="loading" role="status">
      {label}
    </p>
  );
}

export function LoadError({ error, retry }: { error: unknown; retry?: () => void }) {
  return (
    <div className="form-error" role="alert">
      <p>{error instanceof Error ? error.message : 'Something went wrong.'}</p>
      {retry ? (
        <button type="button" className="button" onClick={retry}>
          Try again
        </button>
      ) : null}
    </div>
  );
}

/**
 * Draws a query's data, or its loading state, or its error as the API worded it; a 404 is the
 * not-found page (`what` names the record: "form", "agent").
 */
export function QueryState<T>({ query, what, children }: { query: UseQueryResult<T>; what?: string; children: (data: T) => ReactNode }) {
  if (query.isPending) return <Loading />;
  if (query.isError) {
    if (query.error instanceof ApiError && query.error.status === 404 && what) return <NotFound what={what} />;
    return <LoadError error={query.error} retry={() => void query.refetch()} />;
  }
  return <>{children(query.data)}</>;
}
