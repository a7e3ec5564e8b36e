import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useId, useState, type FormEvent } from 'react';
import { api, seg } from '../../../api/client';
import type { AppCredentials, DeveloperApp } from '../../../api/types';
import { ModalDialog } from '../../../components/dialogs';
import { FormError } from '../../../components/fields';
import { formatDateTime } from '../../../lib/format';
import { useNotify } from '../../../lib/notices';
import { appKeys } from './apps';
import { NewSecret } from './NewSecret';

/** How long the old secret keeps working (the API allows 0–86400 s); 1 h and 24 h cover a deploy and a slow one. */
const GRACE = [
  { seconds: 0, label: 'Stop the old secret now', hint: 'Anything still using it, and the app’s access tokens, stop at once.' },
  { seconds: 3600, label: 'Keep it working for 1 hour', hint: null },
  { seconds: 86_400, label: 'Keep it working for 24 hours', hint: null },
] as const;

/** Rotate an app's client secret, with the choice of when the old one stops; the new one shown this once. */
export function RotateDialog({ app, onClose }: { app: DeveloperApp; onClose: () => void }) {
  const client = useQueryClient();
  const notify = useNotify();
  const id = useId();
  const [grace, setGrace] = useState<number>(3600);
  const [rotated, setRotated] = useState<AppCredentials | null>(null);
  // The times are said as the dialog opens; the server states the real one in its answer.
  const [openedAt] = useState(() => Date.now());
  const rotate = useMutation({
    mutationFn: () => api.post<AppCredentials>(`/api/dev/apps/${seg(app.id)}/secret`, { previousSecretExpiresIn: grace }),
    onSuccess: (answer) => {
      setRotated(answer);
      void client.invalidateQueries({ queryKey: appKeys.all });
      notify(`“${answer.name}” has a new secret.`);
    },
  });

  function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    if (!rotate.isPending) rotate.mutate();
  }

  return (
    <ModalDialog title={`Rotate the secret of “${app.name}”`} isOpen onOpenChange={(open) => !open && !rotate.isPending && onClose()} isDismissable={!rotate.isPending && !rotated}>
      {(close) =>
        rotated ? (
          <NewSecret app={rotated} title={<>New client secret of “{rotated.name}”</>} onDone={close}>
            <p>
              {rotated.previousSecretExpiresAt
                ? `The old secret keeps working until ${formatDateTime(rotated.previousSecretExpiresAt)}: deploy the new one before then.`
                : 'The old secret has stopped working, and so have the app’s access tokens.'}
            </p>
          </NewSecret>
        ) : (
          <form onSubmit={submit} noValidate aria-label={`Rotate the secret of ${app.name}`}>
            <p>The app gets a new client secret, shown once. Access tokens it already has live out their hour unless the old secret stops now.</p>
            <fieldset>
              <legend>When should the old secret stop?</legend>
              {GRACE.map((choice) => (
                <div className="check" key={choice.seconds}>
                  <input id={`${id}-${choice.seconds}`} type="radio" name={`${id}-grace`} checked={grace === choice.seconds} onChange={() => setGrace(choice.seconds)} />
                  <label htmlFor={`${id}-${choice.seconds}`}>
                    {choice.seconds ? `${choice.label}, until ${formatDateTime(new Date(openedAt + choice.seconds * 1000).toISOString())}` : choice.label}
                  </label>
                  {choice.hint ? <p className="hint">{choice.hint}</p> : null}
                </div>
              ))}
            </fieldset>
            <FormError error={rotate.error} />
            <div className="actions">
              <button type="submit" className="button primary" aria-disabled={rotate.isPending}>
                {rotate.isPending ? 'Rotating…' : 'Rotate secret'}
              </button>
              <button type="button" className="button" onClick={() => (rotate.isPending ? undefined : close())}>
                Cancel
              </button>
            </div>
          </form>
        )
      }
    </ModalDialog>
  );
}
