import { useRef, useState, type FormEvent } from 'react';
import { Link } from 'react-router';
import { api } from '../../api/client';
import { FormError, TextField } from '../../components/fields';
import { Page } from '../../components/Page';
import { emailProblem } from '../../lib/errors';
import { useAction } from '../../lib/useAction';
import { useFormErrors } from '../../lib/useFormErrors';

export default function ResetRequestPage() {
  const formRef = useRef<HTMLFormElement>(null);
  const [email, setEmail] = useState('');
  const request = useAction(() => api.post<unknown>('/api/auth/password-reset', { email: email.trim() }));
  const errors = useFormErrors(['email'], request.error);

  function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    if (request.isPending) return;
    if (errors.check(formRef.current, { email: emailProblem(email) })) request.run();
  }

  if (request.isSuccess) {
    return (
      <Page title="Check your email">
        <p role="status">
          If an account uses <strong>{email.trim()}</strong>, we sent it a link to choose a new password. The link works for one hour.
        </p>
        <p className="muted">No email? Check your spam folder, or ask the person who runs your Switchboard server for a reset.</p>
        <p className="alt">
          <Link to="/signin">Back to sign in</Link>
        </p>
      </Page>
    );
  }

  return (
    <Page title="Reset your password" intro="Enter the email you sign in with. We will send you a link to choose a new password.">
      <form ref={formRef} onSubmit={submit} noValidate>
        <TextField label="Email" type="email" name="email" autoComplete="email" value={email} onChange={(e) => setEmail(e.target.value)} error={errors.error('email')} />
        <FormError error={errors.general} />
        <button type="submit" className="button primary" aria-disabled={request.isPending}>
          {request.isPending ? 'Sending…' : 'Send reset link'}
        </button>
      </form>
      <p className="alt">
        <Link to="/signin">Back to sign in</Link>
      </p>
    </Page>
  );
}
