import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useRef, useState, type FormEvent } from 'react';
import { api, seg } from '../../api/client';
import type { ModelProvider, ModelProviderInput, ModelProviderPatch } from '../../api/types';
import { ModalDialog } from '../../components/dialogs';
import { FormError, SelectField, TextField } from '../../components/fields';
import { useNotify } from '../../lib/notices';
import { useFormErrors } from '../../lib/useFormErrors';
import { afterModelChange, baseUrlForKind, DEFAULT_BASE_URLS, KINDS, normalUrl, providerProblems, type ProviderDraft } from './api';

const FIELDS = ['name', 'kind', 'baseUrl', 'apiKey'];

/**
 * Add a model provider (`provider` null) or edit one. The key is write-only: typed into a password
 * input the browser neither fills nor saves, sent once, never shown again. Editing, an empty key keeps
 * the stored one, except when the base URL changes: the server never sends a stored key to a new
 * address, so the dialog asks for it again (the same rule, said before sending).
 */
export function ProviderDialog({ provider, onClose }: { provider: ModelProvider | null; onClose: () => void }) {
  const notify = useNotify();
  const client = useQueryClient();
  const formRef = useRef<HTMLFormElement>(null);
  const [draft, setDraft] = useState<ProviderDraft>(() =>
    provider ? { name: provider.name, kind: provider.kind, baseUrl: provider.baseUrl, apiKey: '' } : { name: '', kind: 'openai', baseUrl: DEFAULT_BASE_URLS.openai, apiKey: '' },
  );
  const urlMoves = provider !== null && provider.hasApiKey && normalUrl(draft.baseUrl) !== provider.baseUrl;

  const save = useMutation({
    mutationFn: () => {
      const baseUrl = draft.baseUrl.trim();
      if (!provider) {
        const body: ModelProviderInput = { name: draft.name.trim(), kind: draft.kind };
        if (baseUrl) body.baseUrl = baseUrl;
        if (draft.apiKey) body.apiKey = draft.apiKey;
        return api.post<ModelProvider>('/api/org/model-providers', body);
      }
      // The base URL always goes along, so a new kind never swaps in its default address unseen.
      const body: ModelProviderPatch = { name: draft.name.trim(), kind: draft.kind, baseUrl: baseUrl || DEFAULT_BASE_URLS[draft.kind] };
      if (draft.apiKey) body.apiKey = draft.apiKey;
      return api.patch<ModelProvider>(`/api/org/model-providers/${seg(provider.id)}`, body);
    },
    onSuccess: async (saved) => {
      setDraft((d) => ({ ...d, apiKey: '' }));
      await afterModelChange(client);
      onClose();
      notify(provider ? `“${saved.name}” is saved.` : `“${saved.name}” is added. Choose it in an agent’s Model section.`);
    },
    onError: () => {
      // A refused key is typed again rather than left in the page.
      setDraft((d) => ({ ...d, apiKey: '' }));
      errors.focusApiError(formRef.current);
    },
  });
  const errors = useFormErrors(FIELDS, save.error);

  function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    if (save.isPending) return;
    if (errors.check(formRef.current, providerProblems(draft, urlMoves))) save.mutate();
  }

  const title = provider ? `Edit “${provider.name}”` : 'Add a model provider';
  const keyHint = !provider
    ? 'From your account with the provider. Stored encrypted and never shown again. A local server may need none.'
    : urlMoves
      ? 'The base URL changes, so enter the key again: the stored key is never sent to a new address.'
      : provider.hasApiKey
        ? 'A key is stored. Leave this empty to keep it, or enter a new one to replace it.'
        : 'No key is stored. Enter one if the server needs it.';

  return (
    <ModalDialog title={title} isOpen onOpenChange={(open) => !open && !save.isPending && onClose()} isDismissable={!save.isPending}>
      {(close) => (
        <form ref={formRef} onSubmit={submit} noValidate aria-label={title}>
          <TextField
            label="Name"
            name="name"
            required
            maxLength={100}
            placeholder="OpenAI (production)"
            value={draft.name}
            onChange={(e) => setDraft((d) => ({ ...d, name: e.target.value }))}
            error={errors.error('name')}
          />
          <SelectField
            label="Kind"
            name="kind"
            hint="OpenAI-compatible: any Chat Completions server, such as Azure OpenAI, OpenRouter, Groq, vLLM, Ollama or llama.cpp."
            value={draft.kind}
            onChange={(e) => {
              const kind = e.target.value as ProviderDraft['kind'];
              setDraft((d) => ({ ...d, kind, baseUrl: baseUrlForKind(d.baseUrl, kind) }));
            }}
            error={errors.error('kind')}
          >
            {KINDS.map((k) => (
              <option key={k.kind} value={k.kind}>
                {k.label}
              </option>
            ))}
          </SelectField>
          <TextField
            label="Base URL"
            name="baseUrl"
            type="url"
            inputMode="url"
            required={draft.kind === 'openai-compatible'}
            maxLength={2048}
            spellCheck={false}
            autoComplete="off"
            placeholder={draft.kind === 'openai-compatible' ? 'https://openrouter.ai/api/v1' : DEFAULT_BASE_URLS[draft.kind]}
            hint="An https:// address on the public internet."
            value={draft.baseUrl}
            onChange={(e) => setDraft((d) => ({ ...d, baseUrl: e.target.value }))}
            error={errors.error('baseUrl')}
          />
          <TextField
            label={urlMoves ? 'API key' : provider ? 'New API key (optional)' : 'API key (optional)'}
            name="apiKey"
            type="password"
            autoComplete="new-password"
            spellCheck={false}
            required={urlMoves}
            maxLength={1000}
            hint={keyHint}
            value={draft.apiKey}
            onChange={(e) => setDraft((d) => ({ ...d, apiKey: e.target.value }))}
            error={errors.error('apiKey')}
          />
          <FormError error={errors.general} />
          <div className="actions">
            <button type="submit" className="button primary" aria-disabled={save.isPending}>
              {save.isPending ? 'Saving…' : provider ? 'Save provider' : 'Add provider'}
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
