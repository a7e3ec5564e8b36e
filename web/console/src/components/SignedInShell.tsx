import { Layout } from './Layout';
import { RequireSession } from './RequireSession';

/** The signed-in shell, its own chunk: the sign-in and sign-up pages load none of it. */
export default function SignedInShell() {
  return (
    <RequireSession>
      <Layout />
    </RequireSession>
  );
}
