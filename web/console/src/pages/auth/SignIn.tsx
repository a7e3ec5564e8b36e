import { useRef, useState, type FormEvent } from 'react';
import { Link, Navigate, useNavigate, useSearchParams } from 'react-router';
import { api } from '../../api/client';
import { startSession, useKnownSession } from '../../api/session-state';
import type { Session } from '../../api/types';
import { FormError, TextField } from '../../components/fields';
import { Page } from '../../components/Page';
import { emailProblem } from '../../lib/errors';
import { safeNext } from '../../lib/format';
import { useAction } from '../../lib/useAction';
import { useFormErrors } from '../../lib/useFormErrors';

export default function SignInPage() {
  const [params] = useSearchParams();
  const next = safeNext(params.get('next'));
  const session = useKnownSession();
  const navigate = useNavigate();
  const formRef = useRef<HTMLFormElement>(null);
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const signIn = useAction(
    () => api.post<Session>('/api/auth/signin', { email: email.trim(), password }),
    (data) => {
      startSession(data);
      navigate(next, { replace: true });
    },
  );
  const errors = useFormErrors(['email', 'password'], signIn.error);

  if (session && !signIn.isPending) return <Navigate to={next} replace />;

  function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    if (signIn.isPending) return;
    if (!errors.check(formRef.current, { email: emailProblem(email), password: password ? null : 'Enter your password.' })) return;
    signIn.run();
  }

  return (
    <Page title="Sign in">
      <form ref={formRef} onSubmit={submit} noValidate>
        <TextField label="Email" type="email" name="email" autoComplete="username" value={email} onChange={(e) => setEmail(e.target.value)} error={errors.error('email')} />
        <TextField
          label="Password"
          type="password"
          name="password"
          autoComplete="current-password"
          value={password}
          onChange={(e) => setPassword(e.target.value)}
          error={errors.error('password')}
        />
        <FormError error={errors.general} />
        <button type="submit" className="button primary" aria-disabled={signIn.isPending}>
          {signIn.isPending ? 'Signing in…' : 'Sign in'}
        </button>
      </form>
      <p className="alt">
        <Link to="/reset-password">Forgot your password?</Link>
      </p>
      <p className="alt">
        New to Switchboard? <Link to={next === '/' ? '/signup' : `/signup?next=${encodeURIComponent(next)}`}>Create an account</Link>
      </p>
    </Page>
  );
}
