import { useMutation, useQueryClient } from '@tanstack/react-query';
import type { FormEvent } from 'react';
import { api, seg } from '../../api/client';
import type { CreatedWebhook, Webhook } from '../../api/types';
import { ModalDialog } from '../../components/dialogs';
import { FormError } from '../../components/fields';
import { useNotify } from '../../lib/notices';
import { webhookKeys } from './api';
import { SecretCard } from './SecretCard';

/** Rotate an endpoint's signing secret: the old one stops at once (there is no overlap), the new one is shown this once. */
export function RotateDialog({ webhook, onClose }: { webhook: Webhook; onClose: () => void }) {
  const client = useQueryClient();
  const notify = useNotify();
  const rotate = useMutation({
    mutationFn: () => api.post<CreatedWebhook>(`/api/org/webhooks/${seg(webhook.id)}/secret`),
    onSuccess: () => {
      void client.invalidateQueries({ queryKey: webhookKeys.all });
      notify(`The webhook to ${webhook.url} has a new signing secret.`);
    },
  });

  function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    if (!rotate.isPending) rotate.mutate();
  }

  const rotated = rotate.data;
  return (
    <ModalDialog title="Rotate the signing secret" isOpen onOpenChange={(open) => !open && !rotate.isPending && onClose()} isDismissable={!rotate.isPending && !rotated}>
      {(close) =>
        rotated ? (
          <SecretCard webhook={rotated} title="New signing secret" onDone={close}>
            <p>Every delivery from now on is signed with this secret. Put it in your receiver now: until then it will refuse them.</p>
          </SecretCard>
        ) : (
          <form onSubmit={submit} noValidate aria-label="Rotate the signing secret">
            <p>
              <strong>The current secret stops at once.</strong> Deliveries to <code>{webhook.url}</code> are signed with the new one from the moment you rotate, so your receiver
              fails its signature check until you give it the new secret.
            </p>
            <FormError error={rotate.error} />
            <div className="actions">
              <button type="submit" className="button danger" aria-disabled={rotate.isPending}>
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
