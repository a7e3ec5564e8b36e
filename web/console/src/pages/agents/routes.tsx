import { Navigate, type RouteObject } from 'react-router';

/**
 * The agents pages, mounted by the shell inside the signed-in layout under /app. An agent's page is a shared
 * header (name, Delete, back to agents, the tab list: AgentPage) over four sub-pages with their own addresses;
 * `/agents/{id}` is replaced by the first, so Back never lands on an address that only redirects.
 */
const page = (load: () => Promise<{ default: React.ComponentType }>): RouteObject['lazy'] => async () => ({ Component: (await load()).default });

export const agentRoutes: RouteObject[] = [
  { path: 'agents', lazy: page(() => import('./Agents')) },
  { path: 'agents/new', lazy: page(() => import('./NewAgent')) },
  {
    path: 'agents/:id',
    children: [
      { index: true, element: <Navigate to="brand" replace /> },
      {
        lazy: page(() => import('./AgentPage')),
        children: [
          { path: 'brand', lazy: page(() => import('./BrandTab')) },
          { path: 'model', lazy: page(() => import('./ModelTab')) },
          { path: 'chat', lazy: page(() => import('./ChatTab')) },
          { path: 'tools', lazy: page(() => import('./ToolsTab')) },
        ],
      },
    ],
  },
];
