import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useRef, useState, type FormEvent } from 'react';
import { Link, useParams } from 'react-router';
import { api, seg } from '../../api/client';
import { Page } from '../../components/Page';
import { QueryState } from '../../components/QueryState';
import { FormError, TextArea } from '../../components/fields';
import { useNotify } from '../../lib/notices';
import { crmKeys, fetchContact, fetchCustomFields, fetchForms, fetchPipelines } from './api';
import type { ContactDetail, ContactSubmission, Note } from '../../api/types';
import { fieldError, formLevelError } from '../../lib/errors';
import { displayValue, formatDateTime } from '../../lib/format';
import { contactName, customRows } from './format';
import './crm.css';

/** A contact: its fields, custom values, notes (add one), opportunities and form submissions. */
export default function ContactPage() {
  const { id = '' } = useParams();
  const query = useQuery({ queryKey: crmKeys.contact(id), queryFn: ({ signal }) => fetchContact(id, signal) });
  return (
    <QueryState query={query} what="contact">
      {(contact) => <ContactView contact={contact} />}
    </QueryState>
  );
}

function ContactView({ contact }: { contact: ContactDetail }) {
  const fields = useQuery({ queryKey: crmKeys.customFields, queryFn: ({ signal }) => fetchCustomFields(signal) });
  const pipelines = useQuery({ queryKey: crmKeys.pipelines, queryFn: ({ signal }) => fetchPipelines(signal) });
  const custom = customRows(contact.custom, fields.data);
  const name = contactName(contact);

  return (
    <Page title={name} intro={<Link to="/contacts">Back to contacts</Link>}>
      <div className="crm-contact">
        <section className="card crm-section" aria-labelledby="contact-details">
          <h2 id="contact-details">Details</h2>
          <dl className="kv">
            <dt>Name</dt>
            <dd>{contact.name ?? '—'}</dd>
            <dt>Email</dt>
            <dd>{contact.email ? <a href={`mailto:${contact.email}`}>{contact.email}</a> : '—'}</dd>
            <dt>Phone</dt>
            <dd>{contact.phone ? <a href={`tel:${contact.phone}`}>{contact.phone}</a> : '—'}</dd>
            <dt>Company</dt>
            <dd>{contact.company ?? '—'}</dd>
            <dt>Source</dt>
            <dd>{sourceLabel(contact.source)}</dd>
            <dt>Added</dt>
            <dd>{formatDateTime(contact.createdAt)}</dd>
          </dl>
          <h3 className="crm-subhead">Custom fields</h3>
          {custom.length === 0 ? (
            <p className="muted">No custom values. Add custom fields to your forms to collect more.</p>
          ) : (
            <dl className="kv">
              {custom.map((row) => (
                <div key={row.key} className="crm-kv-row">
                  <dt>
                    {row.label}
                    {row.archived ? <span className="muted"> (archived)</span> : null}
                  </dt>
                  <dd>{row.value}</dd>
                </div>
              ))}
            </dl>
          )}
        </section>

        <Notes contactId={contact.id} notes={contact.notes} />

        <section className="card crm-section" aria-labelledby="contact-opportunities">
          <h2 id="contact-opportunities">Opportunities</h2>
          {contact.opportunities.length === 0 ? (
            <p className="muted">No opportunities. Forms set to open opportunities add one with each submission.</p>
          ) : (
            <ul className="crm-list">
              {contact.opportunities.map((opportunity) => {
                const pipeline = pipelines.data?.find((p) => p.id === opportunity.pipelineId);
                const stage = pipeline?.stages.find((s) => s.id === opportunity.stageId);
                return (
                  <li key={opportunity.id}>
                    <Link to={`/pipelines/${encodeURIComponent(opportunity.pipelineId)}?opportunity=${encodeURIComponent(opportunity.id)}`}>{opportunity.title}</Link>
                    <span className="muted">
                      {' '}
                      {pipeline ? `· ${pipeline.name}${stage ? `, ${stage.name}` : ''}` : null} · {formatDateTime(opportunity.createdAt)}
                    </span>
                    <OpportunityCustom custom={opportunity.custom} />
                  </li>
                );
              })}
            </ul>
          )}
        </section>

        <section className="card crm-section" aria-labelledby="contact-submissions">
          <h2 id="contact-submissions">Form submissions</h2>
          {contact.submissions.length === 0 ? (
            <p className="muted">No form submissions. This contact was added another way.</p>
          ) : (
            <ul className="crm-list">
              {contact.submissions.map((submission) => (
                <SubmissionItem key={submission.id} submission={submission} />
              ))}
            </ul>
          )}
        </section>
      </div>
    </Page>
  );
}

function sourceLabel(source: string): string {
  return source === 'form' ? 'Form' : source === 'api' ? 'API' : source === 'panel' ? 'Console' : source;
}

function OpportunityCustom({ custom }: { custom: Record<string, unknown> }) {
  const fields = useQuery({ queryKey: crmKeys.customFields, queryFn: ({ signal }) => fetchCustomFields(signal) });
  const rows = customRows(custom, fields.data);
  if (rows.length === 0) return null;
  return (
    <dl className="kv crm-small">
      {rows.map((row) => (
        <div key={row.key} className="crm-kv-row">
          <dt>{row.label}</dt>
          <dd>{row.value}</dd>
        </div>
      ))}
    </dl>
  );
}

function Notes({ contactId, notes }: { contactId: string; notes: Note[] }) {
  const notify = useNotify();
  const client = useQueryClient();
  const [body, setBody] = useState('');
  const form = useRef<HTMLFormElement>(null);
  const add = useMutation({
    mutationFn: (text: string) => api.post<Note>(`/api/org/contacts/${seg(contactId)}/notes`, { body: text }),
    onSuccess: (note) => {
      client.setQueryData<ContactDetail>(crmKeys.contact(contactId), (old) => (old ? { ...old, notes: [note, ...old.notes.filter((n) => n.id !== note.id)] } : old));
      void client.invalidateQueries({ queryKey: crmKeys.contact(contactId) });
      setBody('');
      notify('Note added.');
    },
    onError: () => form.current?.querySelector('textarea')?.focus(),
  });
  const [empty, setEmpty] = useState(false);
  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (add.isPending) return;
    if (!body.trim()) {
      setEmpty(true);
      form.current?.querySelector('textarea')?.focus();
      return;
    }
    setEmpty(false);
    add.mutate(body);
  };
  const error = add.error;
  return (
    <section className="card crm-section" aria-labelledby="contact-notes">
      <h2 id="contact-notes">Notes</h2>
      <form ref={form} onSubmit={submit} noValidate>
        <TextArea
          label="New note"
          name="body"
          rows={3}
          maxLength={10000}
          value={body}
          onChange={(e) => {
            setBody(e.target.value);
            if (empty && e.target.value.trim()) setEmpty(false);
          }}
          error={empty ? 'Write the note first.' : fieldError(error, 'body')}
        />
        <FormError error={formLevelError(error, ['body'])} />
        <button type="submit" className="button primary" aria-disabled={add.isPending || undefined}>
          {add.isPending ? 'Adding…' : 'Add note'}
        </button>
      </form>
      {notes.length === 0 ? (
        <p className="muted">No notes yet. Notes you add here stay with the contact.</p>
      ) : (
        <ul className="crm-list crm-notes">
          {notes.map((note) => (
            <li key={note.id}>
              <p className="pre crm-note-body">{note.body}</p>
              <p className="muted crm-small">
                {formatDateTime(note.createdAt)}
                {note.source === 'form' ? ' · from a form submission' : ''}
              </p>
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}

function SubmissionItem({ submission }: { submission: ContactSubmission }) {
  const values = Object.entries(submission.values).filter(([, value]) => value !== '' && value !== null && value !== undefined);
  const custom = useQuery({ queryKey: crmKeys.customFields, queryFn: ({ signal }) => fetchCustomFields(signal) });
  const customValues = customRows(submission.custom, custom.data);
  const utm = Object.entries(submission.metadata).filter(([key]) => key.startsWith('utm_'));
  const forms = useQuery({ queryKey: crmKeys.forms, queryFn: ({ signal }) => fetchForms(signal) });
  const form = forms.data?.find((f) => f.id === submission.formId);
  return (
    <li>
      <h3 className="crm-subhead">
        <Link to={`/forms/${encodeURIComponent(submission.formId)}/submissions`}>{form ? form.title : 'Form submission'}</Link>
        <span className="muted crm-when"> · {formatDateTime(submission.createdAt)}</span>
      </h3>
      <dl className="kv">
        {values.map(([key, value]) => (
          <div key={key} className="crm-kv-row">
            <dt>{key.charAt(0).toUpperCase() + key.slice(1)}</dt>
            <dd className="pre">{displayValue(value)}</dd>
          </div>
        ))}
        {customValues.map((row) => (
          <div key={`custom-${row.key}`} className="crm-kv-row">
            <dt>{row.label}</dt>
            <dd className="pre">{row.value}</dd>
          </div>
        ))}
        {utm.map(([key, value]) => (
          <div key={key} className="crm-kv-row">
            <dt>{key}</dt>
            <dd>{displayValue(value)}</dd>
          </div>
        ))}
        <div className="crm-kv-row">
          <dt>Consent</dt>
          <dd>
            Version {submission.consentVersion}
            {submission.consentText ? <span className="pre crm-consent">{submission.consentText}</span> : null}
          </dd>
        </div>
      </dl>
    </li>
  );
}
