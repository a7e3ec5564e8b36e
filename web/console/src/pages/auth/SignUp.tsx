import { useRef, useState, type FormEvent } from 'react';
import { Link, Navigate, useNavigate, useSearchParams } from 'react-router';
import { api } from '../../api/client';
import { homeOf } from '../../api/areas';
import { startSession, useKnownSession } from '../../api/session-state';
import type { Session } from '../../api/types';
import { FormError, TextField } from '../../components/fields';
import { Page } from '../../components/Page';
import { emailProblem, passwordProblem, PASSWORD_MIN } from '../../lib/errors';
import { safeNext } from '../../lib/format';
import { useNotify } from '../../lib/notices';
import { useAction } from '../../lib/useAction';
import { useFormErrors } from '../../lib/useFormErrors';

export default function SignUpPage() {
  const notify = useNotify();
  // Where the person was going (an app's consent page, from sign-in's "Create an account"); else their area's home.
  const [params] = useSearchParams();
  const next = safeNext(params.get('next'));
  const session = useKnownSession();
  const navigate = useNavigate();
  const formRef = useRef<HTMLFormElement>(null);
  const [name, setName] = useState('');
  const [email, setEmail] = useState('');
  const [organizationName, setOrganizationName] = useState('');
  /** What the person does: run a business (an organization) or build tools (a developer account). */
  const [kind, setKind] = useState<'business' | 'developer'>('business');
  const [password, setPassword] = useState('');
  const signUp = useAction(
    () =>
      api.post<Session>(
        '/api/auth/signup',
        kind === 'developer'
          ? { name: name.trim(), email: email.trim(), password, developer: true }
          : { name: name.trim(), email: email.trim(), organizationName: organizationName.trim(), password },
      ),
    (data) => {
      startSession(data);
      navigate(next === '/' ? homeOf(data) : next, { replace: true });
      notify(data.organization ? `Welcome to Switchboard. ${data.organization.name} is ready.` : 'Welcome to Switchboard. Your developer account is ready.');
    },
  );
  const errors = useFormErrors(['name', 'email', 'organizationName', 'password'], signUp.error);

  if (session && !signUp.isPending && !signUp.isSuccess) return <Navigate to={next === '/' ? homeOf(session) : next} replace />;

  function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    if (signUp.isPending) return;
    const ok = errors.check(formRef.current, {
      name: name.trim() ? null : 'Enter your name.',
      email: emailProblem(email),
      organizationName: kind === 'developer' || organizationName.trim() ? null : 'Enter the name of your business.',
      password: passwordProblem(password),
    });
    if (ok) signUp.run({ onError: () => errors.focusApiError(formRef.current) });
  }

  return (
    <Page title="Create your account" intro="Run a business: build lead-capture forms and manage your leads. Build tools: publish tools that businesses' AI agents call.">
      <form ref={formRef} onSubmit={submit} noValidate>
        <fieldset>
          <legend>What will you do?</legend>
          <div className="check">
            <input id="signup-business" type="radio" name="kind" checked={kind === 'business'} onChange={() => setKind('business')} />
            <label htmlFor="signup-business">Run a business</label>
          </div>
          <div className="check">
            <input id="signup-developer" type="radio" name="kind" checked={kind === 'developer'} onChange={() => setKind('developer')} />
            <label htmlFor="signup-developer">Build tools (a developer account)</label>
          </div>
        </fieldset>
        <TextField label="Your name" name="name" autoComplete="name" value={name} onChange={(e) => setName(e.target.value)} error={errors.error('name')} />
        <TextField label="Email" type="email" name="email" autoComplete="email" value={email} onChange={(e) => setEmail(e.target.value)} error={errors.error('email')} />
        {kind === 'business' ? (
          <TextField
            label="Organization name"
            name="organizationName"
            autoComplete="organization"
            hint="Your business, as your team knows it. You can change it later."
            value={organizationName}
            onChange={(e) => setOrganizationName(e.target.value)}
            error={errors.error('organizationName')}
          />
        ) : null}
        <TextField
          label="Password"
          type="password"
          name="password"
          autoComplete="new-password"
          hint={`At least ${PASSWORD_MIN} characters. A long phrase is easy to remember and hard to guess.`}
          value={password}
          onChange={(e) => setPassword(e.target.value)}
          error={errors.error('password')}
        />
        <FormError error={errors.general} />
        <button type="submit" className="button primary" aria-disabled={signUp.isPending}>
          {signUp.isPending ? 'Creating your account…' : 'Create account'}
        </button>
      </form>
      <p className="alt">
        Already have an account? <Link to={next === '/' ? '/signin' : `/signin?next=${encodeURIComponent(next)}`}>Sign in</Link>
      </p>
    </Page>
  );
}
