import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useId, useRef, useState, type FormEvent } from 'react';
import { Link } from 'react-router';
import { api, seg } from '../../api/client';
import { CopyButton } from '../../components/CopyButton';
import { ConfirmButton } from '../../components/dialogs';
import { FormError, TextField } from '../../components/fields';
import { LoadError, Loading } from '../../components/QueryState';
import { ShownOnce } from '../../components/ShownOnce';
import { TableWrap } from '../../components/TableWrap';
import { formatDateTime } from '../../lib/format';
import { useNotify } from '../../lib/notices';
import { useFormErrors } from '../../lib/useFormErrors';
import { fetchAgentKeys, fetchAgentTools, fetchInstallations, toolKeys } from './api';
import type { AgentKey, CreatedAgentKey, Installation } from '../../api/types';
import { ConnectedApps, McpUrl } from './ConnectedApps';
import { connectionStatus, mcpConfig } from './format';
import './tools.css';
import { usePublicUrl } from '../../api/session';

/** The agent page's "Tools and MCP": the tools it can call now, the URL for MCP hosts and the apps connected through it, and its agent keys for scripts and other MCP clients. */
export function AgentToolsSection({ agentId, agentName }: { agentId: string; agentName: string }) {
  return (
    <section className="card tools-section" aria-labelledby="sec-agent-tools">
      <h2 id="sec-agent-tools">Tools and MCP</h2>
      <AgentTools agentId={agentId} />
      <McpUrl />
      <ConnectedApps agentId={agentId} agentName={agentName} />
      <AgentKeys agentId={agentId} agentName={agentName} />
    </section>
  );
}

/** The installation each name this agent calls stands for (an installation's `name` is unique in the organization). */
function installationsByName(installations: Installation[] | undefined, agentId: string): Map<string, Installation> {
  const out = new Map<string, Installation>();
  for (const item of installations ?? []) {
    if (item.name && (item.allAgents || item.agentIds.includes(agentId))) out.set(item.name, item);
  }
  return out;
}

/** An oauth2 tool whose account is not (or no longer) connected: what it needs, and the link to its page to do it. */
function ConnectionState({ installation }: { installation: Installation | undefined }) {
  const status = installation ? connectionStatus(installation) : null;
  if (!installation || !status || status === 'connected') return null;
  const reconnect = status === 'needs_reconnect';
  const name = installation.name ?? installation.toolName ?? '';
  return (
    <span className="tools-tool-state">
      {' '}
      <strong>{reconnect ? 'Needs reconnecting' : 'No account connected'}</strong>:{' '}
      <Link to={`/tools/${encodeURIComponent(installation.id)}`} aria-label={`${reconnect ? 'Reconnect' : 'Connect'} ${name}`}>
        {reconnect ? 'Reconnect' : 'Connect'}
      </Link>
    </span>
  );
}

function AgentTools({ agentId }: { agentId: string }) {
  const tools = useQuery({ queryKey: toolKeys.agentTools(agentId), queryFn: ({ signal }) => fetchAgentTools(agentId, signal) });
  const installations = useQuery({ queryKey: toolKeys.installations, queryFn: fetchInstallations });
  const byName = installationsByName(installations.data, agentId);
  return (
    <>
      <h3>Tools it can call</h3>
      {tools.isPending ? (
        <Loading />
      ) : tools.isError ? (
        <LoadError error={tools.error} retry={() => void tools.refetch()} />
      ) : tools.data.tools.length === 0 ? (
        <p className="muted">
          None yet. <Link to="/tools/catalog">Add a tool</Link> for this agent or for all agents.
        </p>
      ) : (
        <ul className="tools-params" aria-label="Tools this agent can call">
          {tools.data.tools.map((tool) => (
            <li key={tool.name}>
              <code>{tool.name}</code>: {tool.description}
              <ConnectionState installation={byName.get(tool.name)} />
            </li>
          ))}
        </ul>
      )}
    </>
  );
}

function AgentKeys({ agentId, agentName }: { agentId: string; agentName: string }) {
  const client = useQueryClient();
  const keys = useQuery({ queryKey: toolKeys.agentKeys(agentId), queryFn: () => fetchAgentKeys(agentId) });
  const formRef = useRef<HTMLFormElement>(null);
  const [name, setName] = useState('');
  const [created, setCreated] = useState<CreatedAgentKey | null>(null);
  const snippetId = useId();
  const create = useMutation({
    mutationFn: () => api.post<CreatedAgentKey>(`/api/org/agents/${seg(agentId)}/keys`, { name: name.trim() }),
    onSuccess: (key) => {
      setCreated(key);
      setName('');
      void client.invalidateQueries({ queryKey: toolKeys.agentKeys(agentId) });
    },
    onError: () => errors.focusApiError(formRef.current),
  });
  const errors = useFormErrors(['name'], create.error);

  function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    if (create.isPending) return;
    if (errors.check(formRef.current, { name: name.trim() ? null : 'Say where the key is used, like “Claude Desktop”.' })) create.mutate();
  }

  const publicUrl = usePublicUrl();
  const config = created ? mcpConfig(publicUrl, created.key) : '';
  return (
    <>
      <h3>Agent keys</h3>
      <p className="hint">
        An agent key lets an MCP client, such as Claude Desktop, call {agentName}’s tools at <code>{publicUrl}/mcp</code>, and nothing else.
      </p>
      {created ? (
        <ShownOnce
          titleId="new-agent-key-title"
          title={<>Your new agent key “{created.name}”</>}
          level={4}
          secret={created.key}
          secretLabel="The new agent key"
          actions={<CopyButton text={config} label="Copy configuration" className="button" />}
          onDone={() => setCreated(null)}
        >
          <div className="field snippet-field">
            <label htmlFor={snippetId}>MCP client configuration</label>
            <textarea id={snippetId} className="snippet" readOnly rows={9} value={config} onFocus={(e) => e.target.select()} />
          </div>
        </ShownOnce>
      ) : null}
      <form ref={formRef} onSubmit={submit} noValidate className="row" aria-label="Create an agent key">
        <TextField label="Where is it used?" name="name" maxLength={100} placeholder="Claude Desktop" value={name} onChange={(e) => setName(e.target.value)} error={errors.error('name')} />
        <div className="field">
          <button type="submit" className="button primary" aria-disabled={create.isPending}>
            {create.isPending ? 'Creating…' : 'Create agent key'}
          </button>
        </div>
      </form>
      <FormError error={errors.general} />
      {keys.isPending ? (
        <Loading />
      ) : keys.isError ? (
        <LoadError error={keys.error} retry={() => void keys.refetch()} />
      ) : keys.data.length === 0 ? (
        <p className="muted">No agent keys.</p>
      ) : (
        <KeyTable keys={keys.data} agentId={agentId} onRevoked={() => void client.invalidateQueries({ queryKey: toolKeys.agentKeys(agentId) })} />
      )}
    </>
  );
}

function KeyTable({ keys, agentId, onRevoked }: { keys: AgentKey[]; agentId: string; onRevoked: () => void }) {
  const notify = useNotify();
  return (
    <TableWrap label="Agent keys">
      <table>
        <thead>
          <tr>
            <th scope="col">Name</th>
            <th scope="col">Ends in</th>
            <th scope="col" className="tools-hide-narrow">
              Created
            </th>
            <th scope="col">Last used</th>
            <th scope="col">
              <span className="visually-hidden">Actions</span>
            </th>
          </tr>
        </thead>
        <tbody>
          {keys.map((key) => (
            <tr key={key.id}>
              <td className="tools-wrap">{key.name}</td>
              <td>
                <code>…{key.lastFour}</code>
              </td>
              <td className="tools-hide-narrow">{formatDateTime(key.createdAt)}</td>
              <td>{key.lastUsedAt ? formatDateTime(key.lastUsedAt) : 'Never'}</td>
              <td>
                <ConfirmButton
                  label="Revoke"
                  buttonLabel={`Revoke agent key ${key.name}`}
                  title={`Revoke “${key.name}”?`}
                  confirmLabel="Revoke key"
                  className="button small danger-outline"
                  onConfirm={async () => {
                    await api.delete(`/api/org/agents/${seg(agentId)}/keys/${seg(key.id)}`);
                    onRevoked();
                    notify(`“${key.name}” is revoked.`);
                  }}
                >
                  <p>MCP clients using this key (ending in …{key.lastFour}) stop working at once. This cannot be undone.</p>
                </ConfirmButton>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </TableWrap>
  );
}
