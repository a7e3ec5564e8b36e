import { useId } from 'react';
import { CopyButton } from '../../../components/CopyButton';
import { tokenRequest } from './apps';
import { usePublicUrl } from '../../../api/session';

/** A ready `curl` for an app's access token, to copy into a shell; with the secret only while it is shown once. */
export function TokenRequest({ clientId, secret }: { clientId: string; secret?: string }) {
  const id = useId();
  const command = tokenRequest(usePublicUrl(), clientId, secret);
  return (
    <div className="field snippet-field">
      <label htmlFor={id}>Token request (curl)</label>
      <p className="hint" id={`${id}-hint`}>
        {secret
          ? 'It sets CLIENT_SECRET to the new secret, then asks for a token valid for one hour.'
          : 'Set CLIENT_SECRET to the app’s secret first. The answer’s access_token is valid for one hour.'}
      </p>
      <textarea id={id} className="snippet" readOnly rows={secret ? 4 : 3} value={command} aria-describedby={`${id}-hint`} onFocus={(e) => e.target.select()} />
      <div className="actions">
        <CopyButton text={command} label="Copy curl command" />
      </div>
    </div>
  );
}
