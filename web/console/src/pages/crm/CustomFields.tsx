import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect, useRef, useState, type FormEvent } from 'react';
import { api, seg } from '../../api/client';
import { CUSTOM_FIELD_TYPES, type CustomField, type Deleted } from '../../api/types';
import { LimitNotice, UnavailableAction } from '../../components/LimitNotice';
import { Page } from '../../components/Page';
import { limitKeys, limitState, useOrgLimits } from '../../lib/limits';
import { QueryState } from '../../components/QueryState';
import { FormError, SelectField, TextArea, TextField } from '../../components/fields';
import { useNotify } from '../../lib/notices';
import { crmKeys, fetchCustomFields } from './api';
import { ConfirmButton } from '../../components/dialogs';
import { fieldError, formLevelError } from '../../lib/errors';
import { optionsFromText, suggestKey } from './custom-fields';
import { focusSoon } from './focus';
import './crm.css';

const TYPE_LABELS: Record<string, string> = {
  text: 'Text',
  textarea: 'Long text',
  number: 'Number',
  email: 'Email',
  phone: 'Phone',
  url: 'Web address',
  date: 'Date',
  checkbox: 'Checkbox',
  select: 'Choice list',
};

/** Custom field definitions: list, create, archive and restore, delete (with confirmation). */
export default function CustomFieldsPage() {
  const query = useQuery({ queryKey: crmKeys.customFields, queryFn: ({ signal }) => fetchCustomFields(signal) });
  const [creating, setCreating] = useState(false);
  const usage = useOrgLimits().data?.customFields;
  return (
    <Page
      title="Custom fields"
      intro="Extra questions your forms can ask, stored on contacts or opportunities."
      actions={
        creating ? null : limitState(usage) === 'reached' ? (
          <UnavailableAction describedBy="custom-fields-limit">New custom field</UnavailableAction>
        ) : (
          <button type="button" className="button primary" data-new-field onClick={() => setCreating(true)}>
            New custom field
          </button>
        )
      }
    >
      <LimitNotice id="custom-fields-limit" usage={usage} noun="custom fields (archived ones count)" holder="your organization" remedy="Delete a field you no longer need" />
      {creating ? <CreateField onDone={() => setCreating(false)} /> : null}
      <QueryState query={query}>
        {(fields) =>
          fields.length === 0 ? (
            <div className="empty">
              <p>No custom fields yet. Create one, then add it to a form to collect it from visitors.</p>
              {creating ? null : (
                <button type="button" className="button primary" onClick={() => setCreating(true)}>
                  Create a custom field
                </button>
              )}
            </div>
          ) : (
            <FieldTable fields={fields} />
          )
        }
      </QueryState>
    </Page>
  );
}

function CreateField({ onDone }: { onDone: () => void }) {
  const notify = useNotify();
  const client = useQueryClient();
  const [label, setLabel] = useState('');
  const [key, setKey] = useState('');
  const [keyEdited, setKeyEdited] = useState(false);
  const [entity, setEntity] = useState<'contact' | 'opportunity'>('contact');
  const [type, setType] = useState<string>('text');
  const [options, setOptions] = useState('');
  const form = useRef<HTMLFormElement>(null);
  useEffect(() => {
    form.current?.querySelector<HTMLInputElement>('input[name="label"]')?.focus();
  }, []);

  const create = useMutation({
    mutationFn: () =>
      api.post<CustomField>('/api/org/custom-fields', {
        key: key.trim(),
        label: label.trim(),
        entity,
        type,
        ...(type === 'select' ? { options: optionsFromText(options) } : {}),
      }),
    onSuccess: (field) => {
      void client.invalidateQueries({ queryKey: crmKeys.customFields });
      void client.invalidateQueries({ queryKey: limitKeys.all });
      notify(`Custom field ${field.label} created.`);
      onDone();
      focusSoon('[data-new-field]', 'main h1');
    },
    onError: (error) => {
      const name = ['key', 'label', 'entity', 'type', 'options'].find((f) => fieldError(error, f));
      if (name) form.current?.querySelector<HTMLElement>(`[name="${name}"]`)?.focus();
    },
  });

  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (!create.isPending) create.mutate();
  };
  const error = create.error;

  return (
    <section className="card crm-section" aria-labelledby="new-field">
      <h2 id="new-field">New custom field</h2>
      <form ref={form} onSubmit={submit} noValidate>
        <div className="row crm-form-row">
          <TextField
            label="Label"
            name="label"
            hint="What visitors and your team see"
            required
            maxLength={100}
            value={label}
            autoComplete="off"
            onChange={(e) => {
              setLabel(e.target.value);
              if (!keyEdited) setKey(suggestKey(e.target.value));
            }}
            error={fieldError(error, 'label')}
          />
          <TextField
            label="Key"
            name="key"
            hint="Lowercase letters, digits and _. Fixed once created."
            required
            maxLength={64}
            value={key}
            autoComplete="off"
            spellCheck={false}
            className="crm-code-input"
            onChange={(e) => {
              setKey(e.target.value);
              setKeyEdited(true);
            }}
            error={fieldError(error, 'key')}
          />
        </div>
        <div className="row crm-form-row">
          <SelectField label="Stored on" name="entity" value={entity} onChange={(e) => setEntity(e.target.value as 'contact' | 'opportunity')} error={fieldError(error, 'entity')}>
            <option value="contact">Contacts</option>
            <option value="opportunity">Opportunities</option>
          </SelectField>
          <SelectField label="Type" name="type" hint="Fixed once created." value={type} onChange={(e) => setType(e.target.value)} error={fieldError(error, 'type')}>
            {CUSTOM_FIELD_TYPES.map((t) => (
              <option key={t} value={t}>
                {TYPE_LABELS[t] ?? t}
              </option>
            ))}
          </SelectField>
        </div>
        {type === 'select' ? (
          <TextArea label="Choices" name="options" hint="One per line." required rows={4} value={options} onChange={(e) => setOptions(e.target.value)} error={fieldError(error, 'options')} />
        ) : null}
        <FormError error={formLevelError(error, ['key', 'label', 'entity', 'type', 'options'])} />
        <div className="actions">
          <button type="submit" className="button primary" aria-disabled={create.isPending || undefined}>
            {create.isPending ? 'Creating…' : 'Create field'}
          </button>
          <button
            type="button"
            className="button"
            onClick={() => {
              if (create.isPending) return;
              onDone();
              focusSoon('[data-new-field]', 'main h1');
            }}
            aria-disabled={create.isPending || undefined}
          >
            Cancel
          </button>
        </div>
      </form>
    </section>
  );
}

function FieldTable({ fields }: { fields: CustomField[] }) {
  // By label only: archiving keeps the row (and the focus on its button) where it is.
  const sorted = [...fields].sort((a, b) => a.label.localeCompare(b.label) || a.key.localeCompare(b.key));
  return (
    <div className="table-wrap crm-table-wrap">
      <table className="crm-fields">
        <caption className="visually-hidden">Custom fields</caption>
        <thead>
          <tr>
            <th scope="col">Label</th>
            <th scope="col">Key</th>
            <th scope="col">Type</th>
            <th scope="col">Stored on</th>
            <th scope="col">Status</th>
            <th scope="col">
              <span className="visually-hidden">Actions</span>
            </th>
          </tr>
        </thead>
        <tbody>
          {sorted.map((field) => (
            <FieldRow key={field.id} field={field} />
          ))}
        </tbody>
      </table>
    </div>
  );
}

function FieldRow({ field }: { field: CustomField }) {
  const notify = useNotify();
  const client = useQueryClient();
  const replace = (updated: CustomField) => {
    client.setQueryData<CustomField[]>(crmKeys.customFields, (old) => old?.map((f) => (f.id === updated.id ? updated : f)));
    void client.invalidateQueries({ queryKey: crmKeys.customFields });
  };
  const toggle = useMutation({
    mutationFn: () => api.post<CustomField>(`/api/org/custom-fields/${seg(field.id)}/${field.archived ? 'unarchive' : 'archive'}`),
    onSuccess: (updated) => {
      replace(updated);
      notify(updated.archived ? `${updated.label} archived.` : `${updated.label} restored.`);
    },
  });

  return (
    <tr>
      <th scope="row" className="crm-wrap crm-row-head">
        {field.label}
      </th>
      <td>
        <code>{field.key}</code>
      </td>
      <td>
        {TYPE_LABELS[field.type] ?? field.type}
        {field.options.length > 0 ? <span className="muted crm-small crm-options">{field.options.join(', ')}</span> : null}
      </td>
      <td>{field.entity === 'opportunity' ? 'Opportunities' : 'Contacts'}</td>
      <td>{field.archived ? <span className="badge off">Archived</span> : <span className="badge on">Active</span>}</td>
      <td>
        <div className="crm-row-actions">
          <button type="button" className="button small" aria-disabled={toggle.isPending || undefined} onClick={() => toggle.isPending || toggle.mutate()}>
            {field.archived ? 'Restore' : 'Archive'}
            <span className="visually-hidden"> {field.label}</span>
          </button>
          <ConfirmButton
            label="Delete"
            buttonLabel={`Delete ${field.label}`}
            title={`Delete ${field.label}?`}
            confirmLabel="Delete field"
            onConfirm={async () => {
              await api.delete<Deleted>(`/api/org/custom-fields/${seg(field.id)}`);
              client.setQueryData<CustomField[]>(crmKeys.customFields, (old) => old?.filter((f) => f.id !== field.id));
              void client.invalidateQueries({ queryKey: crmKeys.customFields });
              void client.invalidateQueries({ queryKey: limitKeys.all });
              notify(`Custom field ${field.label} deleted.`);
            }}
          >
            <p>
              Forms stop asking for it. Values already stored on records stay. To hide it for now and keep it, archive it instead.
            </p>
          </ConfirmButton>
        </div>
        {toggle.error ? (
          <p className="field-error" role="alert">
            {toggle.error.message}
          </p>
        ) : null}
      </td>
    </tr>
  );
}
