import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useRef, useState, type FormEvent } from 'react';
import { api, seg } from '../api/client';
import { fetchAll, queryKeys } from '../api/lists';
import type { ApiKey, CreatedApiKey } from '../api/types';
import { ConfirmButton } from '../components/dialogs';
import { FormError, TextField } from '../components/fields';
import { LimitNotice } from '../components/LimitNotice';
import { Page } from '../components/Page';
import { limitKeys, limitState, useOrgLimits } from '../lib/limits';
import { LoadError, Loading } from '../components/QueryState';
import { ShownOnce } from '../components/ShownOnce';
import { formatDateTime } from '../lib/format';
import { useNotify } from '../lib/notices';
import { useFormErrors } from '../lib/useFormErrors';
import { TableWrap } from '../components/TableWrap';

/** Org API keys (owners only): create one (shown once), revoke one. */
export default function ApiKeysPage() {
  const client = useQueryClient();
  const keys = useQuery({ queryKey: queryKeys.apiKeys, queryFn: () => fetchAll<ApiKey>('/api/org/api-keys') });
  const formRef = useRef<HTMLFormElement>(null);
  const [name, setName] = useState('');
  const [created, setCreated] = useState<CreatedApiKey | null>(null);
  const usage = useOrgLimits().data?.apiKeys;
  const atLimit = limitState(usage) === 'reached';
  // A new key or a revoked one changes how many active keys the organization has.
  const refresh = () => Promise.all([client.invalidateQueries({ queryKey: queryKeys.apiKeys }), client.invalidateQueries({ queryKey: limitKeys.all })]);
  const create = useMutation({
    mutationFn: () => api.post<CreatedApiKey>('/api/org/api-keys', { name: name.trim() }),
    onSuccess: (key) => {
      setCreated(key);
      setName('');
      void refresh();
    },
    onError: () => errors.focusApiError(formRef.current),
  });
  const errors = useFormErrors(['name'], create.error);

  function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    if (create.isPending || atLimit) return;
    if (errors.check(formRef.current, { name: name.trim() ? null : 'Say what the key is for, like “Zapier”.' })) create.mutate();
  }

  const active = (keys.data ?? []).filter((key) => !key.revokedAt);
  const revoked = (keys.data ?? []).filter((key) => key.revokedAt);

  return (
    <Page title="API keys" intro="A key lets your own tools and automations use the Operator API for this organization. Use one key per integration, so you can revoke one alone.">
      {created ? (
        <ShownOnce
          titleId="new-key-title"
          title={<>Your new key “{created.name}”</>}
          note={
            <>
              Send it as <code>Authorization: Bearer &lt;key&gt;</code>.
            </>
          }
          secret={created.key}
          secretLabel="The new API key"
          onDone={() => setCreated(null)}
        />
      ) : null}

      <section className="card" aria-labelledby="create-key-title">
        <h2 id="create-key-title">Create a key</h2>
        <form ref={formRef} onSubmit={submit} noValidate className="row">
          <TextField label="What is it for?" name="name" maxLength={100} placeholder="Zapier" value={name} onChange={(e) => setName(e.target.value)} error={errors.error('name')} />
          <div className="field">
            <button type="submit" className="button primary" aria-disabled={create.isPending || atLimit} aria-describedby={atLimit ? 'api-keys-limit' : undefined}>
              {create.isPending ? 'Creating…' : 'Create key'}
            </button>
          </div>
        </form>
        <FormError error={errors.general} />
        <LimitNotice id="api-keys-limit" usage={usage} noun="active keys" holder="your organization" remedy="Revoke a key you no longer use" />
      </section>

      <h2>Keys</h2>
      {keys.isPending ? (
        <Loading />
      ) : keys.isError ? (
        <LoadError error={keys.error} retry={() => void keys.refetch()} />
      ) : active.length === 0 ? (
        <div className="empty">
          <p>No active keys. Create one above when an integration needs to reach your organization.</p>
        </div>
      ) : (
        <KeyTable keys={active} label="Active keys" onRevoked={() => void refresh()} />
      )}
      {revoked.length ? (
        <details className="history">
          <summary>Revoked keys ({revoked.length})</summary>
          <KeyTable keys={revoked} label="Revoked keys" />
        </details>
      ) : null}
    </Page>
  );
}

function KeyTable({ keys, onRevoked, label }: { keys: ApiKey[]; onRevoked?: () => void; label: string }) {
  const notify = useNotify();
  return (
    <TableWrap label={label}>
      <table>
        <thead>
          <tr>
            <th scope="col">Name</th>
            <th scope="col">Ends in</th>
            <th scope="col">Created</th>
            <th scope="col">Last used</th>
            <th scope="col">{onRevoked ? <span className="visually-hidden">Actions</span> : 'Revoked'}</th>
          </tr>
        </thead>
        <tbody>
          {keys.map((key) => (
            <tr key={key.id}>
              <td>{key.name}</td>
              <td>
                <code>…{key.lastFour}</code>
              </td>
              <td>{formatDateTime(key.createdAt)}</td>
              <td>{key.lastUsedAt ? formatDateTime(key.lastUsedAt) : 'Never'}</td>
              <td>
                {onRevoked ? (
                  <ConfirmButton
                    label="Revoke"
                    buttonLabel={`Revoke key ${key.name}`}
                    title={`Revoke “${key.name}”?`}
                    confirmLabel="Revoke key"
                    className="button small danger-outline"
                    onConfirm={async () => {
                      await api.post(`/api/org/api-keys/${seg(key.id)}/revoke`);
                      onRevoked();
                      notify(`“${key.name}” is revoked.`);
                    }}
                  >
                    <p>Anything using this key (ending in …{key.lastFour}) stops working at once. This cannot be undone.</p>
                  </ConfirmButton>
                ) : (
                  formatDateTime(key.revokedAt)
                )}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </TableWrap>
  );
}
