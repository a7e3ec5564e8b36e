import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useRef, useState, type FormEvent } from 'react';
import { Link, useNavigate, useParams } from 'react-router';
import { api } from '../../api/client';
import { SESSION_KEY, startSession } from '../../api/session';
import type { Session } from '../../api/types';
import { FormError, TextField } from '../../components/fields';
import { Page } from '../../components/Page';
import { passwordProblem, PASSWORD_MIN } from '../../lib/errors';
import { useNotify } from '../../lib/notices';
import { useFormErrors } from '../../lib/useFormErrors';

export default function ResetConfirmPage() {
  const notify = useNotify();
  const { token = '' } = useParams();
  const client = useQueryClient();
  const navigate = useNavigate();
  const formRef = useRef<HTMLFormElement>(null);
  const [password, setPassword] = useState('');
  const [confirm, setConfirm] = useState('');
  const reset = useMutation({
    mutationFn: () => api.post<Partial<Session> | null>('/api/auth/password-reset/confirm', { token, password }),
    onSuccess: async (data) => {
      if (data && data.csrfToken && data.user && data.organization) startSession(data as Session);
      else await client.invalidateQueries({ queryKey: SESSION_KEY });
      navigate('/forms', { replace: true });
      notify('Your password is changed. You are signed in.');
    },
  });
  const errors = useFormErrors(['password', 'token'], reset.error);

  function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    if (reset.isPending) return;
    const ok = errors.check(formRef.current, {
      password: passwordProblem(password),
      confirm: confirm === password ? null : 'The two passwords are different. Type the same one twice.',
    });
    if (ok) reset.mutate(undefined, { onError: () => errors.focusApiError(formRef.current) });
  }

  return (
    <Page title="Choose a new password">
      <form ref={formRef} onSubmit={submit} noValidate>
        <TextField
          label="New password"
          type="password"
          name="password"
          autoComplete="new-password"
          hint={`At least ${PASSWORD_MIN} characters.`}
          value={password}
          onChange={(e) => setPassword(e.target.value)}
          error={errors.error('password')}
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
        <FormError error={errors.general ?? errors.error('token')} />
        <button type="submit" className="button primary" aria-disabled={reset.isPending}>
          {reset.isPending ? 'Saving…' : 'Save and sign in'}
        </button>
      </form>
      <p className="alt">
        Link expired? <Link to="/reset-password">Ask for a new one</Link>
      </p>
    </Page>
  );
}
