import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useRef, useState, type FormEvent } from 'react';
import { Link, useNavigate, useParams } from 'react-router';
import { api, seg } from '../../api/client';
import { Page } from '../../components/Page';
import { QueryState } from '../../components/QueryState';
import { ModalDialog } from '../../components/dialogs';
import { useSession } from '../../api/session';
import { FormError, TextArea, TextField } from '../../components/fields';
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

        <PersonalData contact={contact} name={name} />

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

/** The person's requests (owners only): their data as a file, and erasing them after typing their email or phone. */
function PersonalData({ contact, name }: { contact: ContactDetail; name: string }) {
  const session = useSession();
  const notify = useNotify();
  const navigate = useNavigate();
  const client = useQueryClient();
  const [open, setOpen] = useState(false);
  const [typed, setTyped] = useState('');
  const [mismatch, setMismatch] = useState(false);
  const download = useMutation({
    mutationFn: () => api.get<unknown>(`/api/org/contacts/${seg(contact.id)}/export`),
    onSuccess: (data) => {
      const url = URL.createObjectURL(new Blob([JSON.stringify(data, null, 2)], { type: 'application/json' }));
      const link = document.createElement('a');
      link.href = url;
      link.download = `contact-${contact.id}.json`;
      link.click();
      setTimeout(() => URL.revokeObjectURL(url), 1000);
      notify('Data downloaded.');
    },
    onError: (error) => notify(error.message),
  });
  const erase = useMutation({
    mutationFn: () => api.post<unknown>(`/api/org/contacts/${seg(contact.id)}/erase`),
    onSuccess: () => {
      setOpen(false);
      client.removeQueries({ queryKey: crmKeys.contact(contact.id) });
      void client.invalidateQueries({ queryKey: crmKeys.all });
      notify(`${name} was erased.`);
      navigate('/contacts');
    },
  });
  if (session.data?.user.role !== 'owner') return null;
  const identities = [contact.email, contact.phone].filter((value): value is string => Boolean(value));
  const matches = (value: string) => identities.some((identity) => identity.toLowerCase() === value.trim().toLowerCase());
  const confirm = (event: FormEvent) => {
    event.preventDefault();
    if (erase.isPending) return;
    if (!matches(typed)) {
      setMismatch(true);
      return;
    }
    erase.mutate();
  };
  return (
    <section className="card crm-section" aria-labelledby="contact-personal-data">
      <h2 id="contact-personal-data">Personal data</h2>
      <p className="muted">For a request to see or erase what you hold about this person.</p>
      <div className="actions">
        <button type="button" className="button" aria-disabled={download.isPending || undefined} onClick={() => (download.isPending ? undefined : download.mutate())}>
          {download.isPending ? 'Preparing…' : 'Download data'}
        </button>
        <button type="button" className="button danger-outline" onClick={() => { setTyped(''); setMismatch(false); erase.reset(); setOpen(true); }}>
          Erase
        </button>
      </div>
      <ModalDialog title={`Erase ${name}?`} role="alertdialog" isOpen={open} isDismissable={!erase.isPending} onOpenChange={(next) => (erase.isPending ? undefined : setOpen(next))}>
        {(close) => (
          <form onSubmit={confirm} noValidate>
            <p>
              This removes their details, notes, form answers and chats everywhere, and cannot be undone. Opportunities stay, marked as an erased contact.
            </p>
            <TextField
              label={`Type their ${identities.length > 1 ? 'email or phone' : contact.email ? 'email' : 'phone'} to confirm`}
              name="confirm"
              autoComplete="off"
              value={typed}
              onChange={(e) => {
                setTyped(e.target.value);
                if (mismatch) setMismatch(false);
              }}
              error={mismatch ? `That is not ${identities.join(' or ')}. Type it exactly.` : undefined}
            />
            <FormError error={erase.error} />
            <div className="actions">
              <button type="submit" className="button danger" aria-disabled={erase.isPending || undefined}>
                {erase.isPending ? 'Erasing…' : 'Erase for good'}
              </button>
              <button type="button" className="button" onClick={() => (erase.isPending ? undefined : close())}>
                Cancel
              </button>
            </div>
          </form>
        )}
      </ModalDialog>
    </section>
  );
}
