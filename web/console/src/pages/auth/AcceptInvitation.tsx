import { useMutation, useQuery } from '@tanstack/react-query';
import { useRef, useState, type FormEvent } from 'react';
import { Link, useNavigate, useParams } from 'react-router';
import { api, ApiError, seg } from '../../api/client';
import { useSessionActions } from '../../api/session';
import type { InvitationPreview, Session } from '../../api/types';
import { FormError, TextField } from '../../components/fields';
import { Page } from '../../components/Page';
import { LoadError, Loading } from '../../components/QueryState';
import { passwordProblem, PASSWORD_MIN } from '../../lib/errors';
import { formatDate } from '../../lib/format';
import { useNotify } from '../../lib/notices';
import { useFormErrors } from '../../lib/useFormErrors';

export default function AcceptInvitationPage() {
  const { token = '' } = useParams();
  const invitation = useQuery({
    queryKey: ['invitation', token],
    queryFn: () => api.get<InvitationPreview>(`/api/auth/invitations/${seg(token)}`),
    retry: false,
  });

  if (invitation.isPending) return <Loading label="Opening your invitation…" />;
  if (invitation.isError) {
    if (invitation.error instanceof ApiError && invitation.error.status === 404) {
      return (
        <Page title="This invitation cannot be used">
          <p>The link has expired, was already used, or was withdrawn. Ask an owner of your organization to invite you again.</p>
          <p className="alt">
            Already joined? <Link to="/signin">Sign in</Link>
          </p>
        </Page>
      );
    }
    return (
      <Page title="Join your team">
        <LoadError error={invitation.error} retry={() => void invitation.refetch()} />
      </Page>
    );
  }
  return <AcceptForm token={token} invitation={invitation.data} />;
}

function AcceptForm({ token, invitation }: { token: string; invitation: InvitationPreview }) {
  const notify = useNotify();
  const { start } = useSessionActions();
  const navigate = useNavigate();
  const formRef = useRef<HTMLFormElement>(null);
  const [name, setName] = useState('');
  const [password, setPassword] = useState('');
  const accept = useMutation({
    mutationFn: () => api.post<Session>(`/api/auth/invitations/${seg(token)}/accept`, { name: name.trim(), password }),
    onSuccess: (data) => {
      start(data);
      navigate('/forms', { replace: true });
      notify(`You joined ${data.organization?.name ?? 'the organization'}.`);
    },
  });
  const errors = useFormErrors(['name', 'password'], accept.error);

  function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    if (accept.isPending) return;
    const ok = errors.check(formRef.current, { name: name.trim() ? null : 'Enter your name.', password: passwordProblem(password) });
    if (ok) accept.mutate(undefined, { onError: () => errors.focusApiError(formRef.current) });
  }

  return (
    <Page title={`Join ${invitation.organization.name}`}>
      <p>
        You are invited as <strong>{invitation.email}</strong>. Choose your name and a password to join. The invitation is valid until{' '}
        {formatDate(invitation.expiresAt)}.
      </p>
      <form ref={formRef} onSubmit={submit} noValidate>
        <TextField label="Email" type="email" name="email" autoComplete="username" value={invitation.email} readOnly hint="The invitation is for this address." />
        <TextField label="Your name" name="name" autoComplete="name" value={name} onChange={(e) => setName(e.target.value)} error={errors.error('name')} />
        <TextField
          label="Password"
          type="password"
          name="password"
          autoComplete="new-password"
          hint={`At least ${PASSWORD_MIN} characters.`}
          value={password}
          onChange={(e) => setPassword(e.target.value)}
          error={errors.error('password')}
        />
        <FormError error={errors.general} />
        <button type="submit" className="button primary" aria-disabled={accept.isPending}>
          {accept.isPending ? 'Joining…' : 'Join'}
        </button>
      </form>
    </Page>
  );
}
