import type { RouteObject } from 'react-router';

/**
 * The developer portal's pages (a person with a developer account), mounted by the shell inside the
 * signed-in layout under /app. Each is a client of the Developer API (`/api/dev/*`) with the session.
 */
const page = (load: () => Promise<{ default: React.ComponentType }>): RouteObject['lazy'] => async () => ({ Component: (await load()).default });

export const developerRoutes: RouteObject[] = [
  { path: 'developer', lazy: page(() => import('./Overview')) },
  { path: 'developer/apps', lazy: page(() => import('./apps/Apps')) },
  { path: 'developer/tools', lazy: page(() => import('./tools/ToolsList')) },
  { path: 'developer/tools/new', lazy: page(() => import('./tools/ToolEdit')) },
  { path: 'developer/tools/:id/edit', lazy: page(() => import('./tools/ToolEdit')) },
  { path: 'developer/tools/:id', lazy: page(() => import('./tools/ToolPage')) },
  { path: 'developer/audit-log', lazy: page(() => import('../audit/DeveloperAuditLog')) },
];
