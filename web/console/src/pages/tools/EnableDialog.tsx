import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useRef, useState, type FormEvent } from 'react';
import { useNavigate } from 'react-router';
import { api } from '../../api/client';
import { useAgents } from '../../api/lists';
import { ModalDialog } from '../../components/dialogs';
import { FormError } from '../../components/fields';
import { LoadError, Loading } from '../../components/QueryState';
import { useNotify } from '../../lib/notices';
import { useFormErrors } from '../../lib/useFormErrors';
import { afterInstallationChange, toolKeys } from './api';
import type { CatalogTool, Installation, InstallationInput } from '../../api/types';
import { AgentsFieldset } from './AgentsFieldset';
import { AliasField } from './AliasField';
import { CredentialInputs } from './CredentialInputs';
import { AUTH_LABELS, CREDENTIAL_FIELDS, credentialProblems, credentialsBody, type CredentialValues } from './credentials';
import { agentsBody, settingsProblems } from './patch';

/** Enable a catalog tool: agents, an optional alias, credentials (an oauth2 tool's account is connected afterwards, on its page); then go to the new installation. */
export function EnableDialog({ tool, onClose }: { tool: CatalogTool; onClose: () => void }) {
  const notify = useNotify();
  const client = useQueryClient();
  const navigate = useNavigate();
  const agents = useAgents();
  const formRef = useRef<HTMLFormElement>(null);
  const [draft, setDraft] = useState({ allAgents: true, agentIds: [] as string[], alias: '' });
  const [credentials, setCredentials] = useState<CredentialValues>({});
  const create = useMutation({
    mutationFn: () => {
      const body: InstallationInput = { toolId: tool.id, ...agentsBody(draft) };
      if (draft.alias.trim()) body.alias = draft.alias.trim();
      const creds = credentialsBody(tool.authType, credentials);
      if (creds) body.credentials = creds;
      return api.post<Installation>('/api/org/installations', body);
    },
    onSuccess: (installation) => {
      setCredentials({});
      client.setQueryData(toolKeys.installation(installation.id), installation);
      void afterInstallationChange(client);
      onClose();
      navigate(`/tools/${encodeURIComponent(installation.id)}`);
      notify(
        installation.credentialsSet || installation.authType === 'none'
          ? `“${installation.name}” is enabled.`
          : installation.authType === 'oauth2'
            ? `“${installation.name}” is enabled. Connect an account before agents call it.`
            : `“${installation.name}” is enabled. Add its credentials before agents call it.`,
      );
    },
    onError: () => errors.focusApiError(formRef.current),
  });
  const fields = CREDENTIAL_FIELDS[tool.authType];
  const errors = useFormErrors(['agentIds', 'alias', ...fields.map((f) => `credentials.${f.name}`), 'credentials'], create.error);

  function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    if (create.isPending) return;
    if (errors.check(formRef.current, { ...settingsProblems(draft), ...credentialProblems(tool.authType, credentials) })) create.mutate();
  }

  return (
    <ModalDialog title={`Enable “${tool.name}”`} isOpen onOpenChange={(open) => !open && !create.isPending && onClose()} isDismissable={!create.isPending}>
      {(close) =>
        agents.isPending ? (
          <Loading />
        ) : agents.isError ? (
          <LoadError error={agents.error} retry={() => void agents.refetch()} />
        ) : (
          <form ref={formRef} onSubmit={submit} noValidate aria-label={`Enable ${tool.name}`}>
            <AgentsFieldset
              agents={agents.data}
              allAgents={draft.allAgents}
              agentIds={draft.agentIds}
              onChange={(next) => setDraft((d) => ({ ...d, ...next }))}
              error={errors.error('agentIds')}
            />
            <AliasField
              hint={`Agents call it “${tool.name}” unless you give another name: a letter, then letters, digits, _ or -.`}
              value={draft.alias}
              onChange={(alias) => setDraft((d) => ({ ...d, alias }))}
              error={errors.error('alias')}
            />
            {fields.length ? (
              <fieldset>
                <legend>Credentials: {AUTH_LABELS[tool.authType]}</legend>
                <p className="hint">From your account with the tool’s provider. Stored encrypted and never shown again. You can also add them later.</p>
                <CredentialInputs authType={tool.authType} values={credentials} onChange={setCredentials} error={errors.error} />
              </fieldset>
            ) : tool.authType === 'oauth2' ? (
              <p className="hint">
                After enabling, connect an account: you sign in at {tool.oauth?.authorizationHost ?? 'the tool’s provider'} and approve what the tool asks for
                {tool.oauth?.scopes.length ? <> ({tool.oauth.scopes.join(', ')})</> : null}. Agents cannot call it until you do.
              </p>
            ) : (
              <p className="hint">This tool needs no credentials.</p>
            )}
            <FormError error={errors.general ?? errors.error('credentials')} />
            <div className="actions">
              <button type="submit" className="button primary" aria-disabled={create.isPending}>
                {create.isPending ? 'Enabling…' : 'Enable tool'}
              </button>
              <button type="button" className="button" onClick={() => (create.isPending ? undefined : close())}>
                Cancel
              </button>
            </div>
          </form>
        )
      }
    </ModalDialog>
  );
}
