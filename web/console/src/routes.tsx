import { Outlet, createBrowserRouter, isRouteErrorResponse, useRouteError, type RouteObject } from 'react-router';
import { AuthLayout } from './components/AuthLayout';
import { NotFound } from './components/NotFound';
import { Page } from './components/Page';
import { page, queries } from './lib/lazy-page';
import { NoticesProvider } from './lib/notices';

/** Notices outlive a navigation (the layouts show them). */
function Root() {
  return (
    <NoticesProvider>
      <Outlet />
    </NoticesProvider>
  );
}

function RouteError() {
  const error = useRouteError();
  if (isRouteErrorResponse(error) && error.status === 404) return <NotFound />;
  // A chunk that no longer exists after a deploy: a reload fetches the new index.html.
  return (
    <main id="main" className="auth-main">
      <Page title="Something went wrong">
        <p>The console hit an unexpected problem. Reload the page to try again.</p>
        <button type="button" className="button primary" onClick={() => location.reload()}>
          Reload
        </button>
      </Page>
    </main>
  );
}

/** The signed-out pages; the signed-in ones (signed-in-routes.tsx) are added under the root when first needed. */
export const routes: RouteObject[] = [
  {
    id: 'root',
    element: <Root />,
    errorElement: <RouteError />,
    // Shown while the first page's chunk loads.
    hydrateFallbackElement: <p className="loading center">Loading…</p>,
    children: [
      {
        element: <AuthLayout />,
        children: [
          { path: 'signup', lazy: page(() => import('./pages/auth/SignUp')) },
          { path: 'signin', lazy: page(() => import('./pages/auth/SignIn')) },
          { path: 'reset-password', lazy: page(() => import('./pages/auth/ResetRequest')) },
          {
            lazy: queries,
            children: [
              { path: 'reset-password/:token', lazy: page(() => import('./pages/auth/ResetConfirm')) },
              { path: 'invitations/:token', lazy: page(() => import('./pages/auth/AcceptInvitation')) },
              // OAuth 2.1 for /mcp: the consent page an MCP host's authorization request lands on (signed in: its own guard).
              { path: 'authorize', lazy: page(() => import('./pages/oauth/Authorize')) },
            ],
          },
        ],
      },
    ],
  },
];

export const createRouter = () =>
  createBrowserRouter(routes, {
    basename: '/app',
    // An address no signed-out page has (every signed-in page, and any unknown one: the shell's not-found page):
    // the signed-in routes are loaded and added once (patching again finds them by id and adds nothing).
    async patchRoutesOnNavigation({ patch }) {
      const { signedInRoutes } = await import('./signed-in-routes');
      patch('root', signedInRoutes);
    },
  });
