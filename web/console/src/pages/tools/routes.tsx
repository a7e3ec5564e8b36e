import type { RouteObject } from 'react-router';

/**
 * The tools pages (installations, the catalog, the call log), mounted by the shell inside the signed-in
 * layout under /app. The agent page's "Tools and MCP" section lives here too (AgentToolsSection).
 */
const page = (load: () => Promise<{ default: React.ComponentType }>): RouteObject['lazy'] => async () => ({ Component: (await load()).default });

export const toolsRoutes: RouteObject[] = [
  { path: 'tools', lazy: page(() => import('./Tools')) },
  { path: 'tools/catalog', lazy: page(() => import('./Catalog')) },
  { path: 'tools/:id', lazy: page(() => import('./Installation')) },
  { path: 'tool-calls', lazy: page(() => import('./ToolCalls')) },
];
