import type { ComponentType } from 'react';
import type { RouteObject } from 'react-router';
import { NotFound } from './components/NotFound';
import { agentRoutes } from './pages/agents/routes';
import { conversationRoutes } from './pages/conversations/routes';
import { crmRoutes } from './pages/crm/routes';
import { developerRoutes } from './pages/developer/routes';
import { inboxRoutes } from './pages/inbox/routes';
import { toolsRoutes } from './pages/tools/routes';
import { page, queries } from './lib/lazy-page';

/**
 * The signed-in pages' routes (the shell, every operator and developer page), a chunk of their own: added under
 * the root by the router's `patchRoutesOnNavigation` (routes.tsx) the first time an address outside the
 * signed-out pages is opened, so the sign-in page's chunks carry none of them, nor their imports' list.
 */

/** What a module exports under another name than `default` (the shell's guards), as a route's Component. */
const part =
  <M,>(load: () => Promise<M>, pick: (module: M) => ComponentType): RouteObject['lazy'] =>
  async () => ({ Component: pick(await load()) });
const shell = () => import('./components/SignedInShell');

export const signedInRoutes: RouteObject[] = [
  {
    // Its id: patched in once (routes.tsx), found again by it on a later patch.
    id: 'signed-in',
    lazy: queries,
    children: [
      {
        lazy: page(shell),
        children: [
          { index: true, lazy: part(shell, (m) => m.Home) },
          ...developerRoutes,
          { path: 'settings', lazy: page(() => import('./pages/Settings')) },
          {
            // The operator pages: a person without an organization is sent to /developer.
            lazy: part(shell, (m) => m.Organization),
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
                lazy: part(shell, (m) => m.Owner),
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
