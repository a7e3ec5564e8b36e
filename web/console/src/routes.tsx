import type { ComponentType } from 'react';
import { Outlet, createBrowserRouter, isRouteErrorResponse, useHref, useNavigate, useRouteError, type RouteObject } from 'react-router';
import { RouterProvider as AriaRouterProvider } from 'react-aria-components';
import { AuthLayout } from './components/AuthLayout';
import { NotFound } from './components/NotFound';
import { Page } from './components/Page';
import { Home, RequireOrganization, RequireOwner } from './components/RequireSession';
import { NoticesProvider } from './lib/notices';
import { agentRoutes } from './pages/agents/routes';
import { crmRoutes } from './pages/crm/routes';
import { toolsRoutes } from './pages/tools/routes';
import { conversationRoutes } from './pages/conversations/routes';
import { inboxRoutes } from './pages/inbox/routes';
import { developerRoutes } from './pages/developer/routes';

/** Each page is its own chunk, loaded when first visited. */
const page = (load: () => Promise<{ default: ComponentType }>): RouteObject['lazy'] => async () => ({ Component: (await load()).default });

/** React Aria's links and menu items navigate through the router; notices outlive a navigation (the layouts show them). */
function Root() {
  const navigate = useNavigate();
  return (
    <AriaRouterProvider navigate={(to) => void navigate(to)} useHref={useHref}>
      <NoticesProvider>
        <Outlet />
      </NoticesProvider>
    </AriaRouterProvider>
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

function Organization() {
  return (
    <RequireOrganization>
      <Outlet />
    </RequireOrganization>
  );
}

function Owner() {
  return (
    <RequireOwner>
      <Outlet />
    </RequireOwner>
  );
}

export const routes: RouteObject[] = [
  {
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
          { path: 'reset-password/:token', lazy: page(() => import('./pages/auth/ResetConfirm')) },
          { path: 'invitations/:token', lazy: page(() => import('./pages/auth/AcceptInvitation')) },
          // OAuth 2.1 for /mcp: the consent page an MCP host's authorization request lands on (signed in: its own guard).
          { path: 'authorize', lazy: page(() => import('./pages/oauth/Authorize')) },
        ],
      },
      {
        lazy: page(() => import('./components/SignedInShell')),
        children: [
          { index: true, element: <Home /> },
          ...developerRoutes,
          { path: 'settings', lazy: page(() => import('./pages/Settings')) },
          {
            // The operator pages: a person without an organization is sent to /developer.
            element: <Organization />,
            children: [
              { path: 'forms', lazy: page(() => import('./pages/forms/FormsList')) },
              { path: 'forms/new', lazy: page(() => import('./pages/forms/FormEdit')) },
              { path: 'forms/:id', lazy: page(() => import('./pages/forms/FormEdit')) },
              { path: 'forms/:id/submissions', lazy: page(() => import('./pages/forms/Submissions')) },
              ...crmRoutes,
              ...agentRoutes,
              ...toolsRoutes,
              ...inboxRoutes,
              ...conversationRoutes,
              { path: 'settings/model-providers', lazy: page(() => import('./pages/models/ModelProviders')) },
              {
                element: <Owner />,
                children: [
                  { path: 'api-keys', lazy: page(() => import('./pages/ApiKeys')) },
                  { path: 'members', lazy: page(() => import('./pages/Members')) },
                  { path: 'webhooks', lazy: page(() => import('./pages/webhooks/Webhooks')) },
                  { path: 'webhooks/:id', lazy: page(() => import('./pages/webhooks/Deliveries')) },
                  { path: 'audit-log', lazy: page(() => import('./pages/audit/OrgAuditLog')) },
                ],
              },
            ],
          },
          { path: '*', element: <NotFound /> },
        ],
      },
    ],
  },
];

export const createRouter = () => createBrowserRouter(routes, { basename: '/app' });
