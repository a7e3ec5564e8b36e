import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useRef, useState, type FormEvent } from 'react';
import { api, seg } from '../../../api/client';
import type { DeveloperApp } from '../../../api/types';
import { ModalDialog } from '../../../components/dialogs';
import { FormError, TextField } from '../../../components/fields';
import { useNotify } from '../../../lib/notices';
import { useFormErrors } from '../../../lib/useFormErrors';
import { appKeys, orderedScopes, type Scope } from './apps';
import { ScopeFields } from './ScopeFields';

/** Rename an app or change its scopes (PATCH with what changed); taking a scope away ends the tokens that had it. */
export function EditDialog({ app, onClose }: { app: DeveloperApp; onClose: () => void }) {
  const client = useQueryClient();
  const notify = useNotify();
  const formRef = useRef<HTMLFormElement>(null);
  const [name, setName] = useState(app.name);
  const [scopes, setScopes] = useState<Scope[]>(orderedScopes(app.scopes));
  const removed = app.scopes.filter((scope) => !scopes.includes(scope));
  const changes = {
    ...(name.trim() !== app.name ? { name: name.trim() } : {}),
    ...(scopes.join(' ') !== orderedScopes(app.scopes).join(' ') ? { scopes } : {}),
  };
  const save = useMutation({
    mutationFn: () => api.patch<DeveloperApp>(`/api/dev/apps/${seg(app.id)}`, changes),
    onSuccess: (saved) => {
      void client.invalidateQueries({ queryKey: appKeys.all });
      onClose();
      notify(`“${saved.name}” is saved.`);
    },
    onError: () => errors.focusApiError(formRef.current),
  });
  const errors = useFormErrors(['name', 'scopes'], save.error);

  function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    if (save.isPending) return;
    const ok = errors.check(formRef.current, {
      name: name.trim() ? null : 'Name the app, like “Quote bot”.',
      scopes: scopes.length ? null : 'Choose at least one scope.',
    });
    if (!ok) return;
    if (Object.keys(changes).length === 0) onClose();
    else save.mutate();
  }

  return (
    <ModalDialog title={`Edit “${app.name}”`} isOpen onOpenChange={(open) => !open && !save.isPending && onClose()} isDismissable={!save.isPending}>
      {(close) => (
        <form ref={formRef} onSubmit={submit} noValidate aria-label={`Edit ${app.name}`}>
          <TextField label="App name" name="name" maxLength={100} value={name} onChange={(e) => setName(e.target.value)} error={errors.error('name')} />
          <ScopeFields value={scopes} onChange={setScopes} error={errors.error('scopes')} />
          {removed.length ? (
            <p className="notice">
              <strong>Removing {removed.join(' and ')} ends at once the app’s access tokens that have {removed.length > 1 ? 'them' : 'it'}.</strong> New tokens no longer get{' '}
              {removed.length > 1 ? 'them' : 'it'}.
            </p>
          ) : null}
          <FormError error={errors.general} />
          <div className="actions">
            <button type="submit" className="button primary" aria-disabled={save.isPending}>
              {save.isPending ? 'Saving…' : 'Save changes'}
            </button>
            <button type="button" className="button" onClick={() => (save.isPending ? undefined : close())}>
              Cancel
            </button>
          </div>
        </form>
      )}
    </ModalDialog>
  );
}
