import { useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { Link } from 'react-router';
import { ApiError, api, seg } from '../../api/client';
import { useAgents } from '../../api/lists';
import type { Agent, ModelProvider } from '../../api/types';
import { ConfirmButton } from '../../components/dialogs';
import { LimitNotice, UnavailableAction } from '../../components/LimitNotice';
import { Page } from '../../components/Page';
import { limitState, useOrgLimits } from '../../lib/limits';
import { LoadError, Loading } from '../../components/QueryState';
import { TableWrap } from '../../components/TableWrap';
import { useNotify } from '../../lib/notices';
import { afterModelChange, agentsUsing, kindLabel, useModelProviders } from './api';
import { ProviderDialog } from './ProviderDialog';
import './models.css';
import { agentPath } from '../agents/tabs';

/** The organization's model providers: where its agents' models are, and the keys to reach them. */
export default function ModelProvidersPage() {
  const providers = useModelProviders();
  const agents = useAgents();
  const [editing, setEditing] = useState<ModelProvider | 'new' | null>(null);
  const usage = useOrgLimits().data?.modelProviders;
  const add =
    limitState(usage) === 'reached' ? (
      <UnavailableAction describedBy="providers-limit">Add a provider</UnavailableAction>
    ) : (
      <button type="button" className="button primary" onClick={() => setEditing('new')}>
        Add a provider
      </button>
    );
  return (
    <Page
      title="Model providers"
      actions={providers.data?.length ? add : null}
      intro={
        <>
          Where your agents’ models run: OpenAI, Anthropic, or any server that speaks Chat Completions. Choose one for an agent in its Model section, on the{' '}
          <Link to="/agents">agent’s page</Link>. Keys are stored encrypted and never shown again.
        </>
      }
    >
      <LimitNotice id="providers-limit" usage={usage} noun="model providers" holder="your organization" remedy="Delete a provider you no longer use" />
      {providers.isPending ? (
        <Loading />
      ) : providers.isError ? (
        <LoadError error={providers.error} retry={() => void providers.refetch()} />
      ) : providers.data.length === 0 ? (
        <div className="empty">
          <p>No model providers yet. Add one to give your agents a model.</p>
          {add}
        </div>
      ) : (
        <ProviderTable providers={providers.data} agents={agents.data} onEdit={setEditing} />
      )}
      {editing ? <ProviderDialog provider={editing === 'new' ? null : editing} onClose={() => setEditing(null)} /> : null}
    </Page>
  );
}

function ProviderTable({ providers, agents, onEdit }: { providers: ModelProvider[]; agents: Agent[] | undefined; onEdit: (provider: ModelProvider) => void }) {
  const notify = useNotify();
  const client = useQueryClient();
  return (
    <TableWrap label="Model providers">
      <table>
        <thead>
          <tr>
            <th scope="col">Name</th>
            <th scope="col">Kind</th>
            <th scope="col">Base URL</th>
            <th scope="col">Key</th>
            <th scope="col">Used by</th>
            <th scope="col">
              <span className="visually-hidden">Actions</span>
            </th>
          </tr>
        </thead>
        <tbody>
          {providers.map((provider) => {
            const users = agentsUsing(agents, provider.id);
            return (
              <tr key={provider.id}>
                <td className="models-wrap">{provider.name}</td>
                <td>{kindLabel(provider.kind)}</td>
                <td className="models-wrap">
                  <code>{provider.baseUrl}</code>
                </td>
                <td>{provider.hasApiKey ? 'Key set' : 'No key'}</td>
                <td className="models-wrap">
                  {users.length === 0
                    ? 'No agent'
                    : users.map((agent, i) => (
                        <span key={agent.id}>
                          {i ? ', ' : ''}
                          <Link to={agentPath(agent.id, 'model')}>{agent.name}</Link>
                        </span>
                      ))}
                </td>
                <td>
                  <div className="row-actions">
                    <button type="button" className="button small" aria-label={`Edit provider ${provider.name}`} onClick={() => onEdit(provider)}>
                      Edit
                    </button>
                    {provider.hasApiKey ? (
                      <ConfirmButton
                        label="Remove key"
                        buttonLabel={`Remove key of ${provider.name}`}
                        title={`Remove the key of “${provider.name}”?`}
                        confirmLabel="Remove key"
                        className="button small danger-outline"
                        onConfirm={async () => {
                          await api.patch(`/api/org/model-providers/${seg(provider.id)}`, { apiKey: null });
                          await afterModelChange(client);
                          notify(`The key of “${provider.name}” is removed.`);
                        }}
                      >
                        <p>Agents using this provider send no key until you enter a new one. The stored key is deleted and cannot be shown again.</p>
                      </ConfirmButton>
                    ) : null}
                    <ConfirmButton
                      label="Delete"
                      buttonLabel={`Delete provider ${provider.name}`}
                      title={`Delete “${provider.name}”?`}
                      confirmLabel="Delete provider"
                      className="button small danger-outline"
                      onConfirm={async () => {
                        try {
                          await api.delete(`/api/org/model-providers/${seg(provider.id)}`);
                        } catch (error) {
                          // In use (perhaps since this page loaded): say which agents, and what to do.
                          if (error instanceof ApiError && error.code === 'CONFLICT') {
                            void afterModelChange(client);
                            throw new Error(inUseMessage(provider, error.message));
                          }
                          throw error;
                        }
                        await afterModelChange(client);
                        notify(`“${provider.name}” is deleted.`);
                      }}
                    >
                      {users.length ? (
                        <p>
                          {users.map((a) => a.name).join(', ')} {users.length === 1 ? 'uses' : 'use'} it now: give {users.length === 1 ? 'that agent' : 'those agents'} another
                          provider or remove {users.length === 1 ? 'its' : 'their'} model first.
                        </p>
                      ) : (
                        <p>Its stored key is deleted too. This cannot be undone.</p>
                      )}
                    </ConfirmButton>
                  </div>
                </td>
              </tr>
            );
          })}
        </tbody>
      </table>
    </TableWrap>
  );
}

/** The server names up to three agents in parentheses; the console says what to do in its own words. */
function inUseMessage(provider: ModelProvider, serverMessage: string): string {
  const names = /\(([^)]+)\)/.exec(serverMessage)?.[1];
  return `“${provider.name}” is still in use${names ? ` by ${names}` : ''}. Open ${names ? 'each agent' : 'the agents using it'}, choose another provider in its Model section or remove its model, then delete this provider.`;
}
