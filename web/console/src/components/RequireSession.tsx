import type { ReactNode } from 'react';
import { Navigate, useLocation } from 'react-router';
import { hasSignedOut, homeOf, isKnownBrowser, useSession } from '../api/session';
import { Page } from './Page';
import { LoadError, Loading } from './QueryState';

/** Signed in: the children. Not signed in: to sign-in (or sign-up, the first time in this browser), back here after. */
export function RequireSession({ children }: { children: ReactNode }) {
  const session = useSession();
  const location = useLocation();
  if (session.isPending) return <Loading label="Checking your session…" />;
  if (session.isError) return <main className="center"><LoadError error={session.error} retry={() => void session.refetch()} /></main>;
  if (!session.data) {
    if (hasSignedOut()) return <Navigate to="/signin" replace />;
    const next = `${location.pathname}${location.search}`;
    const to = isKnownBrowser() || location.pathname !== '/' ? '/signin' : '/signup';
    return <Navigate to={next === '/' ? to : `${to}?next=${encodeURIComponent(next)}`} replace />;
  }
  return <>{children}</>;
}

/** Owners only (members, invitations, API keys): a member is told so instead of seeing a refusal. */
export function RequireOwner({ children }: { children: ReactNode }) {
  const session = useSession();
  if (session.data?.user.role !== 'owner') {
    return (
      <Page title="Owners only">
        <p>Only an owner of {session.data?.organization?.name ?? 'the organization'} can manage this. Ask an owner if you need a change here.</p>
      </Page>
    );
  }
  return <>{children}</>;
}

/** The operator pages: a person without an organization (a developer only) is sent to the Developer page. */
export function RequireOrganization({ children }: { children: ReactNode }) {
  const session = useSession();
  if (session.data && !session.data.organization) return <Navigate to="/developer" replace />;
  return <>{children}</>;
}

/** `/`: where this person starts (homeOf). */
export function Home() {
  const session = useSession();
  return <Navigate to={session.data ? homeOf(session.data) : '/forms'} replace />;
}
