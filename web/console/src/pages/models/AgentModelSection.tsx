import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useRef, useState, type FormEvent } from 'react';
import { Link } from 'react-router';
import { api, seg } from '../../api/client';
import { queryKeys } from '../../api/lists';
import type { Agent, AgentModel, AgentModelInput, ModelProvider } from '../../api/types';
import { ConfirmButton } from '../../components/dialogs';
import { FormError, SelectField, TextArea, TextField } from '../../components/fields';
import { LoadError, Loading } from '../../components/QueryState';
import { UnsavedChanges } from '../../components/UnsavedChanges';
import { useNotify } from '../../lib/notices';
import { useFormErrors } from '../../lib/useFormErrors';
import { afterModelChange, MODEL_PROVIDERS_PATH, useModelProviders } from './api';
import './models.css';

const FIELDS = ['model.providerId', 'model.model', 'model.instructions', 'model.temperature', 'model.maxToolRounds', 'model'];
const INSTRUCTIONS_MAX = 16_000;
const DEFAULT_ROUNDS = 8;

interface Draft {
  providerId: string;
  model: string;
  instructions: string;
  /** Empty: the provider's default. */
  temperature: string;
  maxToolRounds: string;
}

function fromModel(model: AgentModel | null, providers: ModelProvider[]): Draft {
  return {
    providerId: model?.providerId ?? providers[0]?.id ?? '',
    model: model?.model ?? '',
    instructions: model?.instructions ?? '',
    temperature: model?.temperature === null || model?.temperature === undefined ? '' : String(model.temperature),
    maxToolRounds: String(model?.maxToolRounds ?? DEFAULT_ROUNDS),
  };
}

function problems(draft: Draft) {
  const temperature = Number(draft.temperature);
  const rounds = Number(draft.maxToolRounds);
  return {
    'model.providerId': draft.providerId ? null : 'Choose a provider.',
    'model.model': draft.model.trim() ? null : 'Enter the model’s id as the provider names it, like gpt-4.1-mini.',
    'model.instructions': draft.instructions.length <= INSTRUCTIONS_MAX ? null : `Keep the instructions under ${INSTRUCTIONS_MAX.toLocaleString('en')} characters.`,
    'model.temperature': draft.temperature.trim() === '' || (Number.isFinite(temperature) && temperature >= 0 && temperature <= 2) ? null : 'Use a number from 0 to 2, or leave it empty.',
    'model.maxToolRounds': Number.isInteger(rounds) && rounds >= 1 && rounds <= 32 ? null : 'Use a whole number from 1 to 32.',
  };
}

function toInput(draft: Draft): AgentModelInput {
  const input: AgentModelInput = { providerId: draft.providerId, model: draft.model.trim(), instructions: draft.instructions, maxToolRounds: Number(draft.maxToolRounds) };
  if (draft.temperature.trim() !== '') input.temperature = Number(draft.temperature);
  return input;
}

/** The agent page's "Model": the provider and model it talks with, its instructions and limits. */
export function AgentModelSection({ agent }: { agent: Agent }) {
  const providers = useModelProviders();
  return (
    <section className="card" aria-labelledby="sec-agent-model">
      <h2 id="sec-agent-model">Model</h2>
      {providers.isPending ? (
        <Loading />
      ) : providers.isError ? (
        <LoadError error={providers.error} retry={() => void providers.refetch()} />
      ) : providers.data.length === 0 && !agent.model ? (
        <p className="muted">
          No model providers yet. <Link to={MODEL_PROVIDERS_PATH}>Add a model provider</Link>, then choose it here.
        </p>
      ) : (
        <ModelForm agent={agent} providers={providers.data} />
      )}
    </section>
  );
}

function ModelForm({ agent, providers }: { agent: Agent; providers: ModelProvider[] }) {
  const notify = useNotify();
  const client = useQueryClient();
  const formRef = useRef<HTMLFormElement>(null);
  const [current, setCurrent] = useState<AgentModel | null>(agent.model);
  const [draft, setDraft] = useState<Draft>(() => fromModel(agent.model, providers));
  const set = (change: Partial<Draft>) => setDraft((d) => ({ ...d, ...change }));

  async function saved(result: Agent, message: string) {
    setCurrent(result.model);
    setDraft(fromModel(result.model, providers));
    // The agent page's own query keeps the new model for the next visit; the providers page's "Used by" follows.
    client.setQueryData<Agent>(queryKeys.agent(result.id), (old) => (old ? { ...old, model: result.model } : result));
    await afterModelChange(client);
    notify(message);
  }

  const save = useMutation({
    mutationFn: () => api.patch<Agent>(`/api/org/agents/${seg(agent.id)}`, { model: toInput(draft) }),
    onSuccess: (result) => saved(result, 'The model is saved.'),
    onError: () => errors.focusApiError(formRef.current),
  });
  const errors = useFormErrors(FIELDS, save.error);

  function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    if (save.isPending) return;
    if (errors.check(formRef.current, problems(draft))) save.mutate();
  }

  const provider = current ? providers.find((p) => p.id === current.providerId) : undefined;
  const dirty = !save.isPending && JSON.stringify(draft) !== JSON.stringify(fromModel(current, providers));
  return (
    <>
      <UnsavedChanges when={dirty} />
      <p className="models-wrap" role="status">
        {current ? (
          <>
            Now: <strong>{current.model}</strong> on {provider?.name ?? 'a provider'}, {current.maxToolRounds} tool {current.maxToolRounds === 1 ? 'round' : 'rounds'}
            {current.temperature === null ? '' : `, temperature ${current.temperature}`}.
            {provider && !provider.hasApiKey ? ' Its provider has no key.' : ''}
          </>
        ) : (
          'No model yet. Choose one below so this agent can hold conversations.'
        )}
      </p>
      <form ref={formRef} onSubmit={submit} noValidate aria-label="Model settings">
        <div className="row">
          <SelectField
            label="Provider"
            name="model.providerId"
            hint={
              <>
                <Link to={MODEL_PROVIDERS_PATH}>Manage model providers</Link>
              </>
            }
            value={draft.providerId}
            onChange={(e) => set({ providerId: e.target.value })}
            error={errors.error('model.providerId')}
          >
            {providers.map((p) => (
              <option key={p.id} value={p.id}>
                {p.name}
              </option>
            ))}
          </SelectField>
          <TextField
            label="Model"
            name="model.model"
            required
            maxLength={200}
            spellCheck={false}
            autoComplete="off"
            placeholder="gpt-4.1-mini"
            hint="The model’s id as the provider names it."
            value={draft.model}
            onChange={(e) => set({ model: e.target.value })}
            error={errors.error('model.model')}
          />
        </div>
        <TextArea
          label="Instructions"
          name="model.instructions"
          rows={6}
          maxLength={INSTRUCTIONS_MAX}
          hint="What the model is told before every conversation: who it speaks for, its tone, what it may do."
          value={draft.instructions}
          onChange={(e) => set({ instructions: e.target.value })}
          error={errors.error('model.instructions')}
        />
        <div className="row">
          <TextField
            label="Temperature (optional)"
            name="model.temperature"
            type="number"
            inputMode="decimal"
            min={0}
            max={2}
            step={0.1}
            className="narrow"
            hint="0 to 2. Lower is steadier; empty uses the provider’s default."
            value={draft.temperature}
            onChange={(e) => set({ temperature: e.target.value })}
            error={errors.error('model.temperature')}
          />
          <TextField
            label="Max tool rounds"
            name="model.maxToolRounds"
            type="number"
            inputMode="numeric"
            min={1}
            max={32}
            step={1}
            className="narrow"
            hint="1 to 32 rounds of tool calls in one turn, then it must answer."
            value={draft.maxToolRounds}
            onChange={(e) => set({ maxToolRounds: e.target.value })}
            error={errors.error('model.maxToolRounds')}
          />
        </div>
        <FormError error={errors.general ?? errors.error('model')} />
        <div className="actions">
          <button type="submit" className="button primary" aria-disabled={save.isPending}>
            {save.isPending ? 'Saving…' : 'Save model'}
          </button>
          {current ? (
            <ConfirmButton
              label="Remove model"
              buttonLabel="Remove model"
              title={`Remove the model of “${agent.name}”?`}
              confirmLabel="Remove model"
              onConfirm={async () => {
                const result = await api.patch<Agent>(`/api/org/agents/${seg(agent.id)}`, { model: null });
                await saved(result, 'The model is removed.');
              }}
            >
              <p>The agent cannot hold conversations until you choose a model again. Its tools and keys stay.</p>
            </ConfirmButton>
          ) : null}
        </div>
      </form>
    </>
  );
}
