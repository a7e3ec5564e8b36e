import type { RouteObject } from 'react-router';

/** The conversation pages (the list and a transcript), mounted inside the signed-in layout under /app. The agent page's Playground lives here too. */
const page = (load: () => Promise<{ default: React.ComponentType }>): RouteObject['lazy'] => async () => ({ Component: (await load()).default });

export const conversationRoutes: RouteObject[] = [
  { path: 'conversations', lazy: page(() => import('./Conversations')) },
  { path: 'conversations/:id', lazy: page(() => import('./Transcript')) },
];
