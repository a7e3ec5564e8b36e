import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useEffect, useRef, useState, type FormEvent } from 'react';
import { api, seg } from '../../api/client';
import type { CreatedWebhook, Webhook, WebhookEventType, WebhookInput, WebhookPatch } from '../../api/types';
import { ModalDialog } from '../../components/dialogs';
import { CheckboxField, FormError, TextArea, TextField } from '../../components/fields';
import { limitKeys } from '../../lib/limits';
import { useNotify } from '../../lib/notices';
import { useFormErrors } from '../../lib/useFormErrors';
import { orderedEvents, webhookKeys } from './api';
import { EventFields } from './EventFields';
import { SecretCard } from './SecretCard';

const FIELDS = ['url', 'events', 'description', 'enabled'] as const;

/** The page's own check of the URL; the server's endpoint policy has the last word (a private address, say). */
function urlProblem(url: string): string | null {
  if (!url) return 'Enter the address that receives the events, like https://hooks.example.com/switchboard.';
  if (!/^https:\/\/[^\s]+$/i.test(url)) return 'Use an https:// address.';
  return null;
}

/**
 * Add an endpoint (then its signing secret, shown this once in the same dialog), or edit one: its URL,
 * events, description and whether it is on. A refusal of the API lands on its field (`url` for an address
 * the endpoint policy refuses).
 */
export function WebhookDialog({ webhook, onClose }: { webhook?: Webhook; onClose: () => void }) {
  const client = useQueryClient();
  const notify = useNotify();
  const formRef = useRef<HTMLFormElement>(null);
  const [url, setUrl] = useState(webhook?.url ?? '');
  const [events, setEvents] = useState<WebhookEventType[]>(webhook ? orderedEvents(webhook.events) : ['submission.created']);
  const [description, setDescription] = useState(webhook?.description ?? '');
  const [enabled, setEnabled] = useState(webhook?.enabled ?? true);
  const [created, setCreated] = useState<CreatedWebhook | null>(null);

  const save = useMutation({
    mutationFn: async (): Promise<Webhook | CreatedWebhook> => {
      if (!webhook) {
        const body: WebhookInput = { url: url.trim(), events, ...(description.trim() ? { description: description.trim() } : {}) };
        return api.post<CreatedWebhook>('/api/org/webhooks', body);
      }
      const body: WebhookPatch = { url: url.trim(), events, enabled, description: description.trim() || null };
      return api.patch<Webhook>(`/api/org/webhooks/${seg(webhook.id)}`, body);
    },
    onSuccess: (answer) => {
      void client.invalidateQueries({ queryKey: webhookKeys.all });
      if ('secret' in answer) {
        void client.invalidateQueries({ queryKey: limitKeys.all });
        setCreated(answer);
        notify(`Webhook to ${answer.url} added.`);
      } else {
        notify(`Webhook to ${answer.url} saved.`);
        onClose();
      }
    },
  });
  const errors = useFormErrors(FIELDS, save.error);
  // After the refusal is drawn (not in onError, which can run before the field is marked invalid): focus its field.
  const { focusApiError } = errors;
  useEffect(() => {
    if (save.error) focusApiError(formRef.current);
  }, [save.error]); // eslint-disable-line react-hooks/exhaustive-deps

  function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    if (save.isPending) return;
    const ok = errors.check(formRef.current, {
      url: urlProblem(url.trim()),
      events: events.length ? null : 'Choose at least one event.',
    });
    if (ok) save.mutate();
  }

  const title = webhook ? 'Edit webhook' : 'Add an endpoint';
  return (
    // Once the secret is shown, only "I have stored it" (or Escape) closes: a stray click outside must not lose it.
    <ModalDialog title={title} isOpen onOpenChange={(open) => !open && !save.isPending && onClose()} isDismissable={!save.isPending && !created}>
      {(close) =>
        created ? (
          <SecretCard webhook={created} title="Signing secret of your new webhook" onDone={close}>
            <p>
              Events go to <code>{created.url}</code>. Use <strong>Send test</strong> to check your receiver.
            </p>
          </SecretCard>
        ) : (
          <form ref={formRef} onSubmit={submit} noValidate aria-label={title}>
            {webhook ? null : <p>Switchboard sends a signed POST to this address each time one of the chosen events happens.</p>}
            <TextField
              label="Endpoint URL"
              name="url"
              type="url"
              required
              maxLength={2048}
              placeholder="https://hooks.example.com/switchboard"
              hint="An https:// address your receiver listens on."
              value={url}
              onChange={(e) => setUrl(e.target.value)}
              error={errors.error('url')}
            />
            <EventFields value={events} onChange={setEvents} error={errors.error('events')} />
            <TextArea label="Description" name="description" maxLength={500} rows={2} hint="Optional: what it is for, like “Zapier: new leads”." value={description} onChange={(e) => setDescription(e.target.value)} error={errors.error('description')} />
            {webhook ? (
              <CheckboxField
                label="Enabled"
                name="enabled"
                hint={webhook.disabledReason ? `Switchboard turned it off: ${webhook.disabledReason} Ticking this turns it back on and sends what is waiting.` : 'When off, no new events are queued for it.'}
                checked={enabled}
                onChange={(e) => setEnabled(e.target.checked)}
                error={errors.error('enabled')}
              />
            ) : null}
            <FormError error={errors.general} />
            <div className="actions">
              <button type="submit" className="button primary" aria-disabled={save.isPending}>
                {save.isPending ? 'Saving…' : webhook ? 'Save changes' : 'Add endpoint'}
              </button>
              <button type="button" className="button" onClick={() => (save.isPending ? undefined : close())}>
                Cancel
              </button>
            </div>
          </form>
        )
      }
    </ModalDialog>
  );
}
