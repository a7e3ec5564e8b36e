import { useMutation, useQuery } from '@tanstack/react-query';
import { useRef, useState, type FormEvent } from 'react';
import { Link } from 'react-router';
import { api } from '../../api/client';
import { useCurrentSession, useSessionActions } from '../../api/session';
import { fetchAll } from '../../api/lists';
import type { DeveloperTool, Session, SessionDeveloper } from '../../api/types';
import { FormError, TextField } from '../../components/fields';
import { Page } from '../../components/Page';
import { LoadError, Loading } from '../../components/QueryState';
import { TableWrap } from '../../components/TableWrap';
import { formatDateTime, plural } from '../../lib/format';
import { useNotify } from '../../lib/notices';
import { useFormErrors } from '../../lib/useFormErrors';
import { useApps } from './apps/apps';

/** How many of the developer's tools the table lists (in the API's order); the Tools page has them all. */
const SHOWN = 20;

/**
 * The developer portal's first page: who they are as a developer, their apps and tools (read through the
 * Developer API with the session), and for a newcomer the next step (register an app, create a tool,
 * publish it). A signed-in operator who is not a developer can become one here.
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
  const apps = useApps();
  // Its own key under ['developer', 'tools']: the Tools pages' changes refresh it, their cache shapes stay theirs.
  const tools = useQuery({ queryKey: ['developer', 'tools', 'overview'], queryFn: () => fetchAll<DeveloperTool>('/api/dev/tools', {}, 5) });
  const published = tools.data?.filter((tool) => tool.status === 'published').length ?? 0;
  return (
    <>
      <section className="card" aria-labelledby="developer-account-title">
        <h2 id="developer-account-title">{developer.name}</h2>
        <p>
          Signed in as {developer.email}. Businesses see “{developer.name}” on your published tools.
        </p>
      </section>
      {apps.data && tools.data && published === 0 ? <NextSteps apps={apps.data.length} tools={tools.data.length} /> : null}
      <section className="card" aria-labelledby="developer-apps-title">
        <h2 id="developer-apps-title">Your apps</h2>
        {apps.isPending ? (
          <Loading label="Loading your apps…" />
        ) : apps.isError ? (
          <LoadError error={apps.error} retry={() => void apps.refetch()} />
        ) : (
          <p>
            {apps.data.length ? `You have ${plural(apps.data.length, 'app')}.` : 'You have no apps yet.'} <Link to="/developer/apps">Manage apps</Link>
          </p>
        )}
      </section>
      <section className="card" aria-labelledby="developer-tools-title">
        <h2 id="developer-tools-title">Your tools</h2>
        {tools.isPending ? (
          <Loading label="Loading your tools…" />
        ) : tools.isError ? (
          <LoadError error={tools.error} retry={() => void tools.refetch()} />
        ) : tools.data.length === 0 ? (
          <p>
            You have no tools yet. <Link to="/developer/tools/new">Create a tool</Link>
          </p>
        ) : (
          <>
            <p>
              {plural(tools.data.length, 'tool')}, {published} published. <Link to="/developer/tools">All tools</Link>
            </p>
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
                  {tools.data.slice(0, SHOWN).map((tool) => (
                    <tr key={tool.id}>
                      <td>
                        <Link to={`/developer/tools/${encodeURIComponent(tool.id)}`}>{tool.name}</Link>
                      </td>
                      <td>{tool.status === 'published' ? (tool.hasUnpublishedChanges ? 'Published, with unpublished changes' : 'Published') : 'Draft'}</td>
                      <td>{formatDateTime(tool.updatedAt)}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </TableWrap>
          </>
        )}
      </section>
    </>
  );
}

/** A newcomer's path, until their first tool is published: each step says whether it is done, the next one links on. */
function NextSteps({ apps, tools }: { apps: number; tools: number }) {
  const steps = [
    { done: apps > 0, text: 'Register an app, for the client id and secret your code uses', to: '/developer/apps', link: 'Go to Apps' },
    { done: tools > 0, text: 'Create a tool: its endpoint, parameters and description', to: '/developer/tools/new', link: 'Create a tool' },
    { done: false, text: 'Test it, then publish it to the catalog', to: '/developer/tools', link: 'Go to Tools' },
  ];
  const next = steps.findIndex((step) => !step.done);
  return (
    <section className="card" aria-labelledby="developer-next-title">
      <h2 id="developer-next-title">Get started</h2>
      <ol className="next-steps">
        {steps.map((step, index) => (
          <li key={step.to}>
            {step.text}
            {step.done ? ' (done)' : index === next ? <> — <Link to={step.to}>{step.link}</Link></> : null}
          </li>
        ))}
      </ol>
    </section>
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
