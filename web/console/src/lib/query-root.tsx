import { QueryClientProvider } from '@tanstack/react-query';
import { Outlet } from 'react-router';
import { SESSION_KEY } from '../api/session';
import { attachSessionCache, knownSession } from '../api/session-state';
import { createQueryClient } from './query';

/**
 * The console's one query cache and its provider, a route of its own over the pages that use TanStack Query
 * (the signed-in shell, the consent page, a new password, an invitation): loaded when one of them is first
 * opened, so the sign-in and sign-up pages load no TanStack Query (docs/benchmarks.md, issue 37).
 */
export const queryClient = createQueryClient();

/** What this tab already knows of the session (a sign-in just now) is the cache's; each start and end after too. */
const known = knownSession();
if (known !== undefined) queryClient.setQueryData(SESSION_KEY, known);
const forgetRecords = () => queryClient.removeQueries({ predicate: (query) => query.queryKey[0] !== SESSION_KEY[0] });
attachSessionCache({
  start: (session) => {
    forgetRecords();
    queryClient.setQueryData(SESSION_KEY, session);
  },
  end: () => {
    forgetRecords();
    queryClient.setQueryData(SESSION_KEY, null);
  },
});

export default function QueryRoot() {
  return (
    <QueryClientProvider client={queryClient}>
      <Outlet />
    </QueryClientProvider>
  );
}
