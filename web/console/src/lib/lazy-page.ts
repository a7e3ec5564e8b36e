import type { ComponentType } from 'react';
import type { RouteObject } from 'react-router';

/** Each page is its own chunk, loaded when first visited. */
export const page = (load: () => Promise<{ default: ComponentType }>): RouteObject['lazy'] => async () => ({ Component: (await load()).default });

/** The query cache's provider (lib/query-root.tsx) over the pages that use TanStack Query; sign-in, sign-up and a reset request use none. */
export const queries = page(() => import('./query-root'));
