import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useRef, useState, type FormEvent } from 'react';
import { Link, useNavigate, useParams } from 'react-router';
import { api, seg } from '../../api/client';
import { useAgents } from '../../api/lists';
import type { Agent } from '../../api/types';
import { ConfirmButton } from '../../components/dialogs';
import { FormError } from '../../components/fields';
import { Page } from '../../components/Page';
import { LoadError, Loading, QueryState } from '../../components/QueryState';
import { useNotify } from '../../lib/notices';
import { useFormErrors } from '../../lib/useFormErrors';
import { afterInstallationChange, fetchCalls, fetchCatalogTool, fetchInstallation, fetchInstallations, toolKeys } from './api';
import type { Installation } from '../../api/types';
import { AgentsFieldset } from './AgentsFieldset';
import { AliasField } from './AliasField';
import { CallTable } from './CallTable';
import { ConnectionCard } from './ConnectionCard';
import { useConnectedNotice } from './connection';
import { CredentialInputs } from './CredentialInputs';
import { AUTH_LABELS, CREDENTIAL_FIELDS, credentialProblems, credentialsBody, type CredentialValues } from './credentials';
import { installationHint } from './format';
import { draftOf, settingsPatch, settingsProblems } from './patch';
import { TestCall } from './TestCall';
import './tools.css';

/** One installation: its agents and name, its credentials (or an oauth2 tool's connection), a test call, its recent calls; remove it. */
export default function InstallationPage() {
  const { id = '' } = useParams();
  const query = useQuery({ queryKey: toolKeys.installation(id), queryFn: ({ signal }) => fetchInstallation(id, signal) });
  return (
    <QueryState query={query} what="tool">
      {(installation) => <InstallationView installation={installation} />}
    </QueryState>
  );
}

function useSave(installation: Installation) {
  const client = useQueryClient();
  return (saved: Installation) => {
    client.setQueryData(toolKeys.installation(installation.id), saved);
    void afterInstallationChange(client);
  };
}

function InstallationView({ installation }: { installation: Installation }) {
  const notify = useNotify();
  const client = useQueryClient();
  const navigate = useNavigate();
  const agents = useAgents();
  const tool = useQuery({ queryKey: toolKeys.catalogTool(installation.toolId), queryFn: ({ signal }) => fetchCatalogTool(installation.toolId, signal), enabled: installation.enabled, retry: false });
  const title = installation.name ?? installation.toolName ?? 'Withdrawn tool';
  const hint = installationHint(installation);
  useConnectedNotice(`Connected. Your agents can use “${title}” now.`);

  return (
    <Page
      title={title}
      intro={<Link to="/tools">Back to your tools</Link>}
      actions={
        <ConfirmButton
          label="Remove"
          buttonLabel={`Remove tool ${title}`}
          title={`Remove “${title}”?`}
          confirmLabel="Remove tool"
          onConfirm={async () => {
            await api.delete(`/api/org/installations/${seg(installation.id)}`);
            client.removeQueries({ queryKey: toolKeys.installation(installation.id) });
            await afterInstallationChange(client);
            navigate('/tools', { replace: true });
            notify(`“${title}” was removed.`);
          }}
        >
          <p>
            Agents stop calling it at once, and its {installation.authType === 'oauth2' ? 'connection is deleted' : 'credentials are deleted'}. Its past calls stay in the call log.
          </p>
        </ConfirmButton>
      }
    >
      {hint ? <p className="notice">{hint}</p> : null}
      <section className="card tools-section" aria-labelledby="inst-about">
        <h2 id="inst-about">About</h2>
        <dl className="kv">
          <dt>Tool</dt>
          <dd>{installation.toolName ? <code>{installation.toolName}</code> : 'Not published'}</dd>
          <dt>Status</dt>
          <dd>{installation.enabled ? <span className="badge on">Enabled</span> : <span className="badge off">Withdrawn</span>}</dd>
          <dt>Credentials</dt>
          <dd>{installation.authType ? AUTH_LABELS[installation.authType] : '—'}</dd>
          {tool.data ? (
            <>
              <dt>Calls</dt>
              <dd>{tool.data.endpointHost}</dd>
              <dt>By</dt>
              <dd>{tool.data.developer.name}</dd>
              <dt>Description</dt>
              <dd className="pre">{tool.data.description}</dd>
            </>
          ) : null}
        </dl>
      </section>
      {agents.isPending ? (
        <Loading />
      ) : agents.isError ? (
        <LoadError error={agents.error} retry={() => void agents.refetch()} />
      ) : (
        <SettingsForm key={installation.updatedAt} installation={installation} agents={agents.data} />
      )}
      {installation.authType === 'oauth2' ? <ConnectionCard installation={installation} tool={tool.data} /> : <CredentialsCard installation={installation} />}
      <section className="card tools-section" aria-labelledby="inst-test">
        <h2 id="inst-test">Test call</h2>
        {agents.data ? <TestCall installation={installation} agents={agents.data} parameters={tool.data?.parameters} /> : null}
      </section>
      <RecentCalls installation={installation} agents={agents.data} />
    </Page>
  );
}

function SettingsForm({ installation, agents }: { installation: Installation; agents: Agent[] }) {
  const notify = useNotify();
  const saved = useSave(installation);
  const formRef = useRef<HTMLFormElement>(null);
  const [draft, setDraft] = useState(() => draftOf(installation));
  const save = useMutation({
    mutationFn: () => {
      const patch = settingsPatch(installation, draft);
      return patch ? api.patch<Installation>(`/api/org/installations/${seg(installation.id)}`, patch) : Promise.resolve(null);
    },
    onSuccess: (result) => {
      if (!result) return notify('Nothing changed.');
      saved(result);
      notify('Saved.');
    },
    onError: () => errors.focusApiError(formRef.current),
  });
  const errors = useFormErrors(['agentIds', 'alias'], save.error);
  function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    if (save.isPending) return;
    if (errors.check(formRef.current, settingsProblems(draft))) save.mutate();
  }
  return (
    <section className="card tools-section" aria-labelledby="inst-settings">
      <h2 id="inst-settings">Agents and name</h2>
      <form ref={formRef} onSubmit={submit} noValidate aria-labelledby="inst-settings">
        <AgentsFieldset agents={agents} allAgents={draft.allAgents} agentIds={draft.agentIds} onChange={(next) => setDraft((d) => ({ ...d, ...next }))} error={errors.error('agentIds')} />
        <AliasField
          hint={installation.toolName ? `Leave empty to use the tool’s own name, “${installation.toolName}”.` : 'Leave empty to use the tool’s own name.'}
          value={draft.alias}
          onChange={(alias) => setDraft((d) => ({ ...d, alias }))}
          error={errors.error('alias')}
        />
        <FormError error={errors.general} />
        <div className="actions">
          <button type="submit" className="button primary" aria-disabled={save.isPending}>
            {save.isPending ? 'Saving…' : 'Save changes'}
          </button>
        </div>
      </form>
    </section>
  );
}

function CredentialsCard({ installation }: { installation: Installation }) {
  const notify = useNotify();
  const saved = useSave(installation);
  const formRef = useRef<HTMLFormElement>(null);
  const [replacing, setReplacing] = useState(false);
  const [values, setValues] = useState<CredentialValues>({});
  const authType = installation.authType;
  const save = useMutation({
    mutationFn: (credentials: ReturnType<typeof credentialsBody> | null) =>
      api.patch<Installation>(`/api/org/installations/${seg(installation.id)}`, { credentials: credentials ?? null }),
    onSuccess: (result, credentials) => {
      setValues({});
      setReplacing(false);
      saved(result);
      notify(credentials ? 'Credentials saved.' : 'Credentials removed.');
      setTimeout(() => document.getElementById('inst-credentials')?.focus(), 30);
    },
    onError: () => errors.focusApiError(formRef.current),
  });
  const fields = authType ? CREDENTIAL_FIELDS[authType] : [];
  const errors = useFormErrors([...fields.map((f) => `credentials.${f.name}`), 'credentials'], save.error);

  function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    if (save.isPending || !authType) return;
    if (errors.check(formRef.current, credentialProblems(authType, values, true))) save.mutate(credentialsBody(authType, values));
  }

  let body;
  if (!authType) body = <p className="muted">Credentials can be changed once the tool is published again.</p>;
  else if (authType === 'none') body = <p className="muted">This tool needs no credentials.</p>;
  else if (installation.credentialsSet && !replacing)
    body = (
      <>
        <p>
          <span className="badge on">Credentials are set</span> {AUTH_LABELS[authType]}, stored encrypted. They are never shown.
        </p>
        <div className="actions">
          <button type="button" className="button" onClick={() => setReplacing(true)}>
            Replace
          </button>
          <ConfirmButton
            label="Remove"
            buttonLabel="Remove credentials"
            title="Remove the credentials?"
            confirmLabel="Remove credentials"
            className="button danger-outline"
            onConfirm={() => save.mutateAsync(null)}
          >
            <p>Calls to this tool fail until you enter new ones.</p>
          </ConfirmButton>
        </div>
      </>
    );
  else
    body = (
      <form ref={formRef} onSubmit={submit} noValidate aria-label="Credentials">
        <p className="hint">{replacing ? 'The new values replace the stored ones.' : 'Calls fail until you add them.'} They are stored encrypted and never shown again.</p>
        <CredentialInputs authType={authType} values={values} onChange={setValues} error={errors.error} required />
        <FormError error={errors.general ?? errors.error('credentials')} />
        <div className="actions">
          <button type="submit" className="button primary" aria-disabled={save.isPending}>
            {save.isPending ? 'Saving…' : 'Save credentials'}
          </button>
          {replacing ? (
            <button
              type="button"
              className="button"
              onClick={() => {
                setReplacing(false);
                setValues({});
              }}
            >
              Cancel
            </button>
          ) : null}
        </div>
      </form>
    );

  return (
    <section className="card tools-section" aria-labelledby="inst-credentials">
      <h2 id="inst-credentials" tabIndex={-1}>
        Credentials
      </h2>
      {body}
    </section>
  );
}

function RecentCalls({ installation, agents }: { installation: Installation; agents: Agent[] | undefined }) {
  const filters = { agentId: '', toolId: installation.toolId, outcome: '', from: '', to: '', conversationId: '' };
  const calls = useQuery({ queryKey: [...toolKeys.calls(filters), 'recent'], queryFn: ({ signal }) => fetchCalls(filters, null, 10, signal) });
  const installations = useQuery({ queryKey: toolKeys.installations, queryFn: fetchInstallations });
  const items = calls.data?.items ?? [];
  return (
    <section className="card tools-section" aria-labelledby="inst-calls">
      <h2 id="inst-calls">Recent calls</h2>
      {calls.isPending ? (
        <Loading />
      ) : calls.isError ? (
        <LoadError error={calls.error} retry={() => void calls.refetch()} />
      ) : items.length === 0 ? (
        <p className="muted">No calls yet. Run a test call above, or connect an agent.</p>
      ) : (
        <CallTable calls={items} agents={agents} installations={installations.data} label="Recent calls of this tool" />
      )}
      <p>
        <Link to={`/tool-calls?toolId=${encodeURIComponent(installation.toolId)}`}>All calls of this tool</Link>
      </p>
    </section>
  );
}
