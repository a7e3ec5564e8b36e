import { RouterProvider as AriaRouterProvider } from 'react-aria-components';
import { Outlet, useHref, useNavigate } from 'react-router';
import { Layout } from './Layout';
import { RequireOrganization, RequireOwner, RequireSession } from './RequireSession';

export { Home } from './RequireSession';

/**
 * The signed-in shell, its own chunk: the sign-in and sign-up pages load none of it, nor React Aria (the signed-out
 * pages use none of its components). React Aria's links and menu items navigate through the router.
 */
export default function SignedInShell() {
  const navigate = useNavigate();
  return (
    <AriaRouterProvider navigate={(to) => void navigate(to)} useHref={useHref}>
      <RequireSession>
        <Layout />
      </RequireSession>
    </AriaRouterProvider>
  );
}

/** The operator pages: a person without an organization is sent to /developer. */
export function Organization() {
  return (
    <RequireOrganization>
      <Outlet />
    </RequireOrganization>
  );
}

/** Owners only. */
export function Owner() {
  return (
    <RequireOwner>
      <Outlet />
    </RequireOwner>
  );
}
