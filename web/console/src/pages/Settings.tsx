import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useRef, useState, type FormEvent } from 'react';
import { Link, useNavigate } from 'react-router';
import { api, sessionOwner } from '../api/client';
import { queryKeys } from '../api/lists';
import { SESSION_KEY, useCurrentSession, useSessionActions } from '../api/session';
import type { NotificationSettings, Organization, Session } from '../api/types';
import { ConfirmButton } from '../components/dialogs';
import { CheckboxField, FormError, TextField } from '../components/fields';
import { Page } from '../components/Page';
import { LoadError, Loading } from '../components/QueryState';
import { passwordProblem, PASSWORD_MIN } from '../lib/errors';
import { useNotify } from '../lib/notices';
import { useFormErrors } from '../lib/useFormErrors';

export default function SettingsPage() {
  const session = useCurrentSession();
  return (
    <Page title="Settings">
      {session.organization ? <OrganizationSettings /> : null}
      {session.organization ? <ModelProvidersLink /> : null}
      {session.organization ? <TokenBudget isOwner={session.user.role === 'owner'} /> : null}
      {session.organization ? <DataRetention isOwner={session.user.role === 'owner'} /> : null}
      {session.organization ? <Notifications /> : null}
      <PasswordSettings email={session.user.email} />
      <SignOutEverywhere />
    </Page>
  );
}

function ModelProvidersLink() {
  return (
    <section className="card" aria-labelledby="model-providers-title">
      <h2 id="model-providers-title">Model providers</h2>
      <p>Where your agents’ models run (OpenAI, Anthropic or any Chat Completions server), and the keys to reach them.</p>
      <Link to="/settings/model-providers">Manage model providers</Link>
    </section>
  );
}

const numberFormat = new Intl.NumberFormat('en-US');

/** Today's model tokens and the daily budget: owners set it, members see it. */
function TokenBudget({ isOwner }: { isOwner: boolean }) {
  const client = useQueryClient();
  const organization = useQuery({ queryKey: queryKeys.organization, queryFn: () => api.get<Organization>('/api/org/organization') });
  if (organization.isPending) return <Loading />;
  if (organization.isError) return <LoadError error={organization.error} retry={() => void organization.refetch()} />;
  return <TokenBudgetForm organization={organization.data} isOwner={isOwner} onSaved={(saved) => client.setQueryData(queryKeys.organization, saved)} />;
}

function TokenBudgetForm({ organization, isOwner, onSaved }: { organization: Organization; isOwner: boolean; onSaved: (saved: Organization) => void }) {
  const notify = useNotify();
  const formRef = useRef<HTMLFormElement>(null);
  const [budget, setBudget] = useState(organization.dailyTokenBudget === null ? '' : String(organization.dailyTokenBudget));
  const save = useMutation({
    mutationFn: () => api.patch<Organization>('/api/org/organization', { dailyTokenBudget: budget.trim() === '' ? null : Number(budget.trim()) }),
    onSuccess: (saved) => {
      onSaved(saved);
      notify(saved.dailyTokenBudget === null ? 'Daily token budget removed.' : 'Daily token budget saved.');
    },
    onError: () => errors.focusApiError(formRef.current),
  });
  const errors = useFormErrors(['dailyTokenBudget'], save.error);
  const { dailyTokenBudget: current, tokensUsedToday: used } = organization;
  const usage = current === null
    ? `${numberFormat.format(used)} tokens used today (UTC), no daily limit.`
    : `${numberFormat.format(used)} of ${numberFormat.format(current)} tokens used today (UTC).${used >= current ? ' New messages wait until 00:00 UTC.' : ''}`;
  function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    if (save.isPending) return;
    const text = budget.trim();
    const ok = errors.check(formRef.current, {
      dailyTokenBudget: text === '' || (/^\d+$/.test(text) && Number(text) >= 1 && Number(text) <= 1_000_000_000) ? null : 'Enter a whole number from 1 to 1,000,000,000, or leave it empty for no limit.',
    });
    if (ok) save.mutate();
  }
  return (
    <section className="card" aria-labelledby="budget-title">
      <h2 id="budget-title">Model usage</h2>
      <p>{usage}</p>
      {isOwner ? (
        <form ref={formRef} onSubmit={submit} noValidate>
          <TextField
            label="Daily token budget"
            name="dailyTokenBudget"
            type="number"
            inputMode="numeric"
            min={1}
            className="narrow"
            hint="All agents’ conversations together, input and output tokens, per UTC day. Past it, new messages are refused until midnight UTC. Empty: no limit."
            value={budget}
            onChange={(e) => setBudget(e.target.value)}
            error={errors.error('dailyTokenBudget')}
          />
          <FormError error={errors.general} />
          <button type="submit" className="button primary" aria-disabled={save.isPending}>
            {save.isPending ? 'Saving…' : 'Save budget'}
          </button>
        </form>
      ) : (
        <p className="hint">Only an owner can change the daily token budget.</p>
      )}
    </section>
  );
}

type RetentionField = keyof Organization['retention'];

/** The four retention settings: the input's label, its hint, and the most days it takes (the API's bounds). */
const RETENTION: { field: RetentionField; label: string; hint: string; max: number }[] = [
  { field: 'submissionsDays', label: 'Keep form submissions for (days)', hint: 'Then what the visitor sent, their IP and browser are cleared; the form still counts the submission. Empty: keep them.', max: 3650 },
  { field: 'conversationsDays', label: 'Keep conversations for (days)', hint: 'Counted from the last message; then the conversation and its messages are deleted. Empty: keep them.', max: 3650 },
  { field: 'callLogDays', label: 'Keep the tool call log for (days)', hint: 'Then each call’s record is deleted. Empty: keep them.', max: 3650 },
  { field: 'webhookBodiesDays', label: 'Keep webhook delivery bodies for (days)', hint: 'At most 7 days. Then what was sent and answered is cleared; the delivery stays in the log. Empty: 7 days.', max: 7 },
];

/** Settings → Data retention: how long personal data is kept (docs/privacy.md). Owners change it, members see it. */
function DataRetention({ isOwner }: { isOwner: boolean }) {
  const client = useQueryClient();
  const organization = useQuery({ queryKey: queryKeys.organization, queryFn: () => api.get<Organization>('/api/org/organization') });
  if (organization.isPending) return <Loading />;
  if (organization.isError) return <LoadError error={organization.error} retry={() => void organization.refetch()} />;
  return <DataRetentionForm retention={organization.data.retention} isOwner={isOwner} onSaved={(saved) => client.setQueryData(queryKeys.organization, saved)} />;
}

const apiField = (field: RetentionField) => `retention.${field}`;

function DataRetentionForm({ retention, isOwner, onSaved }: { retention: Organization['retention']; isOwner: boolean; onSaved: (saved: Organization) => void }) {
  const notify = useNotify();
  const formRef = useRef<HTMLFormElement>(null);
  const [values, setValues] = useState<Record<RetentionField, string>>(() => ({
    submissionsDays: retention.submissionsDays === null ? '' : String(retention.submissionsDays),
    conversationsDays: retention.conversationsDays === null ? '' : String(retention.conversationsDays),
    callLogDays: retention.callLogDays === null ? '' : String(retention.callLogDays),
    webhookBodiesDays: retention.webhookBodiesDays === null ? '' : String(retention.webhookBodiesDays),
  }));
  const daysOf = (text: string) => (text.trim() === '' ? null : Number(text.trim()));
  const save = useMutation({
    mutationFn: () => api.patch<Organization>('/api/org/organization', {
      retention: Object.fromEntries(RETENTION.map(({ field }) => [field, daysOf(values[field])])),
    }),
    onSuccess: (saved) => {
      onSaved(saved);
      notify('Data retention saved.');
    },
    onError: () => errors.focusApiError(formRef.current),
  });
  const errors = useFormErrors(RETENTION.map(({ field }) => apiField(field)), save.error);
  function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    if (save.isPending) return;
    const ok = errors.check(formRef.current, Object.fromEntries(RETENTION.map(({ field, max }) => {
      const text = values[field].trim();
      const valid = text === '' || (/^\d+$/.test(text) && Number(text) >= 1 && Number(text) <= max);
      return [apiField(field), valid ? null : `Enter a whole number of days from 1 to ${numberFormat.format(max)}, or leave it empty.`];
    })));
    if (ok) save.mutate();
  }
  return (
    <section className="card" aria-labelledby="retention-title">
      <h2 id="retention-title">Data retention</h2>
      <p>How long Switchboard keeps personal data of your visitors and leads. Older data is removed automatically, a few minutes after you save. Contacts, notes and deals stay until you delete them.</p>
      {isOwner ? (
        <form ref={formRef} onSubmit={submit} noValidate>
          {RETENTION.map(({ field, label, hint, max }) => (
            <TextField
              key={field}
              label={label}
              name={apiField(field)}
              type="number"
              inputMode="numeric"
              min={1}
              max={max}
              className="narrow"
              hint={hint}
              value={values[field]}
              onChange={(e) => setValues((current) => ({ ...current, [field]: e.target.value }))}
              error={errors.error(apiField(field))}
            />
          ))}
          <FormError error={errors.general} />
          <button type="submit" className="button primary" aria-disabled={save.isPending}>
            {save.isPending ? 'Saving…' : 'Save retention'}
          </button>
        </form>
      ) : (
        <>
          <dl>
            {RETENTION.map(({ field, label }) => (
              <div key={field}>
                <dt>{label.replace(' (days)', '')}</dt>
                <dd>{retention[field] === null ? (field === 'webhookBodiesDays' ? '7 days' : 'Until deleted') : `${numberFormat.format(retention[field])} days`}</dd>
              </div>
            ))}
          </dl>
          <p className="hint">Only an owner can change how long data is kept.</p>
        </>
      )}
    </section>
  );
}

/** Settings → Notifications: the member's own two switches, and why nothing is sent when the server cannot send email. */
function Notifications() {
  const client = useQueryClient();
  const settings = useQuery({ queryKey: queryKeys.notificationSettings, queryFn: () => api.get<NotificationSettings>('/api/org/notification-settings') });
  if (settings.isPending) return <Loading label="Loading your notification settings…" />;
  if (settings.isError) return <LoadError error={settings.error} retry={() => void settings.refetch()} />;
  return <NotificationsForm settings={settings.data} onSaved={(saved) => client.setQueryData(queryKeys.notificationSettings, saved)} />;
}

function NotificationsForm({ settings, onSaved }: { settings: NotificationSettings; onSaved: (saved: NotificationSettings) => void }) {
  const notify = useNotify();
  const [leads, setLeads] = useState(settings.leads);
  const [handoffs, setHandoffs] = useState(settings.handoffs);
  const save = useMutation({
    mutationFn: () => api.patch<NotificationSettings>('/api/org/notification-settings', { leads, handoffs }),
    onSuccess: (saved) => {
      onSaved(saved);
      notify('Notification settings saved.');
    },
  });
  function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    if (!save.isPending) save.mutate();
  }
  return (
    <section className="card" aria-labelledby="notifications-title">
      <h2 id="notifications-title">Notifications</h2>
      {settings.smtpConfigured ? (
        <p>Emails to you about what needs a person. Each form chooses whom it notifies, in its Notifications section.</p>
      ) : (
        <p className="notice">Email notifications are off: this server has no SMTP_URL. Ask your administrator to set it.</p>
      )}
      <form onSubmit={submit} noValidate>
        <CheckboxField
          label="Email me new leads"
          name="leads"
          hint="Each submission of a form that notifies you, with what the visitor sent and a link to the contact."
          checked={leads}
          onChange={(e) => setLeads(e.target.checked)}
        />
        <CheckboxField
          label="Email me when a visitor asks for a person"
          name="handoffs"
          hint="A chat waiting in the Inbox for someone to take it over."
          checked={handoffs}
          onChange={(e) => setHandoffs(e.target.checked)}
        />
        <FormError error={save.error} />
        <button type="submit" className="button primary" aria-disabled={save.isPending}>
          {save.isPending ? 'Saving…' : 'Save notifications'}
        </button>
      </form>
    </section>
  );
}

function OrganizationSettings() {
  const client = useQueryClient();
  const organization = useQuery({ queryKey: queryKeys.organization, queryFn: () => api.get<Organization>('/api/org/organization') });
  if (organization.isPending) return <Loading />;
  if (organization.isError) return <LoadError error={organization.error} retry={() => void organization.refetch()} />;
  return <OrganizationForm organization={organization.data} onSaved={(saved) => {
    client.setQueryData(queryKeys.organization, saved);
    client.setQueryData<Session | null>(SESSION_KEY, (current) => (current?.organization ? { ...current, organization: { ...current.organization, name: saved.name } } : current));
  }} />;
}

function OrganizationForm({ organization, onSaved }: { organization: Organization; onSaved: (saved: Organization) => void }) {
  const notify = useNotify();
  const formRef = useRef<HTMLFormElement>(null);
  const [name, setName] = useState(organization.name);
  const [country, setCountry] = useState(organization.defaultCountry);
  const save = useMutation({
    mutationFn: () => {
      const patch: Partial<Pick<Organization, 'name' | 'defaultCountry'>> = { name: name.trim() };
      if (country.trim().toUpperCase() !== organization.defaultCountry) patch.defaultCountry = country.trim();
      return api.patch<Organization>('/api/org/organization', patch);
    },
    onSuccess: (saved) => {
      onSaved(saved);
      setCountry(saved.defaultCountry);
      notify('Organization settings saved.');
    },
    onError: () => errors.focusApiError(formRef.current),
  });
  const errors = useFormErrors(['name', 'defaultCountry'], save.error);
  function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    if (save.isPending) return;
    const ok = errors.check(formRef.current, {
      name: name.trim() ? null : 'Enter the organization’s name.',
      defaultCountry: /^[A-Za-z]{2}$/.test(country.trim()) ? null : 'Use a two-letter country code such as US, GB or FR.',
    });
    if (ok) save.mutate();
  }
  return (
    <section className="card" aria-labelledby="org-title">
      <h2 id="org-title">Organization</h2>
      <form ref={formRef} onSubmit={submit} noValidate>
        <TextField label="Organization name" name="name" maxLength={100} value={name} onChange={(e) => setName(e.target.value)} error={errors.error('name')} />
        <TextField
          label="Default country for phone numbers"
          name="defaultCountry"
          maxLength={2}
          autoComplete="off"
          className="narrow"
          hint="A two-letter code such as US or GB. Numbers written without + are read as numbers of this country."
          value={country}
          onChange={(e) => setCountry(e.target.value.toUpperCase())}
          error={errors.error('defaultCountry')}
        />
        <FormError error={errors.general} />
        <button type="submit" className="button primary" aria-disabled={save.isPending}>
          {save.isPending ? 'Saving…' : 'Save'}
        </button>
      </form>
    </section>
  );
}

function PasswordSettings({ email }: { email: string }) {
  const notify = useNotify();
  const client = useQueryClient();
  const formRef = useRef<HTMLFormElement>(null);
  const [currentPassword, setCurrent] = useState('');
  const [newPassword, setNew] = useState('');
  const [confirm, setConfirm] = useState('');
  const change = useMutation({
    mutationFn: () => api.post<Partial<Session> | null>('/api/auth/password', { currentPassword, newPassword }),
    onSuccess: async (data) => {
      setCurrent('');
      setNew('');
      setConfirm('');
      if (data?.csrfToken && data.user && data.organization) api.setCsrfToken(data.csrfToken, sessionOwner(data.user.id, data.organization.id));
      // This browser got a fresh session (and CSRF token); every other one was signed out.
      await client.invalidateQueries({ queryKey: SESSION_KEY });
      notify('Your password is changed. Your other devices are signed out.');
    },
    onError: () => errors.focusApiError(formRef.current),
  });
  const errors = useFormErrors(['currentPassword', 'newPassword'], change.error);
  function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    if (change.isPending) return;
    const ok = errors.check(formRef.current, {
      currentPassword: currentPassword ? null : 'Enter your current password.',
      newPassword: passwordProblem(newPassword),
      confirm: confirm === newPassword ? null : 'The two new passwords are different. Type the same one twice.',
    });
    if (ok) change.mutate();
  }
  return (
    <section className="card" aria-labelledby="password-title">
      <h2 id="password-title">Password</h2>
      <form ref={formRef} onSubmit={submit} noValidate>
        <input type="text" name="username" autoComplete="username" value={email} readOnly hidden />
        <TextField
          label="Current password"
          type="password"
          name="currentPassword"
          autoComplete="current-password"
          value={currentPassword}
          onChange={(e) => setCurrent(e.target.value)}
          error={errors.error('currentPassword')}
        />
        <TextField
          label="New password"
          type="password"
          name="newPassword"
          autoComplete="new-password"
          hint={`At least ${PASSWORD_MIN} characters. Changing it signs you out everywhere else.`}
          value={newPassword}
          onChange={(e) => setNew(e.target.value)}
          error={errors.error('newPassword')}
        />
        <TextField
          label="Type it again"
          type="password"
          name="confirm"
          autoComplete="new-password"
          value={confirm}
          onChange={(e) => setConfirm(e.target.value)}
          error={errors.error('confirm')}
        />
        <FormError error={errors.general} />
        <button type="submit" className="button primary" aria-disabled={change.isPending}>
          {change.isPending ? 'Changing…' : 'Change password'}
        </button>
      </form>
    </section>
  );
}

/** Settings → Sessions: end every session of this person, on every device, this one too; then the sign-in page. */
function SignOutEverywhere() {
  const notify = useNotify();
  const navigate = useNavigate();
  const { signOut } = useSessionActions();
  return (
    <section className="card" aria-labelledby="sessions-title">
      <h2 id="sessions-title">Sessions</h2>
      <p>Lost a device, or signed in on a shared computer? Sign out on every device at once, this one too.</p>
      <ConfirmButton
        label="Sign out everywhere"
        title="Sign out everywhere?"
        confirmLabel="Sign out everywhere"
        onConfirm={async () => {
          await api.post<{ signedOut: true }>('/api/auth/signout-all');
          signOut();
          navigate('/signin', { replace: true });
          notify('You are signed out on every device.');
        }}
      >
        <p>Every browser signed in as you is signed out, this one too. You can sign in again with your password.</p>
      </ConfirmButton>
    </section>
  );
}
