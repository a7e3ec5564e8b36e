import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useMemo, useRef, useState, type FormEvent } from 'react';
import { Button, ComboBox, Input, Label, ListBox, ListBoxItem, Popover, Text } from 'react-aria-components';
import { Link, useNavigate, useParams } from 'react-router';
import { api, seg } from '../../api/client';
import { queryKeys, useAgents, useCustomFields, usePipelines } from '../../api/lists';
import type { ConsentVersion, CustomField, FormWithCounts, Member, Page as PageOf } from '../../api/types';
import { useCurrentSession } from '../../api/session';
import { BUILT_IN_FIELDS } from '../../api/types';
import { ConfirmButton } from '../../components/dialogs';
import { CheckboxField, FormError, TextArea, TextField } from '../../components/fields';
import { FormPreview } from '../../components/FormPreview';
import { Page } from '../../components/Page';
import { Picker } from '../../components/Picker';
import { LoadError, Loading, QueryState } from '../../components/QueryState';
import { UnsavedChanges } from '../../components/UnsavedChanges';
import { formatDateTime, plural } from '../../lib/format';
import { useNotify } from '../../lib/notices';
import { useFormErrors } from '../../lib/useFormErrors';
import { EmbedButton } from './EmbedDialog';
import { changes, checkDraft, draftFromForm, FIELD_LABELS, LIMITS, moveItem, newDraft, previewConfig, setField, slugify, toInput, type Draft } from './formBody';

const INPUTS = ['title', 'slug', 'fields', 'customFields', 'consentText', 'successMessage', 'redirectUrl', 'agentId', 'pipelineId', 'stageId', 'notify'] as const;

/** /forms/new and /forms/:id: every setting of a form, with the live preview beside it. */
export default function FormEditPage() {
  const { id } = useParams();
  if (!id) return <Editor key="new" form={null} />;
  return <ExistingForm id={id} />;
}

function ExistingForm({ id }: { id: string }) {
  const form = useQuery({ queryKey: queryKeys.form(id), queryFn: () => api.get<FormWithCounts>(`/api/org/forms/${seg(id)}`) });
  return (
    <QueryState query={form} what="form">
      {(data) => <Editor key={data.id} form={data} />}
    </QueryState>
  );
}

function Editor({ form }: { form: FormWithCounts | null }) {
  const notify = useNotify();
  const client = useQueryClient();
  const navigate = useNavigate();
  const formRef = useRef<HTMLFormElement>(null);
  const agents = useAgents();
  const definitions = useCustomFields();
  const pipelines = usePipelines();
  const [saved, setSaved] = useState(form);
  const [draft, setDraft] = useState<Draft>(() => (form ? draftFromForm(form) : newDraft()));
  const [slugTouched, setSlugTouched] = useState(!!form);
  const update = (change: Partial<Draft>) => setDraft((current) => ({ ...current, ...change }));

  const save = useMutation({
    mutationFn: async () => {
      const input = toInput(draft);
      if (!saved) return { created: true, form: await api.post<FormWithCounts>('/api/org/forms', input) };
      const { active: _active, ...patch } = changes(toInput(draftFromForm(saved)), input);
      if (!Object.keys(patch).length) return { created: false, form: null };
      return { created: false, form: await api.patch<FormWithCounts>(`/api/org/forms/${seg(saved.id)}`, patch) };
    },
    onSuccess: ({ created, form: result }) => {
      void client.invalidateQueries({ queryKey: queryKeys.forms });
      if (!result) return notify('Nothing changed since the last save.');
      if (created) {
        client.setQueryData(queryKeys.form(result.id), { ...result, views: 0, submissions: 0 });
        notify(`Form created. ${result.active ? `It is live at /f/${result.slug}.` : 'Activate it when you are ready.'}`);
        navigate(`/forms/${result.id}`, { replace: true });
        return;
      }
      const newVersion = saved && result.consentVersion !== saved.consentVersion;
      const merged = { ...saved!, ...result };
      setSaved(merged);
      setDraft(draftFromForm(merged));
      client.setQueryData(queryKeys.form(result.id), merged);
      notify(newVersion ? `Saved. The consent text is now version ${result.consentVersion}.` : 'Saved.');
    },
    onError: () => errors.focusApiError(formRef.current),
  });
  const errors = useFormErrors(INPUTS, save.error);

  function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    if (save.isPending) return;
    if (errors.check(formRef.current, checkDraft(draft))) save.mutate();
  }

  const config = useMemo(() => previewConfig(draft, definitions.data ?? [], agents.data ?? []), [draft, definitions.data, agents.data]);
  const consentChanged = !!saved && draft.consentText !== saved.consentText;
  // While a save is in flight nothing is unsaved (a create navigates to the new form when it succeeds).
  const dirty = !save.isPending && JSON.stringify(draft) !== JSON.stringify(saved ? draftFromForm(saved) : newDraft());
  const title = saved ? saved.title : 'New form';

  return (
    <Page
      title={title}
      actions={
        saved ? (
          <FormActions
            form={saved}
            onChange={(next) => {
              setSaved(next);
              update({ active: next.active });
            }}
          />
        ) : null
      }
      intro={
        saved ? (
          <>
            {saved.active ? 'Live' : 'Inactive'} at <code>/f/{saved.slug}</code> · {plural(saved.views, 'view')} · {plural(saved.submissions, 'submission')} ·{' '}
            <Link to={`/forms/${saved.id}/submissions`}>See submissions</Link>
          </>
        ) : (
          'Choose what the form asks and what happens with each lead. The preview shows the form as visitors will see it.'
        )
      }
    >
      <UnsavedChanges when={dirty} />
      <div className="editor">
        <form ref={formRef} onSubmit={submit} noValidate aria-label="Form settings">
          <section className="card" aria-labelledby="sec-basics">
            <h2 id="sec-basics">Basics</h2>
            <TextField
              label="Title"
              name="title"
              required
              maxLength={LIMITS.title}
              hint="Shown above the form."
              value={draft.title}
              onChange={(e) => update({ title: e.target.value, ...(slugTouched ? {} : { slug: slugify(e.target.value) }) })}
              error={errors.error('title')}
            />
            <TextField
              label="Address (slug)"
              name="slug"
              required
              hint={
                <>
                  The form lives at <code>/f/{draft.slug || 'your-slug'}</code>. Lowercase letters, digits and hyphens.
                  {saved ? ' Changing it breaks links and embeds that use the old one.' : ''}
                </>
              }
              value={draft.slug}
              onChange={(e) => {
                setSlugTouched(true);
                update({ slug: e.target.value.toLowerCase() });
              }}
              error={errors.error('slug')}
            />
            {!saved ? (
              <CheckboxField
                label="Publish at once"
                hint="Inactive forms answer “not available” until you activate them."
                checked={draft.active}
                onChange={(e) => update({ active: e.target.checked })}
              />
            ) : null}
          </section>

          <section className="card" aria-labelledby="sec-fields">
            <h2 id="sec-fields">Fields</h2>
            <FieldsTable draft={draft} setDraft={setDraft} error={errors.error('fields')} />
            <CustomFieldsEditor draft={draft} update={update} definitions={definitions} error={errors.error('customFields')} />
          </section>

          <section className="card" aria-labelledby="sec-consent">
            <h2 id="sec-consent">Consent</h2>
            <TextArea
              label="Consent text"
              name="consentText"
              required
              rows={4}
              maxLength={LIMITS.consentText}
              hint={
                saved
                  ? `Visitors tick a box to agree to it. Editing it makes a new version (now version ${saved.consentVersion}); each submission keeps the text its visitor agreed to.`
                  : 'Visitors tick a box to agree to it. Each submission keeps the exact text its visitor agreed to.'
              }
              value={draft.consentText}
              onChange={(e) => update({ consentText: e.target.value })}
              error={errors.error('consentText')}
            />
            {consentChanged ? (
              <p className="notice" role="status">
                Saving will make consent version {Number(saved.consentVersion) ? Number(saved.consentVersion) + 1 : 'a new version'}. Visitors who have the form
                open are asked to agree to the new text.
              </p>
            ) : null}
            {saved ? <ConsentVersions formId={saved.id} current={saved.consentVersion} /> : null}
          </section>

          <section className="card" aria-labelledby="sec-after">
            <h2 id="sec-after">After sending</h2>
            <TextArea
              label="Success message"
              name="successMessage"
              required
              rows={2}
              maxLength={LIMITS.successMessage}
              value={draft.successMessage}
              onChange={(e) => update({ successMessage: e.target.value })}
              error={errors.error('successMessage')}
            />
            <TextField
              label="Redirect to (optional)"
              name="redirectUrl"
              type="url"
              inputMode="url"
              placeholder="https://example.com/thank-you"
              hint="Leave empty to show the success message on the form."
              value={draft.redirectUrl}
              onChange={(e) => update({ redirectUrl: e.target.value })}
              error={errors.error('redirectUrl')}
            />
          </section>

          <section className="card" aria-labelledby="sec-brand">
            <h2 id="sec-brand">Brand</h2>
            <BrandPicker draft={draft} update={update} agents={agents} error={errors.error('agentId')} />
          </section>

          <section className="card" aria-labelledby="sec-opps">
            <h2 id="sec-opps">Opportunities</h2>
            <CheckboxField
              label="Open an opportunity for every lead"
              hint="It lands in the pipeline and stage you choose here, ready to follow up."
              checked={draft.createOpportunity}
              onChange={(e) => update({ createOpportunity: e.target.checked })}
            />
            {draft.createOpportunity ? (
              <PipelinePickers draft={draft} update={update} pipelines={pipelines} errors={{ pipelineId: errors.error('pipelineId'), stageId: errors.error('stageId') }} />
            ) : null}
          </section>

          <section className="card" aria-labelledby="sec-notify">
            <h2 id="sec-notify">Notifications</h2>
            <NotifyEditor draft={draft} update={update} error={errors.error('notify')} />
          </section>

          <FormError error={errors.general} />
          <div className="actions sticky-actions">
            <button type="submit" className="button primary" aria-disabled={save.isPending}>
              {save.isPending ? 'Saving…' : saved ? 'Save changes' : 'Create form'}
            </button>
            <Link className="button" to="/forms">
              {saved ? 'Back to forms' : 'Cancel'}
            </Link>
          </div>
        </form>
        <aside className="preview" aria-labelledby="preview-title">
          <h2 id="preview-title">Preview</h2>
          <p className="hint">
            Drawn by the same code as your live form (without the brand’s logo, which the console does not load). Sending it here checks the fields and sends
            nothing.
          </p>
          <FormPreview config={config} label="Form preview" />
        </aside>
      </div>
    </Page>
  );
}

function FormActions({ form, onChange }: { form: FormWithCounts; onChange: (form: FormWithCounts) => void }) {
  const notify = useNotify();
  const client = useQueryClient();
  const navigate = useNavigate();
  const toggle = useMutation({
    mutationFn: () => api.patch<FormWithCounts>(`/api/org/forms/${seg(form.id)}`, { active: !form.active }),
    onSuccess: (result) => {
      const merged = { ...form, ...result };
      onChange(merged);
      client.setQueryData(queryKeys.form(form.id), merged);
      void client.invalidateQueries({ queryKey: queryKeys.forms, exact: true });
      notify(result.active ? 'The form is live.' : 'The form is inactive: visitors see “not available”.');
    },
    onError: (error) => notify(error.message),
  });
  return (
    <>
      <span className={form.active ? 'badge on' : 'badge off'}>{form.active ? 'Active' : 'Inactive'}</span>
      <button type="button" className="button" aria-disabled={toggle.isPending} onClick={() => !toggle.isPending && toggle.mutate()}>
        {form.active ? 'Deactivate' : 'Activate'}
      </button>
      <EmbedButton form={form} />
      <ConfirmButton
        label="Delete"
        buttonLabel={`Delete form ${form.title}`}
        title={`Delete “${form.title}”?`}
        confirmLabel="Delete form"
        onConfirm={async () => {
          await api.delete(`/api/org/forms/${seg(form.id)}`);
          client.removeQueries({ queryKey: queryKeys.form(form.id) });
          await client.invalidateQueries({ queryKey: queryKeys.forms });
          navigate('/forms', { replace: true, state: { skipUnsaved: true } });
          notify(`“${form.title}” was deleted.`);
        }}
      >
        <p>
          Its {form.submissions} submission records and consent history are deleted too. Contacts, notes and opportunities stay in your CRM. To stop the form but
          keep its records, deactivate it instead.
        </p>
      </ConfirmButton>
    </>
  );
}

function FieldsTable({ draft, setDraft, error }: { draft: Draft; setDraft: (fn: (d: Draft) => Draft) => void; error: string | undefined }) {
  const errorId = 'fields-error';
  return (
    <fieldset aria-describedby={error ? `${errorId} fields-hint` : 'fields-hint'} aria-invalid={error ? true : undefined}>
      <legend>Standard fields</legend>
      <p id="fields-hint" className="hint">
        Show email or phone (or both) so every lead can be reached. A required field is always shown.
      </p>
      <table className="field-grid">
        <thead>
          <tr>
            <th scope="col">Field</th>
            <th scope="col">Show</th>
            <th scope="col">Required</th>
          </tr>
        </thead>
        <tbody>
          {BUILT_IN_FIELDS.map((name) => (
            <tr key={name}>
              <th scope="row">{FIELD_LABELS[name]}</th>
              <td>
                <input
                  type="checkbox"
                  aria-label={`Show ${FIELD_LABELS[name]}`}
                  checked={draft.fields[name].enabled}
                  onChange={(e) => setDraft((d) => ({ ...d, fields: setField(d.fields, name, { enabled: e.target.checked }) }))}
                />
              </td>
              <td>
                <input
                  type="checkbox"
                  aria-label={`${FIELD_LABELS[name]} required`}
                  checked={draft.fields[name].required}
                  onChange={(e) => setDraft((d) => ({ ...d, fields: setField(d.fields, name, { required: e.target.checked }) }))}
                />
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      {error ? (
        <p id={errorId} className="field-error">
          {error}
        </p>
      ) : null}
    </fieldset>
  );
}

function CustomFieldsEditor({
  draft,
  update,
  definitions,
  error,
}: {
  draft: Draft;
  update: (change: Partial<Draft>) => void;
  definitions: ReturnType<typeof useCustomFields>;
  error: string | undefined;
}) {
  const [input, setInput] = useState('');
  const byKey = new Map((definitions.data ?? []).map((d) => [d.key, d]));
  const chosen = new Set(draft.customFields.map((c) => c.key));
  const available = (definitions.data ?? []).filter((d) => !d.archived && !chosen.has(d.key));
  const list = draft.customFields;
  const set = (customFields: Draft['customFields']) => update({ customFields });
  const boxRef = useRef<HTMLFieldSetElement>(null);

  return (
    <fieldset ref={boxRef} aria-invalid={error ? true : undefined} aria-describedby={error ? 'custom-fields-error' : undefined}>
      <legend>Custom fields</legend>
      {definitions.isError ? <LoadError error={definitions.error} retry={() => void definitions.refetch()} /> : null}
      {list.length ? (
        <ul className="chosen" aria-label="Custom fields on this form">
          {list.map((ref, index) => {
            const definition = byKey.get(ref.key);
            const label = definition?.label ?? ref.key;
            return (
              <li key={ref.key}>
                <span className="grow">
                  <strong>{label}</strong>{' '}
                  <span className="muted">
                    {ref.key} · {definition ? `${definition.type}, saved on the ${definition.entity}` : 'unknown field'}
                    {definition?.archived ? ' · archived: not shown to visitors' : ''}
                  </span>
                </span>
                <label className="inline-check">
                  <input type="checkbox" checked={ref.required} onChange={(e) => set(list.map((c, i) => (i === index ? { ...c, required: e.target.checked } : c)))} />{' '}
                  Required
                  <span className="visually-hidden"> ({label})</span>
                </label>
                <span className="row-actions">
                  {/* aria-disabled, not disabled: the button keeps focus when its row reaches the end. */}
                  <button
                    type="button"
                    className="button small"
                    aria-label={`Move ${label} up`}
                    aria-disabled={index === 0}
                    onClick={() => index > 0 && set(moveItem(list, index, -1))}
                  >
                    ↑
                  </button>
                  <button
                    type="button"
                    className="button small"
                    aria-label={`Move ${label} down`}
                    aria-disabled={index === list.length - 1}
                    onClick={() => index < list.length - 1 && set(moveItem(list, index, 1))}
                  >
                    ↓
                  </button>
                  <button
                    type="button"
                    className="button small"
                    aria-label={`Remove ${label}`}
                    onClick={() => {
                      set(list.filter((_, i) => i !== index));
                      // The row is gone: focus goes to the next row's remove button, or to the picker.
                      requestAnimationFrame(() => {
                        const box = boxRef.current;
                        const buttons = box?.querySelectorAll<HTMLElement>('.chosen button[aria-label^="Remove"]');
                        const target = buttons?.[Math.min(index, (buttons?.length ?? 1) - 1)] ?? box?.querySelector<HTMLElement>('input, a');
                        target?.focus();
                      });
                    }}
                  >
                    Remove
                  </button>
                </span>
              </li>
            );
          })}
        </ul>
      ) : (
        <p className="muted">No custom fields on this form yet.</p>
      )}
      {definitions.isPending ? (
        <Loading label="Loading your custom fields…" />
      ) : definitions.data && definitions.data.filter((d) => !d.archived).length === 0 ? (
        <p>
          Your organization has no custom fields yet. <Link to="/custom-fields">Create one</Link> (an insurer, a budget, a preferred date…), then come back to add
          it here.
        </p>
      ) : available.length ? (
        <ComboBox
          className="field"
          items={available}
          inputValue={input}
          onInputChange={setInput}
          selectedKey={null}
          onSelectionChange={(key) => {
            if (key === null) return;
            set([...list, { key: String(key), required: false }]);
            setInput('');
          }}
          menuTrigger="focus"
        >
          <Label>Add a custom field</Label>
          <Text slot="description" className="hint">
            Type to search your organization’s fields.
          </Text>
          <div className="combo">
            <Input />
            <Button className="button" aria-label="Show custom fields">
              ▾
            </Button>
          </div>
          <Popover className="popover combo-popover" placement="bottom start">
            <ListBox<CustomField> className="menu" renderEmptyState={() => <p className="menu-item muted">No field matches.</p>}>
              {(item) => (
                <ListBoxItem id={item.key} className="menu-item" textValue={`${item.label} ${item.key}`}>
                  {item.label} <span className="item-desc">({item.key}, {item.type})</span>
                </ListBoxItem>
              )}
            </ListBox>
          </Popover>
        </ComboBox>
      ) : (
        <p className="muted">Every custom field of your organization is on this form.</p>
      )}
      {error ? (
        <p id="custom-fields-error" className="field-error">
          {error}
        </p>
      ) : null}
    </fieldset>
  );
}

function BrandPicker({
  draft,
  update,
  agents,
  error,
}: {
  draft: Draft;
  update: (change: Partial<Draft>) => void;
  agents: ReturnType<typeof useAgents>;
  error: string | undefined;
}) {
  if (agents.isPending) return <Loading label="Loading your agents…" />;
  if (agents.isError) return <LoadError error={agents.error} retry={() => void agents.refetch()} />;
  const items = [{ id: '', label: 'Default style' }, ...agents.data.map((agent) => ({ id: agent.id, label: agent.branding.name, description: `(${agent.name})` }))];
  const missing = draft.agentId && !agents.data.some((a) => a.id === draft.agentId);
  return (
    <>
      <Picker
        label="Style the form with the brand of"
        hint={
          agents.data.length ? (
            'The agent’s colors, font and logo.'
          ) : (
            <>
              No agents yet: <Link to="/agents/new">create one</Link> to give forms your colors and logo.
            </>
          )
        }
        items={missing ? [...items, { id: draft.agentId!, label: 'An agent that no longer exists' }] : items}
        selected={draft.agentId ?? ''}
        onChange={(id) => update({ agentId: id || null })}
        error={error}
      />
    </>
  );
}

/** Who each lead is emailed to: the owners, or members an owner chooses (the members list is an owner's). */
function NotifyEditor({ draft, update, error }: { draft: Draft; update: (change: Partial<Draft>) => void; error: string | undefined }) {
  const session = useCurrentSession();
  const isOwner = session.user.role === 'owner';
  const members = useQuery({
    queryKey: queryKeys.members,
    queryFn: async () => {
      const answer = await api.get<Member[] | PageOf<Member>>('/api/org/members');
      return Array.isArray(answer) ? answer : answer.items;
    },
    enabled: isOwner && draft.notifyEnabled && draft.notifyRecipients !== 'owners',
  });
  const chosen = draft.notifyRecipients === 'owners' ? null : draft.notifyRecipients;
  const errorId = 'notify-error';
  return (
    <>
      <CheckboxField
        label="Email each new lead"
        name="notifyEnabled"
        hint="Sent when the server has SMTP_URL. Each person can turn these emails off in Settings → Notifications."
        checked={draft.notifyEnabled}
        onChange={(e) => update({ notifyEnabled: e.target.checked })}
      />
      {draft.notifyEnabled ? (
        <fieldset aria-describedby={error ? errorId : undefined}>
          <legend>Who gets the email</legend>
          <div className="check">
            <input id="notify-owners" type="radio" name="notify" checked={chosen === null} onChange={() => update({ notifyRecipients: 'owners' })} />
            <label htmlFor="notify-owners">The organization’s owners</label>
          </div>
          <div className="check">
            <input
              id="notify-chosen"
              type="radio"
              name="notify"
              checked={chosen !== null}
              disabled={!isOwner && chosen === null}
              aria-describedby={!isOwner ? 'notify-owner-only' : undefined}
              onChange={() => update({ notifyRecipients: [session.user.id] })}
            />
            <label htmlFor="notify-chosen">Members I choose</label>
          </div>
          {!isOwner ? (
            <p className="hint" id="notify-owner-only">
              {chosen === null ? 'Only an owner can choose members.' : `${plural(chosen.length, 'chosen member')}. Only an owner can change them.`}
            </p>
          ) : chosen !== null ? (
            members.isPending ? (
              <Loading label="Loading the members…" />
            ) : members.isError ? (
              <LoadError error={members.error} retry={() => void members.refetch()} />
            ) : (
              <fieldset>
                <legend>Members</legend>
                {members.data.map((member) => (
                  <CheckboxField
                    key={member.id}
                    label={`${member.name} (${member.email})`}
                    checked={chosen.includes(member.id)}
                    onChange={(e) => update({ notifyRecipients: e.target.checked ? [...chosen, member.id] : chosen.filter((id) => id !== member.id) })}
                  />
                ))}
              </fieldset>
            )
          ) : null}
          {error ? (
            <p id={errorId} className="field-error">
              {error}
            </p>
          ) : null}
        </fieldset>
      ) : null}
    </>
  );
}

function PipelinePickers({
  draft,
  update,
  pipelines,
  errors,
}: {
  draft: Draft;
  update: (change: Partial<Draft>) => void;
  pipelines: ReturnType<typeof usePipelines>;
  errors: { pipelineId: string | undefined; stageId: string | undefined };
}) {
  if (pipelines.isPending) return <Loading label="Loading your pipelines…" />;
  if (pipelines.isError) return <LoadError error={pipelines.error} retry={() => void pipelines.refetch()} />;
  const defaultPipeline = pipelines.data.find((p) => p.isDefault);
  const pipeline = draft.pipelineId ? pipelines.data.find((p) => p.id === draft.pipelineId) : defaultPipeline;
  const stages = [...(pipeline?.stages ?? [])].sort((a, b) => a.position - b.position);
  const pipelineItems = [
    { id: '', label: `Default pipeline${defaultPipeline ? ` (${defaultPipeline.name})` : ''}` },
    ...pipelines.data.map((p) => ({ id: p.id, label: p.name })),
  ];
  if (draft.pipelineId && !pipelines.data.some((p) => p.id === draft.pipelineId)) pipelineItems.push({ id: draft.pipelineId, label: 'A pipeline that no longer exists' });
  const stageItems = [{ id: '', label: `First stage${stages[0] ? ` (${stages[0].name})` : ''}` }, ...stages.map((s) => ({ id: s.id, label: s.name }))];
  if (draft.stageId && !stages.some((s) => s.id === draft.stageId)) stageItems.push({ id: draft.stageId, label: 'A stage that no longer exists' });
  return (
    <>
      <div className="row">
        <Picker label="Pipeline" items={pipelineItems} selected={draft.pipelineId ?? ''} onChange={(id) => update({ pipelineId: id || null, stageId: null })} error={errors.pipelineId} />
        <Picker
          label="Stage"
          items={stageItems}
          selected={draft.stageId ?? ''}
          // A stage of the default pipeline names that pipeline: the API takes a stage with its pipeline.
          onChange={(id) => update({ stageId: id || null, pipelineId: draft.pipelineId ?? (id ? (defaultPipeline?.id ?? null) : null) })}
          error={errors.stageId}
        />
      </div>
    </>
  );
}

function ConsentVersions({ formId, current }: { formId: string; current: string }) {
  const versions = useQuery({
    queryKey: [...queryKeys.consentVersions(formId), current],
    queryFn: async () => {
      const data = await api.get<ConsentVersion[] | PageOf<ConsentVersion>>(`/api/org/forms/${seg(formId)}/consent-versions`);
      return Array.isArray(data) ? data : data.items;
    },
  });
  return (
    <details className="history">
      <summary>Past versions of the consent text</summary>
      {versions.isPending ? (
        <Loading />
      ) : versions.isError ? (
        <LoadError error={versions.error} retry={() => void versions.refetch()} />
      ) : (
        <ol className="versions" aria-label="Consent versions, newest first">
          {versions.data.map((version) => (
            <li key={version.version}>
              <p>
                <strong>Version {version.version}</strong>
                {version.version === current ? ' (current)' : ''} · <span className="muted">{formatDateTime(version.createdAt)}</span>
              </p>
              <p className="pre">{version.text}</p>
            </li>
          ))}
        </ol>
      )}
    </details>
  );
}
