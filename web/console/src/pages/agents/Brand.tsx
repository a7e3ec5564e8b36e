import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useId, useMemo, useRef, useState, type FormEvent } from 'react';
import { Link, useNavigate } from 'react-router';
import { contrast, parseHex } from '../../../../form/contrast';
import type { PublicFormConfig } from '../../../../form/types';
import { api, seg } from '../../api/client';
import { queryKeys } from '../../api/lists';
import type { Agent, Branding } from '../../api/types';
import { FormError, TextField } from '../../components/fields';
import { FormPreview } from '../../components/FormPreview';
import { UnsavedChanges } from '../../components/UnsavedChanges';
import { useNotify } from '../../lib/notices';
import { useFormErrors } from '../../lib/useFormErrors';
import { agentPath } from './tabs';

const HEX = /^#(?:[0-9a-fA-F]{3}|[0-9a-fA-F]{6})$/;
const FONT = /^[A-Za-z0-9][A-Za-z0-9 ,'-]*$/;
const INPUTS = ['name', 'branding.name', 'branding.primaryColor', 'branding.backgroundColor', 'branding.textColor', 'branding.fontFamily', 'branding.logoUrl'];

interface Draft {
  name: string;
  branding: { name: string; primaryColor: string; backgroundColor: string; textColor: string; fontFamily: string; logoUrl: string };
}

const blank: Draft = {
  name: '',
  branding: { name: '', primaryColor: '#1a56db', backgroundColor: '#ffffff', textColor: '#1f2328', fontFamily: '', logoUrl: '' },
};

function fromAgent(agent: Agent): Draft {
  return { name: agent.name, branding: { ...agent.branding, fontFamily: agent.branding.fontFamily ?? '' } };
}

function toBody(draft: Draft): { name: string; branding: Branding } {
  const b = draft.branding;
  return {
    name: draft.name.trim(),
    branding: {
      name: b.name.trim(),
      primaryColor: b.primaryColor.trim(),
      backgroundColor: b.backgroundColor.trim(),
      textColor: b.textColor.trim(),
      fontFamily: b.fontFamily.trim() || null,
      logoUrl: b.logoUrl.trim(),
    },
  };
}

function checks(draft: Draft) {
  const b = draft.branding;
  const color = (value: string) => (HEX.test(value.trim()) ? null : 'Use a hex color like #1a56db.');
  let logo: string | null = null;
  try {
    if (new URL(b.logoUrl.trim()).protocol !== 'https:') logo = 'Use an address starting with https://.';
  } catch {
    logo = b.logoUrl.trim() ? 'Use a full address starting with https://.' : 'Enter the address of your logo (https://…).';
  }
  return {
    name: draft.name.trim() ? null : 'Give the agent a name.',
    'branding.name': b.name.trim() ? null : 'Enter the brand name visitors see.',
    'branding.primaryColor': color(b.primaryColor),
    'branding.backgroundColor': color(b.backgroundColor),
    'branding.textColor': color(b.textColor),
    'branding.fontFamily': !b.fontFamily.trim() || FONT.test(b.fontFamily.trim()) ? null : 'Use font names separated by commas, like Inter, sans-serif.',
    'branding.logoUrl': logo,
  };
}

function ColorField({ label, value, onChange, error }: { label: string; value: string; onChange: (value: string) => void; error: string | undefined }) {
  const id = useId();
  const valid = HEX.test(value);
  const full = valid && value.length === 4 ? `#${value[1]}${value[1]}${value[2]}${value[2]}${value[3]}${value[3]}` : value;
  return (
    <div className="field">
      <label htmlFor={id}>{label}</label>
      <div className="swatch-row">
        <input type="color" aria-label={`${label}: color picker`} value={valid ? full.toLowerCase() : '#000000'} onChange={(e) => onChange(e.target.value)} />
        <input
          id={id}
          type="text"
          spellCheck={false}
          autoComplete="off"
          value={value}
          onChange={(e) => onChange(e.target.value)}
          aria-invalid={error ? true : undefined}
          aria-describedby={error ? `${id}-error` : undefined}
        />
      </div>
      {error ? (
        <p id={`${id}-error`} className="field-error">
          {error}
        </p>
      ) : null}
    </div>
  );
}

/**
 * The agent's name and brand, beside a sample form in that brand: the Brand sub-page of an agent, and the
 * whole of the New agent page (`agent` null: Create agent, then its page).
 */
export function BrandForm({ agent }: { agent: Agent | null }) {
  const notify = useNotify();
  const client = useQueryClient();
  const navigate = useNavigate();
  const formRef = useRef<HTMLFormElement>(null);
  const [draft, setDraft] = useState<Draft>(() => (agent ? fromAgent(agent) : blank));
  const [saved, setSaved] = useState(agent);
  const setBrand = (change: Partial<Draft['branding']>) => setDraft((d) => ({ ...d, branding: { ...d.branding, ...change } }));

  const save = useMutation({
    mutationFn: () => (saved ? api.patch<Agent>(`/api/org/agents/${seg(saved.id)}`, toBody(draft)) : api.post<Agent>('/api/org/agents', toBody(draft))),
    onSuccess: (result) => {
      setSaved(result);
      setDraft(fromAgent(result));
      client.setQueryData(queryKeys.agent(result.id), result);
      void client.invalidateQueries({ queryKey: queryKeys.agents, exact: true });
      if (!saved) {
        notify(`Agent “${result.name}” created. Choose it on a form to use its brand.`);
        navigate(agentPath(result.id), { replace: true });
      } else notify('Saved.');
    },
    onError: () => errors.focusApiError(formRef.current),
  });
  const errors = useFormErrors(INPUTS, save.error);

  function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    if (save.isPending) return;
    if (errors.check(formRef.current, checks(draft))) save.mutate();
  }

  const b = draft.branding;
  const preview = useMemo<PublicFormConfig>(() => {
    const brand = toBody(draft).branding;
    const usable = HEX.test(brand.primaryColor) && HEX.test(brand.backgroundColor) && HEX.test(brand.textColor);
    const logoOk = checks(draft)['branding.logoUrl'] === null;
    return {
      slug: 'preview',
      title: `Contact ${brand.name || 'us'}`,
      fields: {
        name: { enabled: true, required: true },
        email: { enabled: true, required: true },
        phone: { enabled: false, required: false },
        company: { enabled: false, required: false },
        message: { enabled: true, required: false },
      },
      customFields: [],
      consentText: 'I agree to be contacted about my request.',
      consentVersion: 'preview',
      successMessage: 'Thank you! We will be in touch soon.',
      redirectUrl: null,
      // The logo shows only once it is a valid https address (the console's CSP loads https images).
      branding: usable ? { ...brand, name: brand.name || 'Your brand', logoUrl: logoOk ? brand.logoUrl.trim() : '' } : null,
    };
  }, [draft]);
  const dirty = !save.isPending && JSON.stringify(draft) !== JSON.stringify(saved ? fromAgent(saved) : blank);
  const text = parseHex(b.textColor);
  const background = parseHex(b.backgroundColor);
  const ratio = text && background ? contrast(text, background) : null;

  return (
    <>
      <UnsavedChanges when={dirty} />
      <div className="editor">
        <form ref={formRef} onSubmit={submit} noValidate aria-label="Agent settings">
          <section className="card" aria-labelledby="sec-agent">
            <h2 id="sec-agent">Agent</h2>
            <TextField
              label="Agent name"
              name="name"
              hint="For your team only, e.g. “Front desk”."
              maxLength={100}
              value={draft.name}
              onChange={(e) => setDraft((d) => ({ ...d, name: e.target.value }))}
              error={errors.error('name')}
            />
          </section>
          <section className="card" aria-labelledby="sec-brand">
            <h2 id="sec-brand">Brand</h2>
            <TextField label="Brand name" hint="Visitors see it on your forms." maxLength={100} value={b.name} onChange={(e) => setBrand({ name: e.target.value })} error={errors.error('branding.name')} />
            <div className="row">
              <ColorField label="Primary color" value={b.primaryColor} onChange={(primaryColor) => setBrand({ primaryColor })} error={errors.error('branding.primaryColor')} />
              <ColorField label="Background color" value={b.backgroundColor} onChange={(backgroundColor) => setBrand({ backgroundColor })} error={errors.error('branding.backgroundColor')} />
              <ColorField label="Text color" value={b.textColor} onChange={(textColor) => setBrand({ textColor })} error={errors.error('branding.textColor')} />
            </div>
            {ratio !== null && ratio < 4.5 ? (
              <p className="notice" role="status">
                Text and background have a contrast of {ratio.toFixed(1)}:1, under the 4.5:1 people need to read comfortably. Forms will use black or white text
                instead.
              </p>
            ) : null}
            <TextField
              label="Font (optional)"
              hint="A CSS font list, like Inter, sans-serif. Leave empty for the visitor’s default font."
              maxLength={100}
              value={b.fontFamily}
              onChange={(e) => setBrand({ fontFamily: e.target.value })}
              error={errors.error('branding.fontFamily')}
            />
            <TextField
              label="Logo address"
              type="url"
              inputMode="url"
              placeholder="https://example.com/logo.png"
              hint="An https:// address of your logo image."
              maxLength={2048}
              value={b.logoUrl}
              onChange={(e) => setBrand({ logoUrl: e.target.value })}
              error={errors.error('branding.logoUrl')}
            />
          </section>
          <FormError error={errors.general ?? errors.error('branding')} />
          <div className="actions sticky-actions">
            <button type="submit" className="button primary" aria-disabled={save.isPending}>
              {save.isPending ? 'Saving…' : saved ? 'Save changes' : 'Create agent'}
            </button>
            {saved ? null : (
              <Link className="button" to="/agents">
                Cancel
              </Link>
            )}
          </div>
        </form>
        <aside className="preview" aria-labelledby="agent-preview-title">
          <h2 id="agent-preview-title">Preview</h2>
          <FormPreview config={preview} label="Brand preview" />
          <p className="hint">The logo appears above the title on your forms.</p>
        </aside>
      </div>
    </>
  );
}
