import type { RouteObject } from 'react-router';

/**
 * The CRM pages (contacts, pipelines, custom fields), mounted by the shell inside the signed-in
 * layout under /app. Each page is its own lazily loaded module exporting a default component.
 * This folder is the CRM's: the shell depends on `crmRoutes` only.
 */
const page = (load: () => Promise<{ default: React.ComponentType }>): RouteObject['lazy'] => async () => ({ Component: (await load()).default });

export const crmRoutes: RouteObject[] = [
  { path: 'contacts', lazy: page(() => import('./Contacts')) },
  { path: 'contacts/:id', lazy: page(() => import('./Contact')) },
  { path: 'pipelines', lazy: page(() => import('./Pipelines')) },
  { path: 'pipelines/:id', lazy: page(() => import('./Pipeline')) },
  { path: 'custom-fields', lazy: page(() => import('./CustomFields')) },
];
