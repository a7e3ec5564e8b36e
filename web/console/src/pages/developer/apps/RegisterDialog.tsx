import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useRef, useState, type FormEvent } from 'react';
import { api } from '../../../api/client';
import type { AppCredentials } from '../../../api/types';
import { ModalDialog } from '../../../components/dialogs';
import { FormError, TextField } from '../../../components/fields';
import { limitKeys } from '../../../lib/limits';
import { useNotify } from '../../../lib/notices';
import { useFormErrors } from '../../../lib/useFormErrors';
import { ALL_SCOPES, appKeys, type Scope } from './apps';
import { NewSecret } from './NewSecret';
import { ScopeFields } from './ScopeFields';

/** Register an app (name, scopes); then its client secret, shown this once in the same dialog. */
export function RegisterDialog({ onClose }: { onClose: () => void }) {
  const client = useQueryClient();
  const notify = useNotify();
  const formRef = useRef<HTMLFormElement>(null);
  const [name, setName] = useState('');
  const [scopes, setScopes] = useState<Scope[]>(ALL_SCOPES);
  const [created, setCreated] = useState<AppCredentials | null>(null);
  const register = useMutation({
    mutationFn: () => api.post<AppCredentials>('/api/dev/apps', { name: name.trim(), scopes }),
    onSuccess: (app) => {
      setCreated(app);
      void client.invalidateQueries({ queryKey: appKeys.all });
      void client.invalidateQueries({ queryKey: limitKeys.all });
      notify(`“${app.name}” is registered.`);
    },
    onError: () => errors.focusApiError(formRef.current),
  });
  const errors = useFormErrors(['name', 'scopes'], register.error);

  function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    if (register.isPending) return;
    const ok = errors.check(formRef.current, {
      name: name.trim() ? null : 'Name the app, like “Quote bot”.',
      scopes: scopes.length ? null : 'Choose at least one scope.',
    });
    if (ok) register.mutate();
  }

  return (
    // Once the secret is shown, only "I have stored it" (or Escape) closes: a stray click outside must not lose it.
    <ModalDialog title="Register an app" isOpen onOpenChange={(open) => !open && !register.isPending && onClose()} isDismissable={!register.isPending && !created}>
      {(close) =>
        created ? (
          <NewSecret app={created} title={<>Client secret of “{created.name}”</>} onDone={close} />
        ) : (
          <form ref={formRef} onSubmit={submit} noValidate aria-label="Register an app">
            <p>An app is how your scripts and servers call the Developer API: they exchange its client id and secret for an access token.</p>
            <TextField label="App name" name="name" maxLength={100} placeholder="Quote bot" value={name} onChange={(e) => setName(e.target.value)} error={errors.error('name')} />
            <ScopeFields value={scopes} onChange={setScopes} error={errors.error('scopes')} />
            <FormError error={errors.general} />
            <div className="actions">
              <button type="submit" className="button primary" aria-disabled={register.isPending}>
                {register.isPending ? 'Registering…' : 'Register app'}
              </button>
              <button type="button" className="button" onClick={() => (register.isPending ? undefined : close())}>
                Cancel
              </button>
            </div>
          </form>
        )
      }
    </ModalDialog>
  );
}
