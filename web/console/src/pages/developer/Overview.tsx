import { useMutation, useQuery } from '@tanstack/react-query';
import { useRef, useState, type FormEvent } from 'react';
import { api } from '../../api/client';
import { useCurrentSession, useSessionActions } from '../../api/session';
import type { DeveloperTool, Page as ListPage, Session, SessionDeveloper } from '../../api/types';
import { FormError, TextField } from '../../components/fields';
import { Page } from '../../components/Page';
import { LoadError, Loading } from '../../components/QueryState';
import { TableWrap } from '../../components/TableWrap';
import { formatDateTime } from '../../lib/format';
import { useNotify } from '../../lib/notices';
import { useFormErrors } from '../../lib/useFormErrors';

/** How many of the developer's tools this page lists (newest first); the tools pages come with the portal. */
const SHOWN = 20;

/**
 * The developer's page: who they are as a developer and their tools, read through the Developer API
 * with the session. A signed-in operator who is not a developer can become one here.
 */
export default function DeveloperPage() {
  const session = useCurrentSession();
  return (
    <Page title="Developer" intro="Tools you build for businesses' AI agents, through the Developer API.">
      {session.developer ? <DeveloperAccount developer={session.developer} /> : <BecomeDeveloper />}
    </Page>
  );
}

function DeveloperAccount({ developer }: { developer: SessionDeveloper }) {
  const tools = useQuery({ queryKey: ['developer', 'tools'], queryFn: () => api.get<ListPage<DeveloperTool>>(`/api/dev/tools?limit=${SHOWN}`) });
  return (
    <>
      <section className="card" aria-labelledby="developer-account-title">
        <h2 id="developer-account-title">{developer.name}</h2>
        <p>
          Signed in as {developer.email}. Businesses see “{developer.name}” on your published tools.
        </p>
      </section>
      <section className="card" aria-labelledby="developer-tools-title">
        <h2 id="developer-tools-title">Your tools</h2>
        {tools.isPending ? (
          <Loading label="Loading your tools…" />
        ) : tools.isError ? (
          <LoadError error={tools.error} retry={() => void tools.refetch()} />
        ) : tools.data.items.length === 0 ? (
          <p>You have no tools yet. Create one with POST /api/dev/tools (docs/developer-api.md).</p>
        ) : (
          <TableWrap label="Your tools, scrollable">
            <table aria-labelledby="developer-tools-title">
              <thead>
                <tr>
                  <th scope="col">Name</th>
                  <th scope="col">Status</th>
                  <th scope="col">Updated</th>
                </tr>
              </thead>
              <tbody>
                {tools.data.items.map((tool) => (
                  <tr key={tool.id}>
                    <td>{tool.name}</td>
                    <td>{tool.status === 'published' ? (tool.hasUnpublishedChanges ? 'Published, with unpublished changes' : 'Published') : 'Draft'}</td>
                    <td>{formatDateTime(tool.updatedAt)}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </TableWrap>
        )}
        {tools.data?.nextCursor ? <p>Showing your {SHOWN} newest tools.</p> : null}
      </section>
    </>
  );
}

/** An operator becomes a developer too: same email and password, a display name for the catalog. */
function BecomeDeveloper() {
  const session = useCurrentSession();
  const { start } = useSessionActions();
  const notify = useNotify();
  const formRef = useRef<HTMLFormElement>(null);
  const [name, setName] = useState(session.user.name);
  const become = useMutation({
    mutationFn: () => api.post<Session>('/api/auth/developer', { name: name.trim() }),
    onSuccess: (data) => {
      start(data);
      notify('You are a developer now.');
    },
    onError: () => errors.focusApiError(formRef.current),
  });
  const errors = useFormErrors(['name'], become.error);

  function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    if (become.isPending) return;
    if (errors.check(formRef.current, { name: name.trim() ? null : 'Enter the name businesses will see on your tools.' })) become.mutate();
  }

  return (
    <section className="card" aria-labelledby="become-developer-title">
      <h2 id="become-developer-title">Become a developer</h2>
      <p>Publish tools that AI agents call. You keep this sign-in: the same email and password.</p>
      <form ref={formRef} onSubmit={submit} noValidate>
        <TextField label="Developer name" name="name" hint="Shown on your tools in the catalog." value={name} onChange={(e) => setName(e.target.value)} error={errors.error('name')} />
        <FormError error={errors.general} />
        <button type="submit" className="button primary" aria-disabled={become.isPending}>
          {become.isPending ? 'Creating…' : 'Become a developer'}
        </button>
      </form>
    </section>
  );
}
