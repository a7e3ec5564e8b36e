import type { RouteObject } from 'react-router';

/** The Inbox (issue 35), mounted inside the signed-in layout under /app: the three views, and one conversation. */
const page = (load: () => Promise<{ default: React.ComponentType }>): RouteObject['lazy'] => async () => ({ Component: (await load()).default });

export const inboxRoutes: RouteObject[] = [
  { path: 'inbox', lazy: page(() => import('./Inbox')) },
  { path: 'inbox/:conversationId', lazy: page(() => import('./InboxConversation')) },
];
